"""`reporters.paint`: the one palette of the console texts, painted only when asked."""

from __future__ import annotations

from zeroclaw_eval.reporters.paint import paint, passed_mark, verdict_line


def test_text_is_painted_only_when_asked() -> None:
    assert paint("hello", "dim", True) == "\x1b[2mhello\x1b[0m"
    assert paint("hello", "dim", False) == "hello"


def test_marks_and_verdicts_are_green_when_passed_else_red() -> None:
    assert passed_mark(True, True) == "\x1b[32m✓\x1b[0m"
    assert passed_mark(False, True) == "\x1b[31m✗\x1b[0m"
    assert (passed_mark(True, False), passed_mark(False, False)) == ("✓", "✗")
    assert verdict_line("PASSED", True, True) == "\x1b[32mPASSED\x1b[0m"
    assert verdict_line("FAILED: x", False, True) == "\x1b[31mFAILED: x\x1b[0m"
    assert verdict_line("FAILED: x", False, False) == "FAILED: x"
