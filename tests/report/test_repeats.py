"""Repeated runs as one case (`zeroclaw_eval.report.repeats`): the verdict, the run shown,
and what cannot be repeated."""

from __future__ import annotations

import pytest

from zeroclaw_eval.cases.location import FieldRef
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.model import CaseReport
from zeroclaw_eval.report.repeats import check_repeat, combine


def attempt(label: str, passed: bool) -> CaseReport:
    grades = [GradeResult("response_contains[0]", "response", passed, label, FieldRef("/expects"))]
    return CaseReport("c.json", "c.json", "c", grades=grades)


def test_a_single_run_is_the_case_itself() -> None:
    only = attempt("one", True)
    assert combine([only]) is only


def test_without_a_minimum_every_run_must_pass_and_the_first_failure_is_shown() -> None:
    runs = [attempt("1", True), attempt("2", False), attempt("3", False), attempt("4", True)]
    case = combine(runs)
    assert not case.passed
    assert case.grades[0].detail == "2"
    assert case.repeats is not None
    assert (case.repeats.passed, case.repeats.pass_at_k, case.repeats.pass_all) == (2, True, False)
    assert case.repeats.check_passes == {"response_contains[0]": 2}
    assert case.repeats.flaky_checks == ["response_contains[0]"]


def test_a_minimum_pass_rate_passes_a_case_on_enough_runs_and_shows_a_passing_one() -> None:
    runs = [attempt("1", True), attempt("2", False), attempt("3", True), attempt("4", True)]
    case = combine(runs, 0.75)
    assert case.passed
    assert case.grades[0].detail == "4"
    assert not combine(runs, 0.8).passed


@pytest.mark.parametrize(
    ("repeat", "rate", "live", "message"),
    [
        (3, None, False, "a replay gives the same run every time"),
        (1, 0.5, True, "give --repeat K too"),
        (2, 0.0, True, "above 0 and at most 1"),
        (2, 1.5, True, "above 0 and at most 1"),
        (0, None, True, "1 or more"),
    ],
)
def test_a_repeat_that_cannot_mean_anything_is_refused(
    repeat: int, rate: float | None, live: bool, message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        check_repeat(repeat, rate, live=live)
    check_repeat(2, 0.5, live=True)  # what is meant is accepted


def test_a_run_that_graded_nothing_does_not_make_a_check_flaky() -> None:
    # A provider error before any answer: that run failed, but graded no check.
    errored = CaseReport("c.json", "c.json", "c")
    case = combine([attempt("1", True), errored, attempt("3", True)])
    assert case.repeats is not None
    assert case.repeats.passed == 2
    assert case.repeats.flaky_checks == []
    assert case.repeats.check_runs == {"response_contains[0]": 2}


@pytest.mark.parametrize(
    ("outcomes", "stability", "label"),
    [
        ([True, True, True], "stable_pass", "stable pass"),
        ([True, False, True], "flaky", "flaky"),
        ([False, False, False], "stable_fail", "stable fail"),
    ],
)
def test_each_repeated_case_is_a_stable_pass_flaky_or_a_stable_fail_in_every_output(
    outcomes: list[bool], stability: str, label: str
) -> None:
    from zeroclaw_eval.report.codec import report_from_dict, report_to_dict
    from zeroclaw_eval.report.model import SuiteReport
    from zeroclaw_eval.reporters.github import step_summary
    from zeroclaw_eval.reporters.html.case import case_html
    from zeroclaw_eval.reporters.table import repeat_summary

    case = combine([attempt(str(i), ok) for i, ok in enumerate(outcomes)])
    assert case.repeats is not None
    assert case.repeats.stability == stability
    assert repeat_summary(case.repeats).startswith(f"{label}: ")
    report = SuiteReport("evals", "live", [case], 1.0, "0", "/")
    data = report_to_dict(report)
    assert data["cases"][0]["repeats"]["stability"] == stability
    assert report_from_dict(data).cases[0].repeats == case.repeats  # read back, re-derived
    summary = step_summary(report)
    assert (
        f"Repeated runs: stable pass {int(stability == 'stable_pass')}, flaky {int(stability == 'flaky')}"
        in summary
    )
    assert (f"| `c.json` | {label} |" in summary) is (stability != "stable_pass")
    assert f'<span class="stability {stability}">{label}</span>' in case_html(0, case)
