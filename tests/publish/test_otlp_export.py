"""`--otlp-endpoint URL` (`publish.otlp`): the report sent to an OTLP/HTTP collector as
the otlp format writes it, through a loopback double of a collector's receiver; a
collector that fails is a warning and never changes the gate's exit code."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import FAILING, PASSING, write_fixture
from tests.support.invoke import Runner
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.publish import otlp
from zeroclaw_eval.publish.otlp import export, shown, traces_url


class _Receiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.status = 200
        self.delay = 0.0
        self.received: list[tuple[str, dict[str, str], bytes]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: _Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        time.sleep(self.server.delay)
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
    # Every request went; the entry that is no header is named, and left out.
    assert "entries left out (not name=value HTTP can carry): broken-entry" in result.stderr
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


def test_a_header_value_http_cannot_carry_is_left_out_by_name_never_quoted(
    cli: Runner, project: Path, collector: _Receiver
) -> None:
    env = {"OTEL_EXPORTER_OTLP_HEADERS": "api-key=SUPER%0Ainjected,x-team=caf%C3%A9,x-ok=fine"}
    result = cli("eval", "run", "--otlp-endpoint", collector.url, cwd=project, env=env)
    assert result.code == 0  # no traceback: the export goes on without them
    assert "entries left out (not name=value HTTP can carry): api-key, x-team" in result.stderr
    assert "SUPER" not in result.stderr + result.stdout
    assert [headers.get("x-ok") for _, headers, _ in collector.received] == ["fine", "fine"]
    assert all("api-key" not in headers for _, headers, _ in collector.received)


def test_a_key_in_the_endpoints_url_is_never_printed(
    cli: Runner, project: Path, collector: _Receiver
) -> None:
    collector.status = 500
    url = collector.url.replace("http://", "http://user:TOKEN-1@") + "/base?api_key=TOKEN-2"
    result = cli("eval", "run", "--otlp-endpoint", url, cwd=project)
    assert result.code == 0
    assert "answered HTTP 500" in result.stderr
    assert "TOKEN" not in result.stdout + result.stderr
    assert collector.received[0][0] == "/base/v1/traces?api_key=TOKEN-2"  # the query kept, after the path


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:abc"])
def test_an_endpoint_no_client_can_reach_is_a_usage_error_never_a_traceback(
    cli: Runner, project: Path, url: str
) -> None:
    result = cli("eval", "run", "--otlp-endpoint", url, cwd=project)
    assert result.code == 2
    assert "expected an http:// or https:// URL" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_collector_that_trickles_its_answer_is_left_after_the_budget(
    cli: Runner, project: Path, collector: _Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zeroclaw_eval.publish import otlp

    # The budget, shortened here as the installed command's is not: the export must not
    # outlast it, whatever the collector does (this one answers after 5 s).
    monkeypatch.setattr(otlp, "BUDGET_SECS", 0.5)
    collector.delay = 5.0
    started = time.monotonic()
    warning = otlp.export(iter(['{"resourceSpans": []}\n']), collector.url)
    assert time.monotonic() - started < 3
    assert warning is not None
    assert "took over 0.5 s; the rest dropped" in warning


REFUSED = ": expected an http:// or https:// URL, e.g. http://localhost:4318 (a collector's OTLP/HTTP port)"


@pytest.mark.parametrize(
    ("endpoint", "url"),
    [
        ("http://collector.example.com:4318", "http://collector.example.com:4318/v1/traces"),
        ("https://collector.example.com/base/", "https://collector.example.com/base/v1/traces"),
        ("https://collector.example.com//otel//", "https://collector.example.com//otel/v1/traces"),
        ("http://collector.example.com/v1/traces/", "http://collector.example.com/v1/traces/"),
        ("HTTPS://collector.example.com/v1/traces?x=1#part", "https://collector.example.com/v1/traces?x=1"),
    ],
)
def test_an_endpoint_is_a_collectors_base_or_a_signals_own_url(endpoint: str, url: str) -> None:
    assert traces_url(endpoint) == url


@pytest.mark.parametrize(
    "endpoint", ["ftp://collector.example.com", "http://", "collector:4318", "http://h\n/x"]
)
def test_an_endpoint_that_is_no_http_url_is_refused_saying_what_is_expected(endpoint: str) -> None:
    with pytest.raises(UsageError) as refused:
        traces_url(endpoint)
    assert str(refused.value) == f"--otlp-endpoint {shown(endpoint)!r}{REFUSED}"


@pytest.mark.parametrize(
    ("url", "quoted"),
    [
        (
            "https://user:key@collector.example.com:8443/v1/traces?token=abc#f",
            "https://collector.example.com:8443/v1/traces",
        ),
        ("http://collector.example.com/v1/traces", "http://collector.example.com/v1/traces"),
        ("http://[::1/v1/traces", "(an unreadable URL)"),
    ],
)
def test_a_url_is_quoted_without_its_user_part_query_or_fragment(url: str, quoted: str) -> None:
    assert shown(url) == quoted


def test_the_headers_variable_is_read_entry_by_entry_and_what_http_cannot_carry_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    entries = "a=1,, b = x%20y ,bad,c\nd=1,=v,ok=é,api-key=s3cr3t"
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", entries)
    found, skipped = otlp.headers()
    assert found == {"Content-Type": "application/json", "a": "1", "b": "x y", "api-key": "s3cr3t"}
    assert skipped == ["bad", "entry 5", "entry 6", "ok"]  # numbered from 1, empty ones counted


def test_a_collector_refusing_a_request_stops_the_export_saying_how_far_it_got(
    collector: _Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "bad,a=1")
    collector.status = 307  # a redirect is not followed: it is an answer that takes nothing
    said = export(['{"n": 1}', '{"n": 2}'], collector.url)
    assert said == (
        "OTEL_EXPORTER_OTLP_HEADERS entries left out (not name=value HTTP can carry): bad; "
        f"the OTLP endpoint {collector.url}/v1/traces answered HTTP 307 after 0 request(s); the rest dropped"
    )
    assert [path for path, _, _ in collector.received] == ["/v1/traces"]


def test_every_request_is_sent_and_text_utf8_cannot_carry_is_escaped(collector: _Receiver) -> None:
    assert export(['{"n": 1}', '{"s": "\ud800"}', '{"n": 3}'], collector.url) is None
    assert [body for _, _, body in collector.received] == [b'{"n": 1}', b'{"s": "\\ud800"}', b'{"n": 3}']
