"""zeroclaw-eval's cost a case in instructions: a measure that a busy machine cannot skew.

    python benchmarks/instructions.py [--cases 1000] [--seed 0] [--zeroclaw PATH] [--before CMD]

Wall-clock and CPU time on a shared machine swing by a third from one hour to the next
(other tenants take the CPU), too much to see a change of a few per cent. The number of
instructions a run executes barely moves: this script counts them with valgrind's
callgrind (`apt install valgrind`), runs each command once on each of two suites (3
cases and `--cases`; a run under callgrind is ~50x slower: about 30 s for 1,000 cases)
and prints, for table+json (`--jobs 1`, the
single-process command of benchmarks/targets.py), for the floors of
benchmarks/peer_floor.py and for the floor on zeroclaw-eval's stack
(benchmarks/stack_floor.py):

- instructions a case: the run on `--cases` cases less the same command on 3 cases
  (start-up and imports are no case's cost), divided by the cases between them, for
  every command alike;
- the ratio of zeroclaw-eval's count a case to floor+report's.

With `--before CMD` another zeroclaw command (the code before a change, say, from a
`git worktree`, run as `PYTHONPATH=WORKTREE python -m zeroclaw_eval` from a wrapper
script) is counted too, and the change between them printed. Every command runs in a
scratch folder: from the project's own folder, such a wrapper would import the
project's package instead, which `-m` puts ahead of PYTHONPATH. Python's string hashing is
seeded (`PYTHONHASHSEED=0`): two runs of one command then differ by about 0.01%, and the
same code run as two commands (a console script, a wrapper) by up to 0.2% a case, so a
change smaller than that is noise.

Instructions are not time: a syscall or a cache miss costs more than its instructions
say. Use this to compare two versions of the code; quote benchmarks/targets.py for
seconds.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from peer_cases import write_suite
from peers import absolute_command, compile_bytecode

HERE = Path(__file__).resolve().parent
#: callgrind's summary line of a process, one per process it followed.
_COLLECTED = re.compile(r"^==\d+== Collected : (\d+)$", re.M)


def counted(command: list[str], scratch: Path) -> int:
    """Instructions `command` executed, over every process it ran (a wrapper script that
    execs Python included)."""
    valgrind = [
        "valgrind",
        "--tool=callgrind",
        "--trace-children=yes",
        f"--callgrind-out-file={scratch / 'callgrind.%p'}",
    ]
    environment = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [*valgrind, *command], env=environment, capture_output=True, text=True, check=False, cwd=scratch
    )
    if done.returncode not in (0, 1):  # 1: the suite's broken cases failed, as they must
        sys.exit(f"{' '.join(command[:3])} ... exited {done.returncode}: {done.stderr[-800:]}")
    found = [int(count) for count in _COLLECTED.findall(done.stderr)]
    if not found:
        sys.exit(f"callgrind counted nothing for {' '.join(command[:3])} ...: {done.stderr[-800:]}")
    for leftover in scratch.glob("callgrind.*"):
        leftover.unlink()
    return sum(found)


def per_case(command: Callable[[Path], list[str]], suites: dict[int, Path], scratch: Path) -> float:
    """Instructions a case of `command(suite)`: the large suite's count less the 3-case
    suite's, divided by the cases between them."""
    (small, few), (large, many) = sorted(suites.items())
    spent = counted(command(many), scratch) - counted(command(few), scratch)
    return spent / (large - small)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=int, default=1000, help="cases of the counted suite [1000]")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated suites [0]")
    parser.add_argument("--zeroclaw", help="the zeroclaw command [next to this Python, else on PATH]")
    parser.add_argument("--before", help="another zeroclaw command to count alongside, for comparison")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: apt install valgrind (it counts the instructions)")
    if args.cases <= 3:
        sys.exit("--cases must be more than 3: the count a case is taken past a 3-case run")
    zeroclaw = args.zeroclaw or shutil.which("zeroclaw", path=str(Path(sys.executable).parent))
    zeroclaw = zeroclaw or shutil.which("zeroclaw")
    if zeroclaw is None:
        sys.exit("no zeroclaw command: pip install -e . or give --zeroclaw")
    # Every command runs in a scratch folder (see `peers.absolute_command`).
    zeroclaw = absolute_command(zeroclaw)
    args.before = args.before and absolute_command(args.before)
    print(compile_bytecode(zeroclaw))  # as an installed copy starts; compile --before's code yourself
    with tempfile.TemporaryDirectory(prefix="zeroclaw-instructions-") as folder:
        work = Path(folder)
        suites = {}
        for size in (3, args.cases):
            suites[size] = work / f"suite_{size}"
            suites[size].mkdir()
            write_suite(suites[size], size, args.seed, 0.01)
        floor = [sys.executable, str(HERE / "peer_floor.py")]
        stack = [sys.executable, str(HERE / "stack_floor.py")]
        verdict, floor_report = str(work / "verdict.json"), str(work / "floor.json")

        def table_json(zeroclaw: str) -> Callable[[Path], list[str]]:
            # `--jobs 1`: one process, as the floor is (see benchmarks/targets.py).
            report = f"json={work / 'eval.json'}"
            return lambda suite: [
                zeroclaw,
                "eval",
                "run",
                "--suite",
                str(suite),
                "--report",
                report,
                "--jobs",
                "1",
            ]

        runs: dict[str, Callable[[Path], list[str]]] = {
            "bare floor": lambda suite: [*floor, str(suite), verdict],
            "floor+report": lambda suite: [*floor, str(suite), verdict, "--report", floor_report],
            "floor on the stack": lambda suite: [*stack, str(suite), verdict, "--report", floor_report],
            "table+json": table_json(zeroclaw),
        }
        if args.before:
            runs["before: table+json"] = table_json(args.before)
        counts = {name: per_case(command, suites, work) for name, command in runs.items()}
    print(table(counts, args.cases))


def table(counts: dict[str, float], cases: int) -> str:
    """Instructions a case of each command, and its ratio to floor+report's."""
    width = max(len(name) for name in counts)
    floor = counts["floor+report"]
    lines = [f"instructions a case, {cases} cases past a 3-case run (PYTHONHASHSEED=0)"]
    lines.append(f"{'what runs':<{width}} {'a case':>12} {'x f+r':>7}")
    for name, count in counts.items():
        lines.append(f"{name:<{width}} {count:>12,.0f} {count / floor:>6.2f}x")
    if "before: table+json" in counts:
        now, before = counts["table+json"], counts["before: table+json"]
        lines.append(f"table+json against before: {100 * (now - before) / before:+.1f}% a case")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
