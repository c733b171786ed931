"""zeroclaw-eval against its peers on the same generated cases, in the same run.

    nox -s benchmark_peers -- --sizes 100,1000,10000 --peer-max 1000
    python benchmarks/peers.py [--sizes 100,1000] [--repeat 3] [--fail-rate 0.01] [--peer-max N]

For each size, one suite is generated from `--seed` (benchmarks/peer_cases.py: 1-3 turns,
0-3 echo calls a turn, six checks a case), with `--fail-rate` of its cases broken on
purpose. Each contender then runs it as a fresh process, `--repeat` times, interleaved:

- floor: benchmarks/peer_floor.py, json-load and a plain loop, every check verified;
- zeroclaw-eval: `zeroclaw eval run --suite DIR --report json=FILE`, the real CLI,
  printing its table and writing its JSON report;
- pydantic-evals: benchmarks/peer_pydantic_evals.py, a Dataset run against a
  pydantic-ai Agent on a scripted FunctionModel;
- inspect_ai: benchmarks/peer_inspect_ai.py, a Task on inspect's mockllm model with
  scripted outputs, `use_tools` + `generate`, a scorer for the checks.

A contender's run counts only if it reports every case and every check, and exactly
the broken cases as failed; otherwise its row says what it got wrong and has no ratio.
Wall time is measured around the process (start-up and imports included); peak memory
is the process's maximum resident set size as `os.wait4` reports it for that one child
(Linux: ru_maxrss in KiB), taken by a small launcher process so that none of this
harness's own memory is counted. Medians of the repeats are printed.

pydantic-evals and inspect_ai are not dependencies of zeroclaw-eval: `nox -s benchmark_peers`
installs them next to it, or point `--peer-python` at an interpreter that has them (and
zeroclaw-eval, for `--zeroclaw`'s default). A contender whose packages are missing is
skipped with a line saying so.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from peer_cases import Suite, write_suite

HERE = Path(__file__).resolve().parent
FLOOR = "floor"
ZEROCLAW = "zeroclaw-eval"
PYDANTIC_EVALS = "pydantic-evals"
INSPECT_AI = "inspect_ai"
#: The peers: each needs its packages in --peer-python, and --peer-max limits its sizes.
PEERS = {PYDANTIC_EVALS: ("pydantic-evals", "pydantic-ai-slim"), INSPECT_AI: ("inspect-ai",)}


@dataclass(frozen=True)
class Scratch:
    """Where one run of a contender writes: its verdict (or report) and any logs."""

    verdict: Path
    logs: Path


@dataclass
class Contender:
    """How to run one contender and read back which cases it failed."""

    name: str
    command: Callable[[Path, Scratch], list[str]]
    #: Exit codes of a run that went as it should, given whether any case must fail.
    ok_exit: Callable[[bool], set[int]]
    read_verdict: Callable[[Path], dict[str, object]]
    version: str = ""


@dataclass
class Result:
    """The runs of one contender on one suite."""

    walls: list[float] = field(default_factory=list)
    peaks_kib: list[int] = field(default_factory=list)
    wrong: str = ""
    skipped: str = ""


def read_own_verdict(path: Path) -> dict[str, object]:
    loaded: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def read_zeroclaw_report(path: Path) -> dict[str, object]:
    """The JSON report as a verdict: every case, its grades, the ones that did not pass."""
    report = json.loads(path.read_text(encoding="utf-8"))
    cases = report["cases"]
    return {
        "cases": len(cases),
        "checks": sum(len(case["grades"]) for case in cases),
        "failed": sorted(case["name"] for case in cases if case["status"] != "passed"),
    }


def script(python: str, name: str, *extra: str) -> Callable[[Path, Scratch], list[str]]:
    def command(suite: Path, scratch: Scratch) -> list[str]:
        tail = [str(scratch.logs)] if extra else []
        return [python, str(HERE / name), str(suite), str(scratch.verdict), *tail]

    return command


def versions(python: str, distributions: tuple[str, ...]) -> dict[str, str] | None:
    """The installed versions of `distributions` in `python`'s environment, or None if any is missing."""
    probe = (
        "import importlib.metadata as m, json, sys\n"
        "try: print(json.dumps({d: m.version(d) for d in sys.argv[1:]}))\n"
        "except m.PackageNotFoundError as e: print(json.dumps({'missing': str(e)}))\n"
    )
    found = subprocess.run([python, "-c", probe, *distributions], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        return None
    answer: dict[str, str] = json.loads(found.stdout)
    return None if "missing" in answer else answer


def contenders(args: argparse.Namespace) -> tuple[list[Contender], list[str]]:
    """The contenders that can run here, and a line for each that cannot."""
    notes: list[str] = []
    found: list[Contender] = [
        Contender(FLOOR, script(sys.executable, "peer_floor.py"), lambda _f: {0}, read_own_verdict, "")
    ]
    zeroclaw = args.zeroclaw or shutil.which("zeroclaw", path=str(Path(args.peer_python).parent))
    zeroclaw = zeroclaw or shutil.which("zeroclaw")
    if zeroclaw is None:
        notes.append(f"{ZEROCLAW}: skipped, no zeroclaw command (pip install -e . or give --zeroclaw)")
    else:
        notes.append(compile_bytecode(zeroclaw))
        version = subprocess.run([zeroclaw, "--version"], capture_output=True, text=True, check=False)

        def run_zeroclaw(suite: Path, scratch: Scratch, exe: str = zeroclaw) -> list[str]:
            # One process, as every peer runs (a suite of 500 cases or more would use workers).
            run = [exe, "eval", "run", "--suite", str(suite), "--report", f"json={scratch.verdict}"]
            return [*run, "--jobs", "1"]

        # Exit 1 is the gate doing its job when a case must fail; 0 when none must.
        found.append(
            Contender(
                ZEROCLAW,
                run_zeroclaw,
                lambda failing: {1} if failing else {0},
                read_zeroclaw_report,
                version.stdout.strip().rsplit(" ", 1)[-1],
            )
        )
    for name, distributions in PEERS.items():
        installed = versions(args.peer_python, distributions)
        if installed is None:
            notes.append(
                f"{name}: skipped, {' and '.join(distributions)} not installed in {args.peer_python}"
                " (nox -s benchmark_peers installs them)"
            )
            continue
        module = "peer_pydantic_evals.py" if name == PYDANTIC_EVALS else "peer_inspect_ai.py"
        command = script(args.peer_python, module, *(["logs"] if name == INSPECT_AI else []))
        label = ", ".join(f"{d} {v}" for d, v in installed.items())
        found.append(Contender(name, command, lambda _f: {0}, read_own_verdict, label))
    return found, notes


#: Runs the command given after the result file, waits for it with `os.wait4` and writes
#: its exit code, wall time and peak resident memory there. Linux counts the resident
#: pages a child inherits from its parent at fork toward the child's peak, so a contender
#: started straight from this harness (which holds whole JSON reports by the 10,000-case
#: size) would be charged for the harness's memory; this small launcher starts it instead.
LAUNCHER = """
import json, os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
wall = time.perf_counter() - started
with open(sys.argv[1], "w") as out:
    json.dump({"exit": os.waitstatus_to_exitcode(status), "wall": wall, "kib": usage.ru_maxrss,
               "cpu": usage.ru_utime + usage.ru_stime}, out)
"""


def absolute_command(command: str) -> str:
    """`command` as it runs from any folder: a path made absolute (a symlink kept, so a
    venv's `bin/python` stays the venv's), a bare name left to PATH.

    The measured commands run in a scratch folder. In the folder they were started from,
    a `python -m zeroclaw_eval` wrapper of older code (`PYTHONPATH=WORKTREE`) would import
    the package of that folder first when it is the project's own: Python puts the
    current folder ahead of PYTHONPATH for `-m`, and `before` would measure the code of
    now.
    """
    return os.path.abspath(command) if os.sep in command else command


def compile_bytecode(command: str) -> str:
    """Compile the bytecode of the zeroclaw_eval package that the console script `command`
    runs, as pip does when it installs a wheel; a line saying what was compiled.

    An editable install under `PYTHONDONTWRITEBYTECODE=1` (CI images often set it) would
    otherwise compile every module from source at every start, ~0.1 s that no installed
    copy of the tool pays.
    """
    try:
        with open(command, "rb") as script_file:
            first = script_file.readline().decode("utf-8", "replace").strip()
    except OSError:
        return f"{command}: not a file; bytecode left as it is"
    python = first[2:].strip() if first.startswith("#!") else sys.executable
    where = subprocess.run(
        [python, "-c", "import os, zeroclaw_eval; print(os.path.dirname(zeroclaw_eval.__file__))"],
        capture_output=True,
        text=True,
        check=False,
    )
    folder = where.stdout.strip()
    if where.returncode != 0 or not folder:
        return f"{command}: zeroclaw_eval not found by {python}; bytecode left as it is"
    subprocess.run([python, "-m", "compileall", "-q", folder], stdout=subprocess.DEVNULL, check=False)
    return f"bytecode compiled: {folder}"


def measured(command: list[str], timeout: float, errors: Path) -> tuple[int, float, int]:
    """Run `command` once: its exit code, wall seconds and peak resident memory in KiB."""
    code, wall, kib, _ = measured_cpu(command, timeout, errors)
    return code, wall, kib


def measured_cpu(
    command: list[str], timeout: float, errors: Path, cwd: Path | None = None
) -> tuple[int, float, int, float]:
    """Run `command` once (in `cwd`, else here): its exit code, wall seconds, peak
    resident memory in KiB and CPU seconds (user and system).

    `os.wait4` (in the launcher) reaps this one child and returns its own resource
    usage, so each run's ru_maxrss is its own; RUSAGE_CHILDREN would be the maximum over
    every child so far.
    """
    result = errors.with_name("measured.json")
    with errors.open("wb") as stderr:
        launcher = subprocess.Popen(
            [sys.executable, "-c", LAUNCHER, str(result), *command],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,  # its own process group, which a timeout kills whole
            cwd=cwd,
        )
        try:
            launcher.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()
            return -signal.SIGKILL, timeout, 0, 0.0
    if launcher.returncode != 0:
        return launcher.returncode, 0.0, 0, 0.0
    outcome = json.loads(result.read_text(encoding="utf-8"))
    return int(outcome["exit"]), float(outcome["wall"]), int(outcome["kib"]), float(outcome["cpu"])


def judge(contender: Contender, suite: Suite, exit_code: int, scratch: Scratch, errors: Path) -> str:
    """Why this run does not count ('' when it reported exactly what it must)."""
    if exit_code not in contender.ok_exit(bool(suite.failing)):
        tail = errors.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
        return f"exit {exit_code}: {' / '.join(tail) or 'no stderr'}"
    try:
        verdict = contender.read_verdict(scratch.verdict)
    except (OSError, ValueError, KeyError) as error:
        return f"no readable verdict ({error})"
    failed = set(verdict["failed"])  # type: ignore[call-overload]
    problems = []
    if verdict["cases"] != len(suite.names):
        problems.append(f"{verdict['cases']} of {len(suite.names)} cases")
    if verdict["checks"] != suite.checks:
        problems.append(f"{verdict['checks']} of {suite.checks} checks")
    if failed != suite.failing:
        missed, extra = sorted(suite.failing - failed), sorted(failed - suite.failing)
        problems.append(f"failed {len(failed)} cases, missed {missed[:3]}, wrongly {extra[:3]}")
    return "; ".join(problems)


def bench_size(size: int, args: argparse.Namespace, found: list[Contender], work: Path) -> dict[str, Result]:
    folder = work / f"suite_{size}"
    folder.mkdir()
    suite = write_suite(folder, size, args.seed, args.fail_rate)
    results = {contender.name: Result() for contender in found}
    for contender in found:
        if contender.name in PEERS and args.peer_max and size > args.peer_max:
            results[contender.name].skipped = f"skipped above --peer-max {args.peer_max}"
    # Round by round, every contender once, so that load from elsewhere on the machine
    # falls on all of them alike rather than on whichever ran during it.
    for round_number in range(args.repeat):
        for contender in found:
            result = results[contender.name]
            if result.skipped or result.wrong:
                continue
            run_dir = work / f"{contender.name}_{size}_{round_number}"
            run_dir.mkdir()
            scratch = Scratch(run_dir / "verdict.json", run_dir / "logs")
            errors = run_dir / "stderr.txt"
            code, wall, peak = measured(contender.command(suite.folder, scratch), args.timeout, errors)
            result.wrong = judge(contender, suite, code, scratch, errors)
            result.walls.append(wall)
            result.peaks_kib.append(peak)
            print(
                f"  {size:>6} cases  {contender.name:<15} run {round_number + 1}: {wall:8.2f} s",
                file=sys.stderr,
            )
            # Each run's files are dropped once judged; a 10,000-case log adds up.
            shutil.rmtree(run_dir)
    shutil.rmtree(folder)
    return results


def table(size: int, results: dict[str, Result], failing: int, markdown: bool) -> list[str]:
    floor = results.get(FLOOR)
    floor_wall = statistics.median(floor.walls) if floor and floor.walls and not floor.wrong else None
    rows = []
    for name, result in results.items():
        if result.skipped:
            rows.append([name, str(size), "—", "—", "—", result.skipped])
        elif result.wrong:
            rows.append([name, str(size), "—", "—", "—", f"WRONG, no ratio: {result.wrong}"])
        else:
            wall = statistics.median(result.walls)
            ratio = f"{wall / floor_wall:.1f}x" if floor_wall else "—"
            peak = statistics.median(result.peaks_kib) / 1024
            found = "no case broken, none failed"
            if failing:
                found = f"failed exactly the {failing} broken case(s)"
            rows.append([name, str(size), f"{wall:.2f}", ratio, f"{peak:.0f}", found])
    header = ["contender", "cases", "median wall s", "ratio to floor", "peak MiB", "verified"]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return lines + ["| " + " | ".join(row) + " |" for row in rows]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    right = {1, 2, 3, 4}

    def line(row: list[str]) -> str:
        pairs = enumerate(zip(row, widths, strict=True))
        cells = [cell.rjust(w) if i in right else cell.ljust(w) for i, (cell, w) in pairs]
        return "  ".join(cells).rstrip()

    return [line(header), *map(line, rows)]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100,1000", help="comma-separated case counts [100,1000]")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each contender per size [3]")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated suites [0]")
    parser.add_argument("--fail-rate", type=float, default=0.01, help="fraction of broken cases [0.01]")
    parser.add_argument(
        "--peer-max",
        type=int,
        default=0,
        help="skip pydantic-evals and inspect_ai above this size [no limit]",
    )
    parser.add_argument(
        "--peer-python", default=sys.executable, help="the Python that has the peers installed [this one]"
    )
    parser.add_argument("--zeroclaw", help="the zeroclaw command [next to --peer-python, else on PATH]")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds before a run is killed [3600]")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args()
    sizes = [int(size.replace("_", "")) for size in args.sizes.split(",")]
    if not 0 <= args.fail_rate < 1 or args.repeat < 1 or min(sizes) < 1:
        parser.error("--fail-rate must be in [0, 1), --repeat and every size at least 1")
    found, notes = contenders(args)
    print(
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}; seed {args.seed}, fail rate {args.fail_rate:g}, "
        f"median of {args.repeat}"
    )
    for contender in found:
        if contender.version:
            print(f"{contender.name}: {contender.version}")
    for note in notes:
        print(note)
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="zeroclaw-peers-") as folder:
        for size in sizes:
            results = bench_size(size, args, found, Path(folder))
            failing = round(size * args.fail_rate)
            rows = table(size, results, failing, args.markdown)
            lines.extend(rows if not lines else rows[2 if args.markdown else 1 :])
    print("\n".join(lines))
    if any("WRONG" in line for line in lines):
        sys.exit(1)


if __name__ == "__main__":
    main()
