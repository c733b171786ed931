"""`zeroclaw eval serve` (`zeroclaw_eval.cli.serve`): what it refuses to serve."""

from __future__ import annotations

from pathlib import Path

from tests.invoke import invoke


def test_serve_refuses_a_rejected_fixture_and_bad_faults(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"model_name": "x"}', encoding="utf-8")
    result = invoke("eval", "serve", "--fixture", str(tmp_path / "bad.json"), "--port", "0")
    assert result.code == 2
    assert "fix the fixture before serving it" in result.stderr
    fault = invoke("eval", "serve", "--suite", str(tmp_path), "--fault", "418")
    assert fault.code == 2
    assert "--fault '418'" in fault.stderr
