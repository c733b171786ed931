"""A live run's requests within the provider's adaptive limit (`backends.concurrency`),
against a loopback model with a quota: it answers 429 to a fourth request at once. With
`--jobs 8` the run grows to the quota, halves on its refusals, never sends what a fixed
eight would, passes every case, and its progress says the concurrency."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.support.builders import write_fixture
from tests.support.invoke import Runner

QUOTA = 3  # requests the loopback model serves at once; one more is answered 429
ENV = {"ADAPT_KEY": "sk-test"}


@dataclass
class Seen:
    in_flight: int = 0
    most: int = 0
    refused: int = 0
    served: int = 0


@contextmanager
def quota_model(headers: dict[str, str] | None = None) -> Iterator[tuple[str, Seen]]:
    """The loopback model with its quota; `headers` go with each answer it serves."""
    seen = Seen()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                seen.in_flight += 1
                seen.most = max(seen.most, seen.in_flight)
                over = seen.in_flight > QUOTA
                seen.refused += over
            try:
                if over:
                    self._send(429, {"error": {"message": "rate limit"}}, {"Retry-After": "0"})
                    return
                time.sleep(0.05)  # long enough for the cases running at once to overlap
                reply = {"choices": [{"message": {"role": "assistant", "content": "hi"}}]}
                reply["usage"] = {"prompt_tokens": 1, "completion_tokens": 1}
                self._send(200, reply, headers or {})
                with lock:
                    seen.served += 1
            finally:
                with lock:
                    seen.in_flight -= 1

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
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def _project(folder: Path, url: str, cases: int, max_concurrency: int | None = None) -> None:
    for number in range(cases):
        fixture = {
            "model_name": f"hi-{number}",
            "turns": [{"user_input": "Say hi"}],
            "expects": {"response_contains": ["hi"]},
        }
        write_fixture(folder / "suite", f"hi_{number:02}.json", fixture)
    bound = f"max_concurrency = {max_concurrency}\n" if max_concurrency is not None else ""
    (folder / "zeroclaw.toml").write_text(
        '[eval]\nmode = "live"\nlive_provider = "main"\nsuite_dir = "suite"\n'
        f'[providers.models.main]\nbase_url = "{url}"\nmodel = "m"\napi_key_env = "ADAPT_KEY"\n'
        f"max_retries = 30\n{bound}",
        encoding="utf-8",
    )


def test_a_run_adapts_to_the_providers_quota(cli: Runner, tmp_path: Path) -> None:
    with quota_model() as (url, seen):
        _project(tmp_path, url, cases=24)
        result = cli("eval", "run", "--jobs", "8", "--progress", cwd=tmp_path, env=ENV)
    assert result.code == 0, result.stdout + result.stderr
    assert seen.served == 24
    # It grew past its start of two, to the quota and one over (the refusal that halves it),
    # and never near the eight a fixed --jobs 8 would have sent at once.
    assert 3 <= seen.most <= QUOTA + 2, seen
    assert seen.refused >= 1, seen
    assert "concurrency " in result.stderr  # each progress line says the limit, as it adapts
    assert "/16" in result.stderr


def test_max_concurrency_bounds_the_requests_at_once(cli: Runner, tmp_path: Path) -> None:
    with quota_model() as (url, seen):
        _project(tmp_path, url, cases=12, max_concurrency=2)
        result = cli("eval", "run", "--jobs", "8", cwd=tmp_path, env=ENV)
    assert result.code == 0, result.stdout + result.stderr
    assert seen.most <= 2, seen
    assert seen.refused == 0, seen


def test_a_quota_nearly_spent_by_the_headers_halves_the_limit(cli: Runner, tmp_path: Path) -> None:
    # Every answer says 1 request of 100 is left: no 429 ever comes, yet the limit halves
    # on each generation's answers and never grows past its start.
    spent = {"x-ratelimit-remaining-requests": "1", "x-ratelimit-limit-requests": "100"}
    with quota_model(spent) as (url, seen):
        _project(tmp_path, url, cases=16)
        result = cli("eval", "run", "--jobs", "8", cwd=tmp_path, env=ENV)
    assert result.code == 0, result.stdout + result.stderr
    assert seen.refused == 0, seen
    assert seen.most <= 2, seen
