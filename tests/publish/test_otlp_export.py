"""`--otlp-endpoint URL` (`publish.otlp`): the report sent to an OTLP/HTTP collector as
the otlp format writes it, through a loopback double of a collector's receiver; a
collector that fails is a warning and never changes the gate's exit code."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import FAILING, PASSING, write_fixture
from tests.support.invoke import Runner


class _Receiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.status = 200
        self.received: list[tuple[str, dict[str, str], bytes]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: _Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        self.send_response(self.server.status)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[_Receiver]:
    server = _Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write_fixture(tmp_path / "evals" / "regression", "a_pass.json", PASSING)
    return tmp_path


def test_each_request_of_the_report_reaches_the_collector_with_its_headers(
    cli: Runner, project: Path, collector: _Receiver
) -> None:
    write_fixture(project / "evals" / "regression", "b_fail.json", FAILING)
    env = {"OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=sec%20ret,broken-entry"}
    result = cli("eval", "run", "--otlp-endpoint", collector.url, cwd=project, env=env)
    assert result.code == 1  # the gate's verdict: a case failed
    assert f"Sent otlp to {collector.url}" in result.stderr
    assert [path for path, _, _ in collector.received] == ["/v1/traces"] * 3  # the suite, then each case
    for _, headers, body in collector.received:
        assert headers["content-type"] == "application/json"
        assert headers["x-api-key"] == "sec ret"
        assert "resourceSpans" in json.loads(body)
    names = [
        json.loads(body)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["name"]
        for *_, body in collector.received
    ]
    assert names == [
        "test suite evals/regression",
        "test case evals/regression/a_pass.json",
        "test case evals/regression/b_fail.json",
    ]


def test_a_signals_own_endpoint_is_used_as_given(cli: Runner, project: Path, collector: _Receiver) -> None:
    result = cli("eval", "run", "--otlp-endpoint", f"{collector.url}/custom/v1/traces", cwd=project)
    assert result.code == 0
    assert {path for path, _, _ in collector.received} == {"/custom/v1/traces"}


def test_a_collector_that_answers_an_error_is_a_warning_and_the_gate_stands(
    cli: Runner, project: Path, collector: _Receiver
) -> None:
    collector.status = 503
    env = {"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20very-secret"}
    result = cli("eval", "run", "--otlp-endpoint", collector.url, cwd=project, env=env)
    assert result.code == 0  # the suite passed; the export's failure does not fail it
    assert "warning: the OTLP endpoint" in result.stderr
    assert (
        "answered HTTP 503 after 0 request(s); the rest dropped (the gate's verdict stands)" in result.stderr
    )
    assert len(collector.received) == 1  # stopped at the first refusal
    assert "very-secret" not in result.stdout + result.stderr


def test_a_collector_that_cannot_be_reached_is_a_warning(cli: Runner, project: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = cli("eval", "run", "--otlp-endpoint", f"http://127.0.0.1:{port}", cwd=project)
    assert result.code == 0
    assert "warning: could not send the report to the OTLP endpoint" in result.stderr


@pytest.mark.parametrize("url", ["ftp://collector.example.com", "localhost:4318", "http://"])
def test_an_endpoint_that_is_no_http_url_is_a_usage_error_before_any_case(
    cli: Runner, project: Path, url: str
) -> None:
    result = cli("eval", "run", "--otlp-endpoint", url, cwd=project)
    assert result.code == 2
    assert "expected an http:// or https:// URL" in result.stderr
    assert "a_pass.json" not in result.stdout  # nothing ran
