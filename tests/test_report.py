"""Unit tests for `zeroclaw_eval.report`: statuses, exit code, scores and the JSON round trip."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zeroclaw_eval.fixtures.location import FieldRef, FixtureProblem
from zeroclaw_eval.grading.result import BUDGET, RESPONSE, SIDE_EFFECT, TOOL, GradeResult
from zeroclaw_eval.report.codec import FORMAT_VERSION, report_from_dict, report_to_dict
from zeroclaw_eval.report.model import CaseError, CaseReport, SuiteReport
from zeroclaw_eval.run.record import ModelStep, RecordedCall, RunRecord, TurnRecord


def grade(check_id: str, category: str, passed: bool, **extra: Any) -> GradeResult:
    return GradeResult(
        check_id,
        category,
        passed,
        f"detail of {check_id}",
        FieldRef(f"/expects/{check_id}", 3, 5, 3, 9) if not passed else FieldRef(f"/expects/{check_id}"),
        **extra,
    )


def passing_case(name: str = "pass.json") -> CaseReport:
    return CaseReport(
        name,
        f"evals/{name}",
        "passing",
        [grade("response_contains[0]", RESPONSE, True), grade("exact_tool_calls", TOOL, True)],
    )


def failing_case() -> CaseReport:
    return CaseReport(
        "fail.json",
        "evals/fail.json",
        "failing",
        [
            grade("response_contains[0]", RESPONSE, True),
            grade("response_contains[1]", RESPONSE, False, expected="x", actual="y"),
            grade("tools_used[0]", TOOL, True),
            grade("budget.max_llm_calls", BUDGET, False, expected=1, actual=2),
        ],
    )


def error_case() -> CaseReport:
    record = RunRecord(
        turns=[TurnRecord(0, "hi", None)],
        steps=[ModelStep(0, None, [{"id": "c1", "name": "echo", "arguments": '{"message":"東京"}'}], 5, 6)],
        calls=[RecordedCall(0, "c1", "echo", {"message": "東京"}, "東京", True)],
        duration_ms=12.5,
    )
    return CaseReport(
        "error.json",
        "evals/error.json",
        "erroring",
        [grade("tools_used[0]", TOOL, True)],
        CaseError("turn 1: the agent raised ValueError: boom", FieldRef("/turns/0", 4, 5, 9, 6)),
        duration_ms=12.5,
        record=record,
    )


def rejected_case() -> CaseReport:
    problem = FixtureProblem(FieldRef("/expects/tool_used", 6, 5, 6, 16), "unknown expectation key")
    return CaseReport("rejected.json", "evals/rejected.json", problems=[problem])


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
    assert suite.counts() == {"passed": 1, "failed": 1, "error": 1, "rejected": 1, "total": 4}
    assert suite.category_totals() == {
        RESPONSE: {"passed": 2, "total": 3},
        TOOL: {"passed": 3, "total": 3},
        BUDGET: {"passed": 0, "total": 1},
    }


def _full_suite() -> SuiteReport:
    return SuiteReport(
        "evals/regression",
        "replay",
        [passing_case(), failing_case(), error_case(), rejected_case()],
        duration_ms=42.25,
        tool_version="0.1.0",
    )


def test_report_to_dict_shape() -> None:
    data = report_to_dict(_full_suite())
    assert data["format_version"] == FORMAT_VERSION
    assert data["exit_code"] == 1
    assert data["counts"]["total"] == 4
    assert [c["status"] for c in data["cases"]] == ["passed", "failed", "error", "rejected"]
    error = data["cases"][2]
    assert error["partial"] is True
    assert error["error"]["field"]["pointer"] == "/turns/0"
    assert error["record"]["calls"][0]["arguments"] == {"message": "東京"}
    assert data["cases"][3]["problems"][0]["field"]["line"] == 6


def test_report_round_trips_through_json() -> None:
    original = report_to_dict(_full_suite())
    wire = json.loads(json.dumps(original, ensure_ascii=False))
    rebuilt = report_from_dict(wire)
    assert report_to_dict(rebuilt) == original
    assert rebuilt.exit_code() == 1
    assert [c.status for c in rebuilt.cases] == ["passed", "failed", "error", "rejected"]


def test_passing_report_round_trips_with_exit_code_zero() -> None:
    original = report_to_dict(SuiteReport("s", "replay", [passing_case()], 1.0, "0.1.0"))
    rebuilt = report_from_dict(json.loads(json.dumps(original)))
    assert rebuilt.exit_code() == 0
    assert report_to_dict(rebuilt) == original


def test_report_from_dict_refuses_another_format_version() -> None:
    data = report_to_dict(_full_suite())
    data["format_version"] = FORMAT_VERSION + 1
    with pytest.raises(ValueError, match="format_version"):
        report_from_dict(data)
