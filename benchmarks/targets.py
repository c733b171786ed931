"""zeroclaw-eval's speed targets, checked against the floor on the same cases, in one run.

    python benchmarks/targets.py [--sizes 1000,10000] [--repeat 3] [--zeroclaw PATH]

For each size, the suite of benchmarks/peer_cases.py is generated from `--seed`, and
round after round (so that load from elsewhere falls on all alike) these run as fresh
processes, timed around the process with their peak resident memory (benchmarks/peers.py
measures them the same way):

- floor: benchmarks/peer_floor.py, json-load, a plain loop, every check verified;
- table+json: `zeroclaw eval run --suite DIR --report json=FILE` (the table on stdout);
- all outputs: the same plus `--report junit=... --report html=... --report github=...`.

Then `zeroclaw --help` and a 3-case run, each the median of `--repeat` starts. The
package's bytecode is compiled first, as pip compiles an installed wheel's.
`--before CMD` adds the same two zeroclaw runs with another zeroclaw command (the code
before a change, say) to every round, so that before and after are measured together;
`--jobs N` adds them with `--jobs N` (worker processes). The targets are checked on the
runs without either.

Prints the medians, each run's ratio to the floor and the target it must meet: table+json
at most 3x the floor at 1,000 cases and 2.5x at 10,000; all outputs at most 4x at 10,000;
each case past 1,000 costing at most 1.5x what each of the first 1,000 cost beyond a
3-case run's (linear); peak memory at 10,000 within 3x of that at 1,000 (roughly flat,
for ten times the cases); `--help` and the 3-case run under 0.25 s. Exits 1 when a
target is missed. Ratios are what to compare between machines; a busy machine makes
them noisy, so say so when quoting them.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from peer_cases import write_suite
from peers import compile_bytecode, measured

HERE = Path(__file__).resolve().parent
#: (what runs, cases) -> the most it may take, as a ratio to the floor on the same cases.
RATIO_TARGETS = {("table+json", 1000): 3.0, ("table+json", 10000): 2.5, ("all outputs", 10000): 4.0}
#: Seconds `zeroclaw --help` and a 3-case run may take to start and finish.
START_TARGET = 0.25


def commands(zeroclaw: str, suite: Path, out: Path, before: str | None, jobs: int) -> dict[str, list[str]]:
    found = {"floor": [sys.executable, str(HERE / "peer_floor.py"), str(suite), str(out / "verdict.json")]}
    variants = [("", zeroclaw, []), ("before: ", before, [])]
    if jobs > 1:
        variants.append((f"-j {jobs}: ", zeroclaw, ["--jobs", str(jobs)]))
    for label, command, extra in variants:
        if command is None:
            continue
        run = [command, "eval", "run", "--suite", str(suite), "--report", f"json={out / 'eval.json'}", *extra]
        every = ["--report", f"junit={out / 'eval.xml'}", "--report", f"html={out / 'eval.html'}"]
        found[f"{label}table+json"] = run
        found[f"{label}all outputs"] = [*run, *every, "--report", f"github={out / 'github.txt'}"]
    return found


def median_run(command: list[str], repeat: int, scratch: Path) -> tuple[float, float]:
    """Median wall seconds and peak MiB of `repeat` runs of `command`."""
    walls, peaks = [], []
    for _ in range(repeat):
        code, wall, kib = measured(command, 3600.0, scratch / "stderr.txt")
        if code not in (0, 1):  # 1: the suite's broken cases failed, as they must
            errors = (scratch / "stderr.txt").read_text(encoding="utf-8", errors="replace")
            sys.exit(f"{' '.join(command[:3])} ... exited {code}: {errors[-500:]}")
        walls.append(wall)
        peaks.append(kib / 1024)
    return statistics.median(walls), statistics.median(peaks)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated case counts [1000,10000]")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each per size [3]")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated suites [0]")
    parser.add_argument("--zeroclaw", help="the zeroclaw command [next to this Python, else on PATH]")
    parser.add_argument("--before", help="another zeroclaw command to measure alongside, for comparison")
    parser.add_argument(
        "--jobs", type=int, default=0, help="also measure the zeroclaw runs with --jobs N (N > 1) [no]"
    )
    args = parser.parse_args()
    zeroclaw = args.zeroclaw or shutil.which("zeroclaw", path=str(Path(sys.executable).parent))
    zeroclaw = zeroclaw or shutil.which("zeroclaw")
    if zeroclaw is None:
        sys.exit("no zeroclaw command: pip install -e . or give --zeroclaw")
    sizes = [int(size.replace("_", "")) for size in args.sizes.split(",")]
    print(compile_bytecode(zeroclaw))  # as an installed copy starts; compile --before's code yourself
    print(f"machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    print(f"median of {args.repeat}; seed {args.seed}, 1% of the cases broken on purpose\n")
    rows: list[tuple[str, int, float, float, float]] = []
    missed: list[str] = []
    per_case: dict[tuple[str, int], tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="zeroclaw-targets-") as folder:
        work = Path(folder)
        for size in sizes:
            suite = work / f"suite_{size}"
            suite.mkdir()
            write_suite(suite, size, args.seed, 0.01)
            out = work / f"out_{size}"
            out.mkdir()
            runs = commands(zeroclaw, suite, out, args.before, args.jobs)
            results: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in runs}
            for _ in range(args.repeat):  # round by round, every command once
                for name, command in runs.items():
                    wall, peak = median_run(command, 1, out)
                    results[name][0].append(wall)
                    results[name][1].append(peak)
            floor = statistics.median(results["floor"][0])
            for name, (walls, peaks) in results.items():
                wall, peak = statistics.median(walls), statistics.median(peaks)
                rows.append((name, size, wall, wall / floor, peak))
                per_case[name, size] = (wall / size, peak)
            shutil.rmtree(suite)
        three = work / "suite_3"
        three.mkdir()
        write_suite(three, 3, args.seed, 0.0)
        starts = {
            "zeroclaw --help": median_run([zeroclaw, "--help"], args.repeat, work)[0],
            "3-case run": median_run([zeroclaw, "eval", "run", "--suite", str(three)], args.repeat, work)[0],
        }
        if args.before:
            print(
                f"before: --help {median_run([args.before, '--help'], args.repeat, work)[0]:.2f} s", end=", "
            )
            three_before = median_run([args.before, "eval", "run", "--suite", str(three)], args.repeat, work)[
                0
            ]
            print(f"3-case run {three_before:.2f} s")
    width = max(len(name) for name, *_ in rows)
    print(f"{'what runs':<{width}} {'cases':>6} {'wall s':>8} {'x floor':>8} {'target':>7} {'peak MiB':>9}")
    for name, size, wall, ratio, peak in rows:
        target = RATIO_TARGETS.get((name, size))
        shown = f"{target:.1f}x" if target else ""
        if target and ratio > target:
            missed.append(f"{name} at {size} cases: {ratio:.1f}x the floor (target {target:.1f}x)")
        print(f"{name:<{width}} {size:>6} {wall:>8.2f} {ratio:>7.1f}x {shown:>7} {peak:>9.0f}")
    if 1000 in sizes and 10000 in sizes:
        for name in ("table+json", "all outputs"):
            (small, small_peak), (large, large_peak) = per_case[name, 1000], per_case[name, 10000]
            # What a case adds, with the fixed cost (start-up, imports) taken out.
            first = (small * 1000 - starts["3-case run"]) / 997
            slower, bigger = (large * 10000 - small * 1000) / 9000 / first, large_peak / small_peak
            print(f"{name}: a case past 1k costs {slower:.2f}x one of the first; memory 10k/1k {bigger:.2f}")
            if slower > 1.5:
                missed.append(f"{name}: not linear, a case takes {slower:.2f}x as long at 10,000")
            if bigger > 3:
                missed.append(f"{name}: peak memory grows {bigger:.1f}x from 1,000 to 10,000")
    for name, wall in starts.items():
        print(f"{name}: {wall:.2f} s (target under {START_TARGET} s)")
        if wall >= START_TARGET:
            missed.append(f"{name} took {wall:.2f} s")
    if missed:
        print("\nmissed:\n  " + "\n  ".join(missed))
        sys.exit(1)
    print("\nevery target met")


if __name__ == "__main__":
    main()
