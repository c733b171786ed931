"""`zeroclaw eval render` (`cli/commands/render.py`): a saved report in any format, byte for byte."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.invoke import invoke


@pytest.mark.parametrize("fmt", ["table", "json", "junit", "html", "github"])
def test_render_reproduces_what_the_run_wrote(repo: Path, fmt: str) -> None:
    # With every detail kept, the report holds all that any output shows.
    command = (
        "eval",
        "run",
        "--format",
        fmt,
        "-o",
        f"run.{fmt}",
        "--report",
        "json=report.json",
        "--details",
        "all",
    )
    run = invoke(*command, cwd=repo)
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
        ("[" * 100_000, "is not a JSON report: objects and arrays are nested too deep to parse"),
    ],
)
def test_render_refuses_what_is_not_a_report(tmp_path: Path, content: str | None, words: str) -> None:
    if content is not None:
        (tmp_path / "report.json").write_text(content, encoding="utf-8")
    result = invoke("eval", "render", "report.json", cwd=tmp_path)
    assert result.code == 2
    assert words in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda case: case["grades"][0].update(category=[]), ".grades[0].category: Input should be"),
        (lambda case: case.update(status="passed"), ".status: says passed, but the case's own checks"),
        (lambda case: case["grades"][0]["field"].update(line="7"), ".grades[0].field.line: Input should be"),
        (lambda case: case.update(change="new_failure\n::error::forged"), ".change: Input should be"),
    ],
)
def test_a_crafted_report_under_github_actions_is_a_clean_refusal(
    repo: Path, tmp_path: Path, change: Any, words: str
) -> None:
    # The automatic annotations and step summary used to read it outside the reporter guard.
    assert invoke("eval", "run", "--report", "json=report.json", cwd=repo).code == 1
    data = json.loads((repo / "report.json").read_text(encoding="utf-8"))
    index = next(i for i, case in enumerate(data["cases"]) if case["status"] == "failed")
    change(data["cases"][index])
    (repo / "report.json").write_text(json.dumps(data), encoding="utf-8")
    summary = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    result = invoke("eval", "render", "report.json", cwd=repo, env=env)
    assert result.code == 2, result.stderr
    assert f"report.json is not a zeroclaw-eval JSON report: at cases[{index}]{words}" in result.stderr
    assert "Traceback" not in result.stderr
    assert "::error::forged" not in result.stderr
    assert not summary.exists()


def test_a_fixture_name_of_undecodable_bytes_reaches_every_output(tmp_path: Path) -> None:
    from tests.support.builders import FAILING, write_fixture
    from tests.support.ci_log import annotations

    write_fixture(tmp_path / "suite", os.fsdecode(b"bad\xff.json"), FAILING)
    summary = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_WORKSPACE": str(tmp_path)}
    reports = ["--report", "junit=out.xml", "--report", "html=out.html", "--report", "json=out.json"]
    run = invoke("eval", "run", "--suite", "suite", "--progress", *reports, cwd=tmp_path, env=env)
    assert run.code == 1, run.stderr
    assert "bad\\udcff.json" in run.stdout
    assert "[1/1] ✗ suite/bad\\udcff.json (failed" in run.stderr
    assert [a.properties["file"] for a in annotations(run.stderr)] == ["suite/bad\\udcff.json"]
    assert "`bad\\udcff.json`" in summary.read_text(encoding="utf-8")
    for name in ("out.xml", "out.html", "out.json"):
        assert "bad" in (tmp_path / name).read_text(encoding="utf-8")
    rendered = invoke(
        "eval", "render", "out.json", "--format", "html", "-o", "again.html", cwd=tmp_path, env=env
    )
    assert rendered.code == 0, rendered.stderr
    assert summary.read_text(encoding="utf-8").count("`bad\\udcff.json`") == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_render_refuses_a_named_pipe_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "report.json")
    result = invoke("eval", "render", "report.json", cwd=tmp_path)
    assert result.code == 2
    assert "report.json: it is a named pipe, not a file: give a saved report as a file" in result.stderr
