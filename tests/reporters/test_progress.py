"""`zeroclaw_eval.reporters.progress`: a redrawn line on a terminal, one line per case in a log."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from zeroclaw_eval.cases.case import RejectedFixture
from zeroclaw_eval.cases.location import FieldRef, FixtureProblem
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.model import CaseError, CaseReport
from zeroclaw_eval.reporters.progress import Progress


def _report(status: str, path: str, duration_ms: float = 0.0) -> CaseReport:
    grade = GradeResult("response_contains[0]", "response", status != "failed", "", FieldRef("/expects"))
    report = CaseReport(path.rsplit("/", 1)[-1], path, grades=[grade], duration_ms=duration_ms)
    if status == "error":
        report.error = CaseError("turn 1 timed out", FieldRef("/turns/0"))
    if status == "rejected":
        report.problems = [FixtureProblem(FieldRef("", 1, 1), "bad")]
    assert report.status == status
    return report


FIXTURE = RejectedFixture("x.json", Path("x.json"), [])


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Progress's clock, set by the test."""
    now = [100.0]
    monkeypatch.setattr("zeroclaw_eval.reporters.progress.time.monotonic", lambda: now[0])
    return now


def test_on_a_terminal_one_line_is_redrawn_with_done_total_failures_and_elapsed(clock: list[float]) -> None:
    stream = io.StringIO()
    shown = Progress(3, stream, tty=True)
    clock[0] = 100.5
    shown(FIXTURE, _report("passed", "s/a.json"))
    assert stream.getvalue() == "\r\x1b[2K[1/3] 0 failed · 0.5s"
    clock[0] = 101.3
    shown(FIXTURE, _report("failed", "s/b.json"))
    clock[0] = 102.0
    shown(FIXTURE, _report("error", "s/c.json"))
    assert stream.getvalue() == (
        "\r\x1b[2K[1/3] 0 failed · 0.5s\r\x1b[2K[2/3] 1 failed · 1.3s\r\x1b[2K[3/3] 2 failed · 2.0s\n"
    )


def test_on_a_terminal_no_line_ends_until_the_last_case(clock: list[float]) -> None:
    stream = io.StringIO()
    shown = Progress(2, stream, tty=True)
    shown(FIXTURE, _report("passed", "s/a.json"))
    assert "\n" not in stream.getvalue()
    shown(FIXTURE, _report("passed", "s/b.json"))
    assert stream.getvalue().endswith("[2/2] 0 failed · 0.0s\n")
    assert stream.getvalue().count("\n") == 1


def test_in_a_log_each_finished_case_gets_one_line() -> None:
    stream = io.StringIO()
    shown = Progress(4, stream, tty=False)
    shown(FIXTURE, _report("passed", "evals/live/a.json", 120))
    shown(FIXTURE, _report("failed", "evals/live/b.json", 2500))
    shown(FIXTURE, _report("error", "evals/live/c.json", 5))
    shown(FIXTURE, _report("rejected", "evals/live/d.json"))
    assert stream.getvalue().splitlines() == [
        "[1/4] ✓ evals/live/a.json (passed, 0.12s)",
        "[2/4] ✗ evals/live/b.json (failed, 2.50s)",
        "[3/4] ! evals/live/c.json (error, 0.01s)",
        "[4/4] ✗ evals/live/d.json (rejected, 0.00s)",
    ]
    assert "\r" not in stream.getvalue()
    assert "\x1b" not in stream.getvalue()


def test_in_a_log_a_hostile_file_name_stays_on_its_line_and_forges_nothing() -> None:
    from tests.support.ci_log import command_lines, executed_commands

    stream = io.StringIO()
    shown = Progress(2, stream, tty=False)
    shown(FIXTURE, _report("failed", "evals/x\n::error::FORGED.json"))
    shown(FIXTURE, _report("failed", "evals/\x1b]0;t\x07##[error]\r::add-mask::s\udcff.json"))
    log = stream.getvalue()
    assert log.count("\n") == 2
    assert command_lines(log) == []
    assert executed_commands(log) == []
    assert "[1/2] ✗ evals/x\\n::error::FORGED.json (failed" in log
    assert "evals/\\x1b]0;t\\x07#\\x23[error]\\r::add-mask::s\\udcff.json" in log
    log.encode("utf-8")
