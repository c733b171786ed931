"""How much --jobs buys in live mode: 20 cases against a replay server that delays every
response by 200 ms, run serially and with 8 jobs.

    python benchmarks/live_jobs.py [--cases 20] [--delay-ms 200] [--jobs 8]

Prints both wall times and their ratio; the target is well under half the serial time.
It starts `zeroclaw eval serve`'s server in-process on loopback and sends nothing
anywhere else.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from zeroclaw_eval.collect.suite import discover
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
from zeroclaw_eval.runner import RunOptions, run_suite
from zeroclaw_eval.serve.faults import Fault
from zeroclaw_eval.serve.routing import load_cases
from zeroclaw_eval.serve.server import ReplayServer


def write_suite(folder: Path, cases: int) -> None:
    for number in range(cases):
        fixture = {
            "model_name": f"bench-{number:03d}",
            "turns": [
                {
                    "user_input": f"Benchmark case {number}: say ok.",
                    "steps": [{"response": {"type": "text", "content": f"ok {number}"}}],
                }
            ],
            "expects": {"response_contains": [f"ok {number}"]},
        }
        (folder / f"bench_{number:03d}.json").write_text(json.dumps(fixture), encoding="utf-8")


def timed(suite: Path, url: str, jobs: int) -> float:
    live = LiveOptions(ProviderSettings(base_url=url, model="bench"), api_key="")
    started = time.perf_counter()
    report = run_suite(suite, RunOptions(mode="live", live=live, jobs=jobs))
    elapsed = time.perf_counter() - started
    if report.exit_code() != 0:
        raise SystemExit(f"the benchmark suite did not pass: {report.counts()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--delay-ms", type=float, default=200.0)
    parser.add_argument("--jobs", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        suite = Path(folder)
        write_suite(suite, args.cases)
        server = ReplayServer(load_cases(discover(suite)), [Fault("delay", args.delay_ms)]).start()
        try:
            serial = timed(suite, server.url, 1)
            parallel = timed(suite, server.url, args.jobs)
        finally:
            server.stop()
    print(f"{args.cases} cases, {args.delay_ms:g} ms per response")
    print(f"serial:   {serial:6.2f} s")
    print(f"--jobs {args.jobs}: {parallel:6.2f} s  ({parallel / serial:.0%} of serial)")


if __name__ == "__main__":
    main()
