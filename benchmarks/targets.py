"""zeroclaw-eval's speed targets, against a floor that does the same observable work, in one run.

    python benchmarks/targets.py [--sizes 1000,10000] [--repeat 5] [--zeroclaw PATH]
    nox -s benchmark                      # the same, in a session of its own

The floor (benchmarks/peer_floor.py) reads each fixture, replays its steps through a
trivial loop, grades every check, and streams a JSON record per case of the size
zeroclaw-eval's report writes (orjson, one record at a time): *floor+report*. A floor that
writes no report (*bare floor*) hides work no gate can skip, so it is only the second
column. For each size, the suite of benchmarks/peer_cases.py is generated from `--seed`,
and round after round (so that load from elsewhere falls on all alike) these run as
fresh processes, timed around the process, with their CPU time and peak resident memory
(benchmarks/peers.py measures them the same way):

- bare floor, floor+report;
- floor on the stack (benchmarks/stack_floor.py): floor+report plus the least of what
  this design adds on its libraries (a strict pydantic model admits each fixture, an
  async agent loop on asyncio replays it, each request's new messages are compared with
  the script): not a target, the yardstick that shows how much of the distance to
  floor+report any gate of this design on this stack would pay;
- table+json: `zeroclaw eval run --suite DIR --report json=FILE --jobs 1` (the table on
  stdout; one process, as every ratio below is single-process);
- all outputs: the same plus `--report junit=... --report html=... --report github=...`;
- `-j auto: table+json`: table+json with `--jobs auto` (what a run without `--jobs`
  does from 500 cases on; below that, it still measures workers), and its gain over one
  process (reported apart: never part of a single-process ratio); with `--jobs N`
  (N > 1), both zeroclaw runs again with `--jobs N`; with `--before CMD`, both runs of
  another zeroclaw command (the code before a change, say), measured in the same rounds.
  Every command runs in a scratch folder, so a `PYTHONPATH=WORKTREE python -m
  zeroclaw_eval` wrapper measures the worktree's code wherever this is started from.

Then `zeroclaw --help` and a 3-case run, each the median of `--repeat` starts, and beside
them the start-up floor: a Python that imports asyncio, click and pydantic and defines one
model, which is what any run of this design on these libraries starts with. The
package's bytecode is compiled first, as pip compiles an installed wheel's.

The targets (medians; ratios are same-run, interleaved):

- table+json at most 1.3x floor+report at 10,000 cases and 1.6x at 1,000;
- all outputs at most 1.2x table+json;
- at most 250 µs of CPU a case for table+json (its CPU past a 3-case run's, per case);
- peak memory of table+json at 10,000 at most 80 MiB, and under 1.3x that at 1,000;
- `zeroclaw --help` under 0.1 s, a 3-case run under 0.15 s.

Exits 1 when a target is missed, listing each. A busy machine makes the ratios noisy:
say so when quoting them.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from peer_cases import write_suite
from peers import absolute_command, compile_bytecode, measured_cpu

from zeroclaw_eval.runner.workers import usable_cpus

HERE = Path(__file__).resolve().parent
FLOOR, BARE, STACK = "floor+report", "bare floor", "floor on the stack"
#: What a process of this design must import before any of its own work.
IMPORT_FLOOR = "import asyncio, click\nfrom pydantic import BaseModel\nclass M(BaseModel):\n    x: int\n"
LIBRARIES = "libraries' import"
#: table+json with `--jobs auto`: the default of a suite this size, one worker per usable CPU.
AUTO = "-j auto: table+json"
#: (what runs, cases) -> the most it may take, as a ratio to floor+report on the same cases.
RATIO_TARGETS = {("table+json", 1000): 1.6, ("table+json", 10000): 1.3}
#: All outputs, as a ratio to table+json on the same cases.
ALL_OUTPUTS_TARGET = 1.2
#: CPU a case of table+json may cost, beyond a 3-case run's (start-up, imports).
CPU_PER_CASE_TARGET = 250e-6
#: Peak resident memory of table+json at 10,000 cases, and its growth from 1,000.
PEAK_TARGET_MIB, PEAK_GROWTH_TARGET = 80.0, 1.3
#: Seconds `zeroclaw --help` and a 3-case run may take.
START_TARGETS = {"zeroclaw --help": 0.1, "3-case run": 0.15}


@dataclass
class Timing:
    """The medians of one command's runs at one size."""

    wall: float
    cpu: float
    peak_mib: float


def commands(zeroclaw: str, suite: Path, out: Path, before: str | None, jobs: int) -> dict[str, list[str]]:
    floor = [sys.executable, str(HERE / "peer_floor.py"), str(suite), str(out / "verdict.json")]
    found = {BARE: floor, FLOOR: [*floor, "--report", str(out / "floor.json")]}
    stack = [sys.executable, str(HERE / "stack_floor.py"), str(suite), str(out / "verdict.json")]
    found[STACK] = [*stack, "--report", str(out / "stack.json")]
    # `--jobs 1` spelled out: without it a suite of 500 cases or more runs in worker
    # processes, and a ratio against the single-process floor would count them.
    variants = [("", zeroclaw, ["--jobs", "1"]), ("before: ", before, ["--jobs", "1"])]
    if jobs > 1:
        variants.append((f"-j {jobs}: ", zeroclaw, ["--jobs", str(jobs)]))

    def table_json(command: str, *extra: str) -> list[str]:
        report = f"json={out / 'eval.json'}"
        return [command, "eval", "run", "--suite", str(suite), "--report", report, *extra]

    for label, command, extra in variants:
        if command is None:
            continue
        run = table_json(command, *extra)
        every = ["--report", f"junit={out / 'eval.xml'}", "--report", f"html={out / 'eval.html'}"]
        found[f"{label}table+json"] = run
        found[f"{label}all outputs"] = [*run, *every, "--report", f"github={out / 'github.txt'}"]
    found[AUTO] = table_json(zeroclaw, "--jobs", "auto")
    return found


def run_once(command: list[str], scratch: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak MiB of one run of `command`, run in `scratch`
    (see `peers.absolute_command`)."""
    code, wall, kib, cpu = measured_cpu(command, 3600.0, scratch / "stderr.txt", cwd=scratch)
    if code not in (0, 1):  # 1: the suite's broken cases failed, as they must
        errors = (scratch / "stderr.txt").read_text(encoding="utf-8", errors="replace")
        sys.exit(f"{' '.join(command[:3])} ... exited {code}: {errors[-500:]}")
    return wall, cpu, kib / 1024


def median_timing(command: list[str], repeat: int, scratch: Path) -> Timing:
    runs = [run_once(command, scratch) for _ in range(repeat)]
    return Timing(*(statistics.median(values) for values in zip(*runs, strict=True)))


def measure(
    sizes: list[int], args: argparse.Namespace, zeroclaw: str, work: Path
) -> dict[tuple[str, int], Timing]:
    """Each command at each size: the medians of `args.repeat` interleaved rounds."""
    timings: dict[tuple[str, int], Timing] = {}
    for size in sizes:
        suite = work / f"suite_{size}"
        suite.mkdir()
        write_suite(suite, size, args.seed, 0.01)
        out = work / f"out_{size}"
        out.mkdir()
        runs = commands(zeroclaw, suite, out, args.before, args.jobs)
        samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in runs}
        for _ in range(args.repeat):  # round by round, every command once
            for name, command in runs.items():
                samples[name].append(run_once(command, out))
        for name, taken in samples.items():
            timings[name, size] = Timing(*(statistics.median(values) for values in zip(*taken, strict=True)))
        floor_bytes, ours = (out / "floor.json").stat().st_size, (out / "eval.json").stat().st_size
        sizes_shown = f"floor+report {floor_bytes / size:,.0f}, zeroclaw {ours / size:,.0f}"
        print(f"{size} cases: report bytes a case, {sizes_shown}")
        shutil.rmtree(suite)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated case counts [1000,10000]")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds per size [5]")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated suites [0]")
    parser.add_argument("--zeroclaw", help="the zeroclaw command [next to this Python, else on PATH]")
    parser.add_argument("--before", help="another zeroclaw command to measure alongside, for comparison")
    parser.add_argument(
        "--jobs", type=int, default=0, help="also measure the zeroclaw runs with --jobs N [no]"
    )
    args = parser.parse_args()
    zeroclaw = args.zeroclaw or shutil.which("zeroclaw", path=str(Path(sys.executable).parent))
    zeroclaw = zeroclaw or shutil.which("zeroclaw")
    if zeroclaw is None:
        sys.exit("no zeroclaw command: pip install -e . or give --zeroclaw")
    # Every command runs in a scratch folder (see `peers.absolute_command`).
    zeroclaw = absolute_command(zeroclaw)
    args.before = args.before and absolute_command(args.before)
    sizes = [int(size.replace("_", "")) for size in args.sizes.split(",")]
    print(compile_bytecode(zeroclaw))  # as an installed copy starts; compile --before's code yourself
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(
        f"median of {args.repeat} interleaved rounds; seed {args.seed}, 1% of the cases broken on purpose\n"
    )
    with tempfile.TemporaryDirectory(prefix="zeroclaw-targets-") as folder:
        work = Path(folder)
        timings = measure(sizes, args, zeroclaw, work)
        three = work / "suite_3"
        three.mkdir()
        write_suite(three, 3, args.seed, 0.0)
        starts = {
            "zeroclaw --help": median_timing([zeroclaw, "--help"], args.repeat, work),
            "3-case run": median_timing([zeroclaw, "eval", "run", "--suite", str(three)], args.repeat, work),
            LIBRARIES: median_timing([sys.executable, "-c", IMPORT_FLOOR], args.repeat, work),
        }
    print(report(sizes, timings, starts))


def report(sizes: list[int], timings: dict[tuple[str, int], Timing], starts: dict[str, Timing]) -> str:
    """The table, each target's verdict; exits 1 after printing when one is missed."""
    missed: list[str] = []
    names = list(dict.fromkeys(name for name, _ in timings))
    width = max(len(name) for name in names)
    lines = [
        f"{'what runs':<{width}} {'cases':>6} {'wall s':>8} {'x f+r':>6} {'x bare':>7} {'target':>7}"
        f" {'CPU µs/case':>11} {'peak MiB':>9}"
    ]
    fixed_cpu = starts["3-case run"].cpu
    for size in sizes:
        floor, bare = timings[FLOOR, size], timings[BARE, size]
        for name in names:
            timing = timings[name, size]
            ratio = timing.wall / floor.wall
            target = RATIO_TARGETS.get((name, size))
            if target and ratio > target:
                missed.append(f"{name} at {size}: {ratio:.2f}x floor+report (target {target}x)")
            # zeroclaw's start-up (a 3-case run's CPU) is no case's cost; the floors start bare.
            fixed = 0.0 if name in (FLOOR, BARE, STACK) else fixed_cpu
            per_case = max(timing.cpu - fixed, 0.0) / size
            shown = f"{target}x" if target else ""
            bare_ratio = timing.wall / bare.wall
            lines.append(
                f"{name:<{width}} {size:>6} {timing.wall:>8.2f} {ratio:>5.2f}x {bare_ratio:>6.2f}x"
                f" {shown:>7} {per_case * 1e6:>11.0f} {timing.peak_mib:>9.0f}"
            )
        table, every = timings["table+json", size], timings["all outputs", size]
        if every.wall / table.wall > ALL_OUTPUTS_TARGET:
            missed.append(f"all outputs at {size}: {every.wall / table.wall:.2f}x table+json (target 1.2x)")
        cpu = (table.cpu - fixed_cpu) / size
        if cpu > CPU_PER_CASE_TARGET:
            missed.append(f"table+json at {size}: {cpu * 1e6:.0f} µs of CPU a case (target 250)")
        auto = timings[AUTO, size]
        lines.append(
            f"{'':<{width}} --jobs auto ({usable_cpus()} workers): table+json {table.wall / auto.wall:.2f}x"
            " as fast as one process"
        )
    if 1000 in sizes and 10000 in sizes:
        small, large = timings["table+json", 1000].peak_mib, timings["table+json", 10000].peak_mib
        lines.append(f"table+json peak memory: {large:.0f} MiB at 10,000, {large / small:.2f}x that at 1,000")
        if large > PEAK_TARGET_MIB:
            missed.append(f"table+json peaks at {large:.0f} MiB at 10,000 (target {PEAK_TARGET_MIB:.0f})")
        if large / small >= PEAK_GROWTH_TARGET:
            missed.append(
                f"table+json memory grows {large / small:.2f}x from 1,000 to 10,000 (target < 1.3x)"
            )
    for name, timing in starts.items():
        if name not in START_TARGETS:
            lines.append(f"{name} (asyncio, click, pydantic and one model; no target): {timing.wall:.3f} s")
            continue
        lines.append(f"{name}: {timing.wall:.3f} s (target under {START_TARGETS[name]} s)")
        if timing.wall >= START_TARGETS[name]:
            missed.append(f"{name} took {timing.wall:.3f} s")
    if missed:
        print("\n".join(lines) + "\n\nmissed:\n  " + "\n  ".join(missed))
        sys.exit(1)
    return "\n".join(lines) + "\n\nevery target met"


if __name__ == "__main__":
    main()
