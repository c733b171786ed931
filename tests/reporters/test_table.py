"""`zeroclaw_eval.reporters.table`: untrusted text is shown, never obeyed by the terminal."""

from __future__ import annotations

import re

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
