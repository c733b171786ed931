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


@pytest.mark.parametrize(
    ("pattern", "value", "words"),
    [
        (r'"input_tokens": \d+', '"input_tokens": ' + "9" * 4300, ".input_tokens: Input should be less than"),
        (r'"input_tokens": \d+', '"input_tokens": ' + "9" * 5000, "a number of 5000 digits"),
        (
            r'"input_tokens": \d+',
            '"input_tokens": Infinity',
            ".input_tokens: Input should be a valid integer",
        ),
        (r'"duration_ms": [0-9.e-]+', '"duration_ms": 1e400', "duration_ms: Input should be a finite number"),
        (r'"duration_ms": [0-9.e-]+', '"duration_ms": NaN', "duration_ms: Input should be a finite number"),
        (r'"passed": \d+', '"passed": 9007199254740992', "counts.passed: Input should be less than"),
    ],
)
@pytest.mark.parametrize("command", ["render", "compare"])
def test_a_saved_reports_numbers_are_bounded_as_it_is_read(
    repo: Path, pattern: str, value: str, words: str, command: str
) -> None:
    # A count of 4,300 digits was printed whole into the comment, and Infinity as `inf`.
    import re

    assert invoke("eval", "run", "--report", "json=report.json", "--details", "all", cwd=repo).code == 1
    text = (repo / "report.json").read_text(encoding="utf-8")
    (repo / "edited.json").write_text(re.sub(pattern, value, text, count=1), encoding="utf-8")
    args = ["edited.json"] if command == "render" else ["report.json", "edited.json"]
    result = invoke("eval", command, *args, cwd=repo)
    assert result.code == 2, result.stdout[-500:]
    assert "edited.json is not a" in result.stderr
    assert words in result.stderr
    assert "Traceback" not in result.stderr
    assert "set_int_max_str_digits" not in result.stderr
