"""What a replay run costs next to the least it could: 1,000 cases through
`zeroclaw eval run`, against a bare script that only reads each fixture with `json` and
loops over its turns and steps. Both run as fresh processes, so start-up counts.

    python benchmarks/replay_suite.py [--cases 1000] [--repeat 5]

Prints the best wall time of each and their ratio. The cases are copies of the project's
own regression suite (evals/regression), written to a temporary folder.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BARE = """
import json, sys, pathlib
steps = 0
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    fixture = json.loads(path.read_bytes())
    for turn in fixture["turns"]:
        for step in turn.get("steps", ()):
            steps += 1
print(steps)
"""


def best_of(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sources = sorted((ROOT / "evals" / "regression").glob("*.json"))
    zeroclaw = shutil.which("zeroclaw") or str(Path(sys.executable).parent / "zeroclaw")
    with tempfile.TemporaryDirectory() as folder:
        suite = Path(folder)
        for number in range(args.cases):
            source = sources[number % len(sources)]
            shutil.copy(source, suite / f"{number:05d}_{source.name}")
        bare = best_of([sys.executable, "-c", BARE, str(suite)], args.repeat)
        run = best_of([zeroclaw, "eval", "run", "--suite", str(suite)], args.repeat)
    print(f"{args.cases} cases, best of {args.repeat}")
    print(f"bare json loop:    {bare:6.3f} s")
    print(f"zeroclaw eval run: {run:6.3f} s  ({run / bare:.1f}x)")


if __name__ == "__main__":
    main()
