"""Fuzzing the reporters: a report whose every text is hostile (workflow commands, markup,
XML-invalid characters, lone surrogates, terminal escapes, 50,000 newlines) renders in
every format, through the API and through `zeroclaw eval render` under GitHub Actions,
without a traceback and without letting that text act: no workflow command, no markup,
well-formed XML."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given

from tests.fuzz.budget import share
from tests.fuzz.hostile import hostile_text
from tests.fuzz.outputs import (
    EVERY_FILE_OUTPUT,
    check_annotations,
    check_log,
    check_no_terminal_escapes,
    check_outputs,
    under_actions,
)
from tests.fuzz.reports import REPORTS
from tests.support.ci_log import executed_commands
from tests.support.invoke import invoke
from zeroclaw_eval import SuiteReport, render_report, reporter_names
from zeroclaw_eval.reporters.github import SUMMARY_LIMIT, step_summary
from zeroclaw_eval.reporters.safety import shown_lines

FORMATS = ["table", "json", "junit", "html", "github"]


def test_the_fuzzed_formats_are_every_built_in_one() -> None:
    assert set(FORMATS) <= set(reporter_names())


@share(0.3)
@given(report=REPORTS)
def test_every_reporter_renders_a_hostile_report_harmlessly(report: SuiteReport) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for fmt in FORMATS:
            render_report(report, fmt, str(folder / f"out.{fmt}"))
        check_outputs(folder)
        check_no_terminal_escapes((folder / "out.table").read_bytes().decode("utf-8"))
        summary = step_summary(report)
        assert len(summary.encode("utf-8")) <= SUMMARY_LIMIT


@share(0.3)
@given(report=REPORTS)
def test_render_under_github_actions_keeps_the_log_safe(report: SuiteReport) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        saved = folder / "report.json"
        render_report(report, "json", str(saved))
        summary = folder / "summary.md"
        result = invoke(
            "eval",
            "render",
            str(saved),
            "--no-color",
            *EVERY_FILE_OUTPUT,
            cwd=folder,
            env=under_actions(folder, summary),
        )
        assert result.code == 0, result.stderr[-2000:]
        check_log(result.stdout)
        check_no_terminal_escapes(result.stdout)
        check_annotations(result.stderr)
        check_outputs(folder)
        assert len(summary.read_bytes()) <= SUMMARY_LIMIT
        summary.read_bytes().decode("utf-8")


@given(text=hostile_text(max_pieces=6))
def test_a_message_with_any_text_in_it_forges_nothing_on_a_log(text: str) -> None:
    # The one rule every error, warning and note of the CLI and the pytest plugin passes.
    shown = shown_lines(f"Error: cannot read {text}: {text}")
    assert executed_commands(shown + "\n") == []
    assert "##[" not in shown
    check_no_terminal_escapes(shown)
