"""`zeroclaw_eval.cli.outputs`: several outputs from one run, GitHub behaviour, reporter plugins."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from junitparser import JUnitXml

from tests.support.builders import (
    HOSTILE_ANSWER_FIXTURE,
    TYPO_FIXTURE,
    line_of,
    pipe_reader,
)
from tests.support.ci_log import annotations, command_lines, executed_commands
from tests.support.invoke import invoke
from zeroclaw_eval.report.codec import FORMAT_VERSION


def github_env(repo: Path, **extra: str) -> dict[str, str]:
    summary = repo / "summary.md"
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(repo),
        "GITHUB_STEP_SUMMARY": str(summary),
        **extra,
    }


def test_one_run_writes_table_junit_html_annotations_and_summary(repo: Path) -> None:
    """The issue's acceptance check, in one invocation."""
    result = invoke(
        "eval",
        "run",
        "--format",
        "table",
        "--report",
        "junit=reports/eval.xml",
        "--report",
        "html=reports/eval.html",
        cwd=repo,
        env=github_env(repo),
    )
    assert result.code == 1
    # The table went to stdout, fenced off from the command parser, in colour: GitHub's
    # log renders ANSI colour.
    assert "\x1b[32m✓\x1b[0m a_good.json" in result.stdout
    commands = command_lines(result.stdout)
    token = commands[0].removeprefix("::stop-commands::")
    assert commands[0].startswith("::stop-commands::")
    assert commands[-1] == f"::{token}::"
    assert len(token) == 32
    # JUnit: counts, file and line of the failing fields.
    xml = JUnitXml.fromfile(str(repo / "reports" / "eval.xml"))
    suite = next(iter(xml))
    assert (suite.tests, suite.failures, suite.errors) == (3, 1, 1)
    cases = {case.name: case for case in suite}
    hostile = cases["hostile-answer"]
    assert hostile._elem.get("file") == "evals/regression/b_hostile.json"
    assert hostile._elem.get("line") == str(line_of(HOSTILE_ANSWER_FIXTURE, '"the expected answer"'))
    assert cases["typo"]._elem.get("line") == str(line_of(TYPO_FIXTURE, '"tool_used"'))
    # HTML written.
    assert "response_contains[0]" in (repo / "reports" / "eval.html").read_text(encoding="utf-8")
    # Annotations on stderr, at the failing fields, paths relative to the workspace.
    found = annotations(result.stderr)
    assert {(a.properties["file"], a.properties["line"]) for a in found} == {
        ("evals/regression/c_typo.json", str(line_of(TYPO_FIXTURE, '"tool_used"'))),
        ("evals/regression/b_hostile.json", str(line_of(HOSTILE_ANSWER_FIXTURE, '"the expected answer"'))),
    }
    assert "Wrote junit to reports/eval.xml" in result.stderr
    assert "Wrote html to reports/eval.html" in result.stderr
    # The step summary was appended.
    summary = (repo / "summary.md").read_text(encoding="utf-8")
    assert "zeroclaw eval FAILED" in summary
    assert "evals/regression/b_hostile.json:" in summary


def test_untrusted_text_forges_no_workflow_command(repo: Path) -> None:
    result = invoke("eval", "run", "--format", "github", cwd=repo, env=github_env(repo))
    executed = executed_commands(result.stdout + "\n" + result.stderr)
    # Every command the runner would run is one of ours; the hostile `##[` sits inside one
    # of them, where the runner's `::` parser claims the line before the legacy parser could.
    assert [c.name for c in executed] == ["error", "error"], executed
    assert [c.properties["file"] for c in executed] == [
        "evals/regression/c_typo.json",
        "evals/regression/b_hostile.json",
    ]


def test_annotations_are_emitted_once_and_can_be_turned_off(repo: Path) -> None:
    explicit = invoke("eval", "run", "--format", "github", cwd=repo, env=github_env(repo))
    assert len(annotations(explicit.stdout)) == 2
    assert annotations(explicit.stderr) == []
    (repo / "summary.md").unlink()
    silenced = invoke("eval", "run", "--no-annotations", cwd=repo, env=github_env(repo))
    assert annotations(silenced.stderr) == []
    assert not (repo / "summary.md").exists()
    outside = invoke("eval", "run", cwd=repo)
    assert annotations(outside.stderr) == []


def test_junit_to_stdout_and_to_a_file(repo: Path) -> None:
    to_stdout = invoke("eval", "run", "--format", "junit", cwd=repo)
    assert to_stdout.code == 1
    assert to_stdout.stdout.startswith('<?xml version="1.0" encoding="utf-8"?>')
    to_file = invoke("eval", "run", "--format", "junit", "--output", "out/eval.xml", cwd=repo)
    assert to_file.stdout == ""
    assert (repo / "out" / "eval.xml").read_text(encoding="utf-8").startswith("<?xml")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes (POSIX)")
def test_a_report_to_a_named_pipe_goes_through_it_and_leaves_the_pipe(repo: Path) -> None:
    # As /dev/null or /dev/stdout would: written through, never replaced by a file.
    pipe, read = pipe_reader(repo, "report.pipe")
    result = invoke("eval", "run", "--report", "junit=report.pipe", cwd=repo)
    assert result.code == 1, result.stderr
    assert read().startswith(b'<?xml version="1.0" encoding="utf-8"?>')
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--format", "json", "--report", "junit"], "only one output can go to stdout"),
        (["--report", "junit="], "expected FORMAT=PATH"),
        (["--report", "yaml=x.yaml"], "unknown report format 'yaml'"),
        (
            ["--report", "junit=a.xml", "--report", "html=a.xml"],
            "the junit and html outputs both write to a.xml; give each its own file",
        ),
        (
            ["--report", "out.xml"],
            "--report 'out.xml': expected FORMAT=PATH, for example --report junit=out.xml",
        ),
        (["--report", "reports/eval.html"], "for example --report html=reports/eval.html"),
    ],
)
def test_bad_output_requests_exit_two(repo: Path, args: list[str], words: str) -> None:
    result = invoke("eval", "run", *args, cwd=repo)
    assert result.code == 2
    assert words in result.stderr
    assert result.stdout == ""


def test_third_party_reporter_from_an_entry_point(repo: Path, install_plugin: Callable[..., None]) -> None:
    install_plugin(
        {"tap": "render"},
        """
        def render(report, *, color=False):
            lines = [f"1..{len(report.cases)}"]
            for number, case in enumerate(report.cases, 1):
                lines.append(f"{'ok' if case.passed else 'not ok'} {number} {case.name}")
            return "\\n".join(lines) + "\\n"
        """,
    )
    result = invoke("eval", "run", "--format", "tap", cwd=repo)
    assert result.stdout.splitlines() == [
        "1..3",
        "ok 1 a_good.json",
        "not ok 2 b_hostile.json",
        "not ok 3 c_typo.json",
    ]
    assert result.code == 1


def test_a_reporter_that_raises_writes_nothing_and_loses_nothing(
    repo: Path, install_plugin: Callable[..., None]
) -> None:
    install_plugin(
        {"tap": "render"},
        """
        def render(report, *, color=False):
            raise RuntimeError("boom")
        """,
    )
    (repo / "reports").mkdir()
    (repo / "reports" / "out.tap").write_text("previous", encoding="utf-8")
    result = invoke(
        "eval",
        "run",
        "--report",
        "tap=reports/out.tap",
        "--report",
        "junit=reports/eval.xml",
        cwd=repo,
    )
    assert result.code == 2
    assert (
        "the tap reporter failed, nothing was written to reports/out.tap: RuntimeError: boom" in result.stderr
    )
    assert (repo / "reports" / "out.tap").read_text(encoding="utf-8") == "previous"
    assert (repo / "reports" / "eval.xml").exists()  # the other output is not lost
    assert sorted(p.name for p in (repo / "reports").iterdir()) == ["eval.xml", "out.tap"]


def test_json_report_has_the_documented_top_level_shape(repo: Path) -> None:
    data: dict[str, Any] = json.loads(invoke("eval", "run", "--format", "json", cwd=repo).stdout)
    assert data["format_version"] == FORMAT_VERSION
    assert set(data) == {
        "format_version",
        "tool_version",
        "suite",
        "root",
        "mode",
        "duration_ms",
        "exit_code",
        "counts",
        "deselected",
        "not_run",
        "interrupted",
        "shard",
        "baseline",
        "history",
        "category_totals",
        "details",
        "repeat_rate",
        "trace_id",
        "settings_sha256",
        "cost_usd",
        "judge_cost_usd",
        "diagnostic_checks",
        "max_cost_usd",
        "cases",
    }
    assert data["details"] == "failing"
    assert data["interrupted"] is None
    assert data["shard"] is None
    assert data["baseline"] is None
    assert data["history"] is None
    assert {case["change"] for case in data["cases"]} == {None}
    hostile = next(c for c in data["cases"] if c["name"] == "b_hostile.json")
    assert hostile["source"] == HOSTILE_ANSWER_FIXTURE
    assert set(hostile) == {*_CASE_KEYS, "grades", "record", "error", "problems", "partial", "source"}
    # A passing case is a compact record: its checks, tool calls and tokens, no details.
    good = next(c for c in data["cases"] if c["name"] == "a_good.json")
    assert set(good) == {*_CASE_KEYS, "checks", "tool_calls", "input_tokens", "output_tokens"}
    assert good["checks"] == [
        {"check_id": "exact_tool_calls", "category": "tool", "pointer": "/expects/exact_tool_calls"},
        {
            "check_id": "tool_results_contain[0]",
            "category": "tool",
            "pointer": "/expects/tool_results_contain/0",
        },
    ]
    assert (good["tool_calls"], good["status"]) == (["echo"], "passed")
    whole = json.loads(invoke("eval", "run", "--format", "json", "--details", "all", cwd=repo).stdout)
    assert whole["details"] == "all"
    good = next(c for c in whole["cases"] if c["name"] == "a_good.json")
    assert good["source"] is None
    assert [call["name"] for call in good["record"]["calls"]] == ["echo"]
    assert good["grades"][0]["detail"]


#: The keys of a case's record, compact or whole.
_CASE_KEYS = {
    "name",
    "path",
    "model_name",
    "id",
    "cluster",
    "cost_usd",
    "judge_cost_usd",
    "fixture_sha256",
    "status",
    "change",
    "score",
    "duration_ms",
    "category_totals",
    "repeats",
    "xfail",
}


def test_output_paths_no_file_can_be_at_are_refused_before_the_run(repo: Path) -> None:
    (repo / "adir").mkdir()
    (repo / "afile").write_text("x", encoding="utf-8")
    folder = invoke("eval", "run", "--report", "junit=adir", cwd=repo)
    assert folder.code == 2
    assert "junit output adir is a folder" in folder.stderr
    assert folder.stdout == ""  # refused before anything ran
    under_a_file = invoke("eval", "run", "--report", "html=afile/page.html", cwd=repo)
    assert under_a_file.code == 2
    assert "afile is a file, not a folder" in under_a_file.stderr


def test_a_reporter_raising_an_os_error_is_a_reporter_failure_not_a_write_failure(
    repo: Path, install_plugin: Callable[..., None]
) -> None:
    install_plugin(
        {"tap": "render"},
        """
        def render(report, *, color=False):
            open("/nonexistent/zeroclaw-template.txt")
        """,
    )
    result = invoke("eval", "run", "--report", "tap=out.tap", cwd=repo)
    assert result.code == 2
    assert "the tap reporter failed, nothing was written to out.tap: FileNotFoundError" in result.stderr
    assert "cannot write" not in result.stderr


def test_files_written_are_announced_after_the_annotations(repo: Path) -> None:
    result = invoke("eval", "run", "--report", "junit=reports/eval.xml", cwd=repo, env=github_env(repo))
    lines = result.stderr.splitlines()
    wrote = lines.index("Wrote junit to reports/eval.xml")
    assert [n for n, line in enumerate(lines) if line.startswith("::error ")] == [0, 1]
    assert wrote == len(lines) - 1
