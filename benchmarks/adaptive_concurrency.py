"""Where the adaptive limit on a live provider's requests settles: a live run of many cases
against a loopback model with a quota (it answers 429, Retry-After 0, to a request over
QUOTA at once), with far more jobs than the quota.

    python benchmarks/adaptive_concurrency.py [--cases 500] [--quota 6] [--jobs 32] [--delay-ms 20]

Prints the cases that failed (the target: none), the refusals, the most requests the model
saw at once, and the limit sampled every 20 ms: its mean over the second half of the run
(the target: near the quota; an AIMD limit saws between half the quota and a little over
it, so its mean sits around three quarters of it) and its range. Nothing leaves loopback.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
from zeroclaw_eval.runner import RunOptions, run_suite


class Quota:
    """What the model saw: the requests open, the most at once, the refusals."""

    def __init__(self, quota: int, delay: float) -> None:
        self.quota, self.delay = quota, delay
        self.lock = threading.Lock()
        self.open = self.most = self.refused = 0


def serve(quota: Quota) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with quota.lock:
                quota.open += 1
                quota.most = max(quota.most, quota.open)
                over = quota.open > quota.quota
                quota.refused += over
            try:
                if over:
                    self._send(429, {"error": {"message": "rate limit"}}, {"Retry-After": "0"})
                    return
                time.sleep(quota.delay)
                reply = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}
                self._send(200, {**reply, "usage": {"prompt_tokens": 1, "completion_tokens": 1}}, {})
            finally:
                with quota.lock:
                    quota.open -= 1

        def _send(self, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def write_suite(folder: Path, cases: int) -> None:
    for number in range(cases):
        fixture = {
            "model_name": f"bench-{number:04d}",
            "turns": [{"user_input": f"Case {number}: say ok."}],
            "expects": {"response_contains": ["ok"]},
        }
        (folder / f"bench_{number:04d}.json").write_text(json.dumps(fixture), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--quota", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=32)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    args = parser.parse_args()
    quota = Quota(args.quota, args.delay_ms / 1000)
    server = serve(quota)
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    provider = ProviderSettings(base_url=url, model="bench", max_retries=100, max_concurrency=64)
    options = RunOptions(mode="live", live=LiveOptions(provider, api_key=""), jobs=args.jobs)
    samples: list[tuple[float, int]] = []
    done = threading.Event()

    def sample() -> None:  # the limit as the run goes, from beside it
        started = time.perf_counter()
        while not done.wait(0.02):
            limit = next(iter(options.limits.values()), None)
            if limit is not None:
                samples.append((time.perf_counter() - started, limit.limit))

    sampler = threading.Thread(target=sample, daemon=True)
    with tempfile.TemporaryDirectory() as folder:
        suite = Path(folder)
        write_suite(suite, args.cases)
        sampler.start()
        started = time.perf_counter()
        try:
            report = run_suite(suite, options)
        finally:
            done.set()
            sampler.join()
            server.shutdown()
    elapsed = time.perf_counter() - started
    counts = report.counts()
    half = [limit for at, limit in samples if at >= elapsed / 2] or [limit for _, limit in samples]
    print(f"{args.cases} cases, quota {args.quota} at once, --jobs {args.jobs}, {args.delay_ms:g} ms a reply")
    print(f"failed or errored: {counts['total'] - counts['passed']} (target: 0); {elapsed:.1f} s")
    print(f"refused (429): {quota.refused}; most at once at the model: {quota.most}")
    if half:
        print(
            f"limit over the second half: mean {statistics.mean(half):.1f}, {min(half)} to {max(half)}"
            f" (quota {args.quota})"
        )


if __name__ == "__main__":
    main()
