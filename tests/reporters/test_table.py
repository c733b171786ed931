"""`zeroclaw_eval.reporters.table`: untrusted text is shown, never obeyed by the terminal."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import write_fixture
from tests.support.invoke import invoke
from tests.support.reports import every_status_report
from zeroclaw_eval.reporters.table import render

TERMINAL = "\x1b[2J\x1b]0;pwned\x07\x1b]8;;https://example.com\x1b\\link\x9b31m\u202eevil\ud800"


def test_control_characters_from_model_text_are_shown_not_obeyed() -> None:
    report = every_status_report(TERMINAL)
    report.cases[1].name = "x\n::error::FORGED\x1b[2J.json"
    table = render(report, verbose=True)
    assert "\x1b" not in table
    assert "\x07" not in table
    assert "\x9b" not in table
    assert "\u202e" not in table
    assert "\\x1b[2J\\x1b]0;pwned\\x07" in table
    assert "\\u202eevil\\ud800" in table
    # A name stays on its line, its break shown.
    assert "✗ x\\n::error::FORGED\\x1b[2J.json  failing-model" in table
    table.encode("utf-8")


def test_the_tables_own_colours_still_work() -> None:
    table = render(every_status_report(TERMINAL), color=True)
    escapes = re.findall(r"\x1b[^m]*m", table)
    assert escapes
    assert set(escapes) <= {"\x1b[32m", "\x1b[31m", "\x1b[33m", "\x1b[2m", "\x1b[1m", "\x1b[0m"}
    assert "\\x1b[2J" in table


def test_newlines_and_tabs_in_details_keep_their_meaning() -> None:
    report = every_status_report("line one\n\tline two")
    table = render(report)
    assert "line one\n\tline two" in table


def _failed_read(expects: dict[str, Any]) -> dict[str, Any]:
    """A case whose one tool call (reading a file that is not there) fails."""
    call = {"id": "c1", "name": "file_read", "arguments": {"path": "missing.txt"}}
    return {
        "model_name": "reader",
        "tools": ["file_read"],
        "turns": [
            {
                "user_input": "Read missing.txt",
                "steps": [
                    {"response": {"type": "tool_calls", "tool_calls": [call]}},
                    {"response": {"type": "text", "content": "There is no such file."}},
                ],
            }
        ],
        "expects": expects,
    }


@pytest.mark.parametrize(
    ("expects", "line"),
    [
        # The fixture asks for the failure; the case fails for its answer.
        (
            {"all_tools_succeeded": False, "response_contains": ["found it"]},
            "    · tool call file_read (turn 1) failed, as the fixture expects:",
        ),
        ({"all_tools_succeeded": True}, "    ✗ tool call file_read (turn 1) failed:"),
    ],
)
def test_a_tool_failure_the_fixture_expects_is_not_marked_as_a_cause(
    tmp_path: Path, expects: dict[str, Any], line: str
) -> None:
    write_fixture(tmp_path / "suite", "reader.json", _failed_read(expects))
    result = invoke("eval", "run", "--suite", str(tmp_path / "suite"), "--no-color")
    assert result.code == 1, result.stdout
    assert line in result.stdout


@pytest.mark.parametrize(
    ("expects", "shown", "not_shown"),
    [
        (
            {"all_tools_succeeded": False, "response_contains": ["found it"]},
            '<span class="who">← failed, as the fixture expects</span>',
            '<span class="who bad">← failed</span>',
        ),
        (
            {"all_tools_succeeded": True},
            '<span class="who bad">← failed</span>',
            "as the fixture expects",
        ),
    ],
)
def test_the_html_page_words_an_expected_tool_failure_as_the_console_does(
    tmp_path: Path, expects: dict[str, Any], shown: str, not_shown: str
) -> None:
    write_fixture(tmp_path / "suite", "reader.json", _failed_read(expects))
    page = tmp_path / "report.html"
    result = invoke("eval", "run", "--suite", str(tmp_path / "suite"), "--report", f"html={page}")
    assert result.code == 1, result.stdout
    html = page.read_text(encoding="utf-8")
    assert shown in html
    assert not_shown not in html
