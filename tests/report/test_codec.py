"""`zeroclaw_eval.report.codec`: the versioned JSON shape of a report, both ways."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.reports import error_case, failing_case, passing_case, rejected_case
from zeroclaw_eval.errors import ReportShapeError
from zeroclaw_eval.report.codec import FORMAT_VERSION, report_from_dict, report_to_dict
from zeroclaw_eval.report.model import DETAILS_ALL, SuiteReport


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


def _before_xfail(data: dict[str, Any]) -> None:
    """`data` as a report of before format 9 is: no xfail counts, no case's mark."""
    del data["counts"]["xfailed"], data["counts"]["xpassed"]
    for case in data["cases"]:
        del case["xfail"]


def test_a_report_of_before_format_9_that_counts_xfailed_cases_is_refused() -> None:
    data = report_to_dict(SuiteReport("s", "replay", [passing_case()], 1.0, "0.1.0", details=DETAILS_ALL))
    data["format_version"] = 8
    with pytest.raises(ReportShapeError, match="counts"):
        report_from_dict(data)


def test_a_report_of_format_2_is_still_read_and_its_steps_take_the_new_defaults() -> None:
    data = report_to_dict(SuiteReport("s", "replay", [error_case()], 1.0, "0.1.0"))
    data["format_version"] = 2
    _before_xfail(data)
    for step in data["cases"][0]["record"]["steps"]:
        for key in ("sent_roles", "offered_tools", "system_prompt"):
            del step[key]
    assert data["cases"][0]["error"] is not None
    del data["cases"][0]["error"]["traceback"]  # format 2 kept no traceback
    case = report_from_dict(data).cases[0]
    (step,) = case.record.steps  # type: ignore[union-attr]
    assert (step.sent_roles, step.offered_tools, step.system_prompt) == ([], [], None)
    assert case.error is not None
    assert case.error.traceback is None


def test_an_interrupted_report_says_by_which_signal_and_exits_as_the_shell_would() -> None:
    for name, code in (("SIGINT", 130), ("SIGTERM", 143)):
        report = SuiteReport("s", "replay", [passing_case()], 1.0, "0.1.0", not_run=2, interrupted=name)
        data = report_to_dict(report)
        assert (data["interrupted"], data["exit_code"], data["not_run"]) == (name, code, 2)
        rebuilt = report_from_dict(json.loads(json.dumps(data)))
        assert (rebuilt.interrupted, rebuilt.exit_code()) == (name, code)


def test_a_report_of_format_4_reads_as_not_interrupted() -> None:
    data = report_to_dict(SuiteReport("s", "replay", [passing_case()], 1.0, "0.1.0", details=DETAILS_ALL))
    data["format_version"] = 4
    _before_xfail(data)
    del data["details"]
    del data["interrupted"]
    assert report_from_dict(data).interrupted is None


def test_a_case_is_its_records_as_asdict_makes_them_and_shares_no_container() -> None:
    from dataclasses import asdict

    from zeroclaw_eval.report.codec import case_to_dict

    for case in _full_suite().cases:
        data = case_to_dict(case)
        assert data["grades"] == [asdict(grade) for grade in case.grades]
        assert data["problems"] == [asdict(problem) for problem in case.problems]
        assert data["error"] == (asdict(case.error) if case.error else None)
        assert data["record"] == (asdict(case.record) if case.record else None)
        if case.record is not None and case.record.calls:
            # A consumer may change the dict without changing the report.
            assert data["record"]["calls"][0]["arguments"] is not case.record.calls[0].arguments


def test_the_summary_is_the_report_shape_but_its_cases() -> None:
    from zeroclaw_eval.report.codec import report_summary

    report = _full_suite()
    assert report_summary(report) == {k: v for k, v in report_to_dict(report).items() if k != "cases"}
    assert list(report_to_dict(report))[-1] == "cases"
