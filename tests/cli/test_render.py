"""`zeroclaw eval render` (`zeroclaw_eval.cli.render`): a saved report in any format, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.invoke import invoke


@pytest.mark.parametrize("fmt", ["table", "json", "junit", "html", "github"])
def test_render_reproduces_what_the_run_wrote(repo: Path, fmt: str) -> None:
    run = invoke("eval", "run", "--format", fmt, "-o", f"run.{fmt}", "--report", "json=report.json", cwd=repo)
    assert run.code == 1
    rendered = invoke("eval", "render", "report.json", "--format", fmt, "-o", f"render.{fmt}", cwd=repo)
    assert rendered.code == 0, rendered.stderr
    assert (repo / f"render.{fmt}").read_bytes() == (repo / f"run.{fmt}").read_bytes()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "cannot read"),
        ("{not json", "is not a JSON report"),
        ('{"format_version": 999, "cases": []}', "unsupported report format_version 999"),
        ("[1, 2]", "is not a zeroclaw-eval JSON report"),
    ],
)
def test_render_refuses_what_is_not_a_report(tmp_path: Path, content: str | None, words: str) -> None:
    if content is not None:
        (tmp_path / "report.json").write_text(content, encoding="utf-8")
    result = invoke("eval", "render", "report.json", cwd=tmp_path)
    assert result.code == 2
    assert words in result.stderr
