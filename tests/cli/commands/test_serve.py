"""`zeroclaw eval serve` (`zeroclaw_eval.cli.commands.serve`): what it refuses to serve."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.builders import echo_fixture, write_fixture
from tests.support.invoke import invoke
from zeroclaw_eval.serve.server import ReplayServer
from zeroclaw_eval.wire.endpoint import MAX_BODY
from zeroclaw_eval.wire.limits import CONNECTION_TIMEOUT


def test_serve_refuses_a_rejected_fixture_and_bad_faults(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"model_name": "x"}', encoding="utf-8")
    result = invoke("eval", "serve", "--fixture", str(tmp_path / "bad.json"), "--port", "0")
    assert result.code == 2
    assert "fix the fixture before serving it" in result.stderr
    fault = invoke("eval", "serve", "--suite", str(tmp_path), "--fault", "418")
    assert fault.code == 2
    assert "--fault '418'" in fault.stderr


def test_serve_passes_its_bounds_to_the_server_and_refuses_bad_ones(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[ReplayServer] = []

    def serve_forever(server: ReplayServer) -> None:
        started.append(server)
        raise KeyboardInterrupt  # as Ctrl-C would: the command stops the server and returns

    monkeypatch.setattr(ReplayServer, "serve_forever", serve_forever)
    # Never serving, there is no loop to shut down: only the socket to close.
    monkeypatch.setattr(ReplayServer, "stop", lambda server: server._server and server._server.server_close())
    bounds = ("--max-body-bytes", "1000", "--timeout", "0.5", "--max-connections", "3")
    result = invoke("eval", "serve", "--port", "0", *bounds, cwd=project)
    assert result.code == 0, result.stderr
    [server] = started
    assert (server.max_body, server.timeout_secs, server.max_connections) == (1000, 0.5, 3)
    default = invoke("eval", "serve", "--port", "0", cwd=project)
    assert default.code == 0
    assert (started[1].max_body, started[1].timeout_secs) == (MAX_BODY, CONNECTION_TIMEOUT)
    for option, value in (
        ("--max-body-bytes", "0"),
        ("--max-body-bytes", str(MAX_BODY + 1)),
        ("--timeout", "0"),
        ("--timeout", "1e400"),  # no socket timeout can be infinite: each connection failed
        ("--port", "65536"),  # a traceback from bind() before
        ("--port", "-1"),
    ):
        refused = invoke("eval", "serve", "--port", "0", option, value, cwd=project)
        assert refused.code == 2
        assert option in refused.stderr


@pytest.mark.parametrize("which", ["--suite", "--fixture"])
def test_serve_holds_fixtures_to_the_configured_size_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    # Should the limit be missed, the server would start: make that return at once.
    def serve_forever(server: ReplayServer) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ReplayServer, "serve_forever", serve_forever)
    monkeypatch.setattr(ReplayServer, "stop", lambda server: server._server and server._server.server_close())
    (tmp_path / "zeroclaw.toml").write_text("[eval]\nmax_fixture_bytes = 200\n", encoding="utf-8")
    path = write_fixture(
        tmp_path / "evals" / "regression", "big.json", echo_fixture({"tools_used": ["echo"]})
    )
    target = str(path) if which == "--fixture" else "evals/regression"
    result = invoke("eval", "serve", which, target, "--port", "0", cwd=tmp_path)
    assert result.code == 2
    assert "[eval].max_fixture_bytes" in result.stderr
