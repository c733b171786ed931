"""`zeroclaw_eval.reporters.json_report`: the report shape as indented JSON, in pieces."""

from __future__ import annotations

import json

import pytest

from tests.support.ci_log import LONE_SURROGATE
from tests.support.reports import every_status_report, passing_case
from zeroclaw_eval.report.codec import report_from_dict, report_to_dict
from zeroclaw_eval.report.model import SuiteReport
from zeroclaw_eval.reporters import json_report
from zeroclaw_eval.reporters.safety import encodable, neutralize_json


def _stdlib_text(report: SuiteReport) -> str:
    # What the JSON report was before it was written a case at a time.
    text = json.dumps(report_to_dict(report), indent=2, ensure_ascii=False, allow_nan=False)
    return encodable(neutralize_json(text)) + "\n"


@pytest.mark.parametrize(
    "report",
    [
        every_status_report(),
        SuiteReport("evals/empty", "replay", [], 1.0, "0.0.0", "/repo"),
        SuiteReport("evals/one", "replay", [passing_case()], 1.0, "0.0.0", "/repo"),
        every_status_report(hostile="##[error] " + LONE_SURROGATE + " ::warning::x"),
    ],
    ids=["every status", "no case", "one case", "hostile text"],
)
def test_the_text_is_json_dumps_of_the_report_shape_byte_for_byte(report: SuiteReport) -> None:
    assert json_report.REPORTER(report) == _stdlib_text(report)
    assert "".join(json_report.pieces(report)) == json_report.REPORTER(report)


def test_the_pieces_are_the_summary_then_one_per_case_then_the_end() -> None:
    report = every_status_report()
    pieces = list(json_report.pieces(report))
    assert len(pieces) == len(report.cases) + 2
    assert pieces[0].endswith('"cases": [')
    assert pieces[-1] == "\n  ]\n}\n"


def test_every_piece_is_defused_on_its_own() -> None:
    report = every_status_report(hostile="##[error]" + LONE_SURROGATE)
    for piece in json_report.pieces(report):
        assert "##[" not in piece
        assert LONE_SURROGATE not in piece
        piece.encode("utf-8")  # writable as it comes


def test_the_text_reads_back_as_the_same_report() -> None:
    report = every_status_report()
    again = report_from_dict(json.loads(json_report.REPORTER(report)))
    assert report_to_dict(again) == report_to_dict(report)


def test_a_records_dataclasses_hold_only_their_fields_so_the_json_holds_nothing_else() -> None:
    # The JSON writer (orjson) writes a dataclass's attributes; with slots, an attribute
    # set outside the fields (a cache, a note) cannot exist to leak into a report.
    from dataclasses import fields

    report = every_status_report()
    seen = {type(grade) for case in report.cases for grade in case.grades}
    seen |= {type(grade.field) for case in report.cases for grade in case.grades}
    seen |= {type(case.error) for case in report.cases if case.error is not None}
    seen |= {type(problem) for case in report.cases for problem in case.problems}
    for case in report.cases:
        if case.record is not None:
            record = case.record
            seen |= {type(record), *map(type, record.turns), *map(type, record.steps)}
            seen |= set(map(type, record.calls))
    assert len(seen) >= 8
    for kind in seen:
        assert "__dict__" not in dir(kind), kind  # slots only
        assert tuple(kind.__slots__) == tuple(f.name for f in fields(kind)), kind
