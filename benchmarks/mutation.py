"""What a mutation run costs next to a plain replay of the same suite: `zeroclaw eval
mutate` against `zeroclaw eval run` on the project's regression suite (evals/regression,
or --suite), both as fresh processes, so start-up counts for both.

    python benchmarks/mutation.py [--suite evals/regression] [--repeat 5]

Prints the best wall time of each, the number of mutants, and the ratio. The target is
a mutation run within 5x a plain replay: mutants are graded in memory, and only the
mutants that change what the tools see are replayed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def best_of(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--suite", default="evals/regression")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    zeroclaw = shutil.which("zeroclaw") or str(Path(sys.executable).parent / "zeroclaw")
    verdict = subprocess.run(
        [zeroclaw, "eval", "mutate", "--suite", args.suite, "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    mutants = json.loads(verdict.stdout)["total"]
    replay = best_of([zeroclaw, "eval", "run", "--suite", args.suite], args.repeat)
    mutate = best_of([zeroclaw, "eval", "mutate", "--suite", args.suite], args.repeat)
    print(f"{args.suite}: {mutants} mutants, best of {args.repeat}")
    print(f"zeroclaw eval run:    {replay:6.3f} s")
    print(f"zeroclaw eval mutate: {mutate:6.3f} s")
    print(f"ratio:                {mutate / replay:6.2f}x (target: at most 5x)")


if __name__ == "__main__":
    main()
