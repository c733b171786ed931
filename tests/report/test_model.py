"""`zeroclaw_eval.report.model`: statuses, exit code, scores and totals of a finished run."""

from __future__ import annotations

import pytest

from tests.support.reports import error_case, failing_case, passing_case, rejected_case
from zeroclaw_eval.grading.result import BUDGET, RESPONSE, SIDE_EFFECT, TOOL
from zeroclaw_eval.report.baseline import Baseline
from zeroclaw_eval.report.model import CaseReport, SuiteReport


def test_case_statuses() -> None:
    assert passing_case().status == "passed"
    assert passing_case().passed
    assert failing_case().status == "failed"
    assert error_case().status == "error"
    assert rejected_case().status == "rejected"
    assert not failing_case().passed
    assert not error_case().passed
    assert not rejected_case().passed


def test_case_without_grades_did_not_pass() -> None:
    assert not CaseReport("empty.json", "evals/empty.json", "m").passed


def test_run_error_fails_even_when_every_partial_grade_passed() -> None:
    case = error_case()
    assert all(g.passed for g in case.grades)
    assert case.partial
    assert not case.passed


@pytest.mark.parametrize(
    ("cases", "code"),
    [
        ([passing_case()], 0),
        ([passing_case("a.json"), passing_case("b.json")], 0),
        ([passing_case(), failing_case()], 1),
        ([passing_case(), error_case()], 1),
        ([passing_case(), rejected_case()], 1),
        ([], 1),
    ],
    ids=["one-pass", "all-pass", "failed-check", "run-error", "rejected", "empty-suite"],
)
def test_exit_code_is_zero_iff_every_case_passed(cases: list[CaseReport], code: int) -> None:
    assert SuiteReport("evals", "replay", cases).exit_code() == code


def _changed(case: CaseReport, change: str) -> CaseReport:
    case.change = change
    return case


def _gated(cases: list[CaseReport], fail_on: str = "new-failures") -> SuiteReport:
    return SuiteReport("evals", "replay", cases, baseline=Baseline("prev.json", "sha256:0", "1.0", fail_on))


@pytest.mark.parametrize(
    ("cases", "code"),
    [
        ([_changed(failing_case(), "still_failing"), _changed(error_case(), "still_failing")], 0),
        ([_changed(passing_case(), "new"), _changed(passing_case(), "fixed")], 0),
        ([_changed(failing_case(), "new"), _changed(passing_case(), "fixed")], 1),
        ([_changed(passing_case(), "still_passing"), _changed(failing_case(), "new_failure")], 1),
        ([_changed(error_case(), "new_failure")], 1),
        ([_changed(rejected_case(), "still_failing")], 1),
        ([_changed(rejected_case(), "new")], 1),
        ([], 1),
    ],
    ids=[
        "still-failing",
        "new-passing-and-fixed",
        "new-failing-the-ratchet",
        "new-failure",
        "new-run-error",
        "still-rejected",
        "new-rejected",
        "empty",
    ],
)
def test_fail_on_new_failures_gates_on_new_failures_and_rejections(
    cases: list[CaseReport], code: int
) -> None:
    assert _gated(cases).exit_code() == code


def test_fail_on_any_with_a_baseline_keeps_the_default_verdict() -> None:
    assert _gated([_changed(failing_case(), "still_failing")], "any").exit_code() == 1
    interrupted = _gated([_changed(failing_case(), "new_failure")])
    interrupted.interrupted = "SIGINT"
    assert interrupted.exit_code() == 130


def test_score_is_the_fraction_of_checks_passed() -> None:
    assert passing_case().score == 1.0
    assert failing_case().score == 0.5
    assert error_case().score == 0.0
    assert rejected_case().score == 0.0


def test_case_category_totals() -> None:
    assert failing_case().category_totals == {
        RESPONSE: {"passed": 1, "total": 2},
        TOOL: {"passed": 1, "total": 1},
        BUDGET: {"passed": 0, "total": 1},
    }
    assert SIDE_EFFECT not in failing_case().category_totals


def test_failed_grades() -> None:
    assert [g.check_id for g in failing_case().failed_grades] == [
        "response_contains[1]",
        "budget.max_llm_calls",
    ]


def test_suite_counts_and_category_totals() -> None:
    suite = SuiteReport("evals", "replay", [passing_case(), failing_case(), error_case(), rejected_case()])
    assert suite.counts() == {
        "passed": 1,
        "failed": 1,
        "error": 1,
        "rejected": 1,
        "xfailed": 0,
        "xpassed": 0,
        "total": 4,
    }
    assert suite.category_totals() == {
        RESPONSE: {"passed": 2, "total": 3},
        TOOL: {"passed": 3, "total": 3},
        BUDGET: {"passed": 0, "total": 1},
    }


def test_failures_are_problems_then_the_run_error_then_failed_checks() -> None:
    case = error_case()
    case.problems = rejected_case().problems
    failures = case.failures()
    assert [f.check for f in failures] == ["rejected /expects/tool_used", "run error"]
    failing = failing_case().failures()
    assert [f.check for f in failing] == ["response_contains[1]", "budget.max_llm_calls"]
    assert failing[0].field.line == 3
    assert passing_case().failures() == []
