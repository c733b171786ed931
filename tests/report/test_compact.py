"""`report.compact`: a passing case kept compact says in the report what it said whole, less
its details; a case that did not pass is never compacted; a saved compact record is read
back as the case it was, and a forged one is refused."""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import PASSING, write_fixture
from tests.support.invoke import invoke
from tests.support.reports import every_status_report, failing_case, passing_case, run_every_status_suite
from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.errors import ReportShapeError
from zeroclaw_eval.report.codec import report_from_dict, report_to_dict
from zeroclaw_eval.report.compact import compact_case
from zeroclaw_eval.report.model import DETAILS_ALL, DETAILS_FAILING, PASSED, CaseReport, SuiteReport
from zeroclaw_eval.reporters import get_reporter


def _ran(case: CaseReport) -> CaseReport:
    """`case` with the record of a run: two calls, tokens in two steps."""
    record = RunRecord(
        turns=[TurnRecord(0, "go", "pong")],
        steps=[ModelStep(0, None, [], 5, 2), ModelStep(0, "pong", [], 7, 3)],
        calls=[
            RecordedCall(0, "c1", "echo", {}, "a", True),
            RecordedCall(0, "c2", "read_file", {}, "b", True),
        ],
    )
    return replace(case, record=record)


def test_a_passing_case_kept_compact_keeps_what_its_readers_read() -> None:
    whole = _ran(passing_case())
    assert (whole.tool_call_names, whole.tokens) == (["echo", "read_file"], (12, 5))
    compact = compact_case(whole)
    assert compact.status == PASSED
    assert (compact.record, compact.source) == (None, None)
    assert [(g.check_id, g.category, g.field.pointer) for g in compact.grades] == [
        (g.check_id, g.category, g.field.pointer) for g in whole.grades
    ]
    assert {g.detail for g in compact.grades} == {""}
    assert compact.category_totals == whole.category_totals
    assert compact.tool_call_names == whole.tool_call_names
    assert compact.tokens == whole.tokens
    assert compact_case(compact) is compact


def test_a_compact_case_carries_over_every_field_it_does_not_drop() -> None:
    dropped = {"grades", "record", "source", "summary"}
    verdict = {"problems", "error"}  # what makes the case pass: empty, and carried over
    # A value of its own in every other field, a field added to CaseReport later included:
    # compact_case names each field it keeps, and must not leave a new one at its default.
    marks = {each.name: object() for each in fields(CaseReport) if each.name not in dropped | verdict}
    whole = replace(_ran(passing_case()), **marks)
    compact = compact_case(whole)
    assert compact is not whole
    for name, mark in marks.items():
        assert getattr(compact, name) is mark, name
    assert (compact.problems, compact.error) == ([], None)
    assert compact.summary is not None


def test_a_case_that_did_not_pass_is_never_compacted() -> None:
    for case in every_status_report().cases:
        if case.status != PASSED:
            assert compact_case(case) is case


def test_two_passing_cases_share_their_compact_checks() -> None:
    first, second = compact_case(passing_case("a.json")), compact_case(passing_case("b.json"))
    assert all(a is b for a, b in zip(first.grades, second.grades, strict=True))


def test_the_json_of_a_case_kept_compact_is_that_of_the_case_written_compact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Kept compact in memory (a run that shows no passing details) or written compact from
    # the whole case: the same bytes.
    report = run_every_status_suite(tmp_path, monkeypatch)
    kept = replace(report, cases=[compact_case(case) for case in report.cases])
    assert kept.cases != report.cases
    json_output = get_reporter("json")
    assert json_output(kept) == json_output(report)
    assert get_reporter("junit")(kept) == get_reporter("junit")(report)
    assert get_reporter("github")(kept) == get_reporter("github")(report)
    assert get_reporter("table")(kept) == get_reporter("table")(report)


def test_with_every_detail_a_passing_case_is_written_whole() -> None:
    report = SuiteReport("s", "replay", [passing_case(), failing_case()], 1.0, "0.1.0", details=DETAILS_ALL)
    data = report_to_dict(report)
    assert data["details"] == DETAILS_ALL
    assert all("grades" in case and "checks" not in case for case in data["cases"])
    compact = report_to_dict(replace(report, details=DETAILS_FAILING))
    assert ["checks" in case for case in compact["cases"]] == [True, False]
    assert (compact["cases"][0]["tool_calls"], compact["cases"][0]["input_tokens"]) == ([], 0)
    ran = report_to_dict(SuiteReport("s", "replay", [_ran(passing_case())], 1.0, "0.1.0"))
    assert ran["cases"][0]["tool_calls"] == ["echo", "read_file"]
    assert (ran["cases"][0]["input_tokens"], ran["cases"][0]["output_tokens"]) == (12, 5)


def _saved() -> dict[str, Any]:
    """A saved report of a passing and a failing case, the passing one compact."""
    report = SuiteReport("s", "replay", [_ran(passing_case()), failing_case()], 1.0, "0.1.0")
    data: dict[str, Any] = json.loads(json.dumps(report_to_dict(report)))
    return data


def test_a_saved_compact_record_reads_back_as_the_case_kept_compact() -> None:
    reloaded = report_from_dict(_saved())
    assert reloaded.cases == [compact_case(_ran(passing_case())), failing_case()]
    assert reloaded.cases[0].tool_call_names == ["echo", "read_file"]
    assert reloaded.details == DETAILS_FAILING


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        # A failing case cannot be hidden behind a compact record, nor a check made to pass.
        (
            lambda d: d["cases"][1].update(checks=[], tool_calls=[], input_tokens=0, output_tokens=0),
            "cases[1]",
        ),
        (lambda d: d["cases"][0].update(status="failed"), "cases[0].status"),
        (lambda d: d["cases"][0].update(checks=[]), "cases[0].status"),
        (lambda d: d["cases"][0].update(grades=[]), "cases[0].grades: Extra inputs are not permitted"),
        (lambda d: d["cases"][0]["checks"][0].update(category="vibes"), "cases[0].checks[0].category"),
        (lambda d: d["cases"][0].update(input_tokens=-1), "cases[0].input_tokens"),
        (lambda d: d.update(details="some"), "details"),
        # Compact records came with format 8: an older report holds every case whole.
        (lambda d: d.update(format_version=7), "cases[0].problems: Field required"),
    ],
)
def test_a_forged_compact_record_is_refused_naming_the_field(edit: Any, words: str) -> None:
    data = _saved()
    edit(data)
    with pytest.raises(ReportShapeError) as refused:
        report_from_dict(data)
    assert words in str(refused.value)


@pytest.mark.parametrize("verbose", [False, True])
def test_the_html_page_follows_details_and_is_the_page_render_makes_of_the_json(
    tmp_path: Path, verbose: bool
) -> None:
    # By default the page lists a passing case's checks unworded and without its run,
    # exactly as `render` draws it from the run's JSON, even when `-v` keeps the case
    # whole for the table; `--details all` shows the words and the run.
    write_fixture(tmp_path / "evals" / "regression", "ok.json", PASSING)
    words, timeline = "expected exactly 1 tool call(s); found 1 (echo)", '<ol class="timeline">'
    pages = {}
    for details in ("failing", "all"):
        result = invoke(
            "eval", "run", "--details", details, "--report", f"html={details}.html",
            "--report", f"json={details}.json", *(["-v"] if verbose else []), cwd=tmp_path,
        )  # fmt: skip
        assert result.code == 0, result.stderr
        assert (words in result.stdout) is verbose  # the table's words, with -v
        pages[details] = (tmp_path / f"{details}.html").read_text(encoding="utf-8")
        rendered = invoke("eval", "render", f"{details}.json", "--format", "html", cwd=tmp_path)
        assert rendered.code == 0, rendered.stderr
        assert rendered.stdout == pages[details]
    (case,) = json.loads((tmp_path / "failing.json").read_text(encoding="utf-8"))["cases"]
    assert "checks" in case
    assert "grades" not in case
    assert "exact_tool_calls" in pages["failing"]
    assert words not in pages["failing"]
    assert timeline not in pages["failing"]
    assert words in pages["all"]
    assert timeline in pages["all"]


def test_a_case_that_does_not_pass_keeps_its_passing_checks_words_in_a_compact_run(tmp_path: Path) -> None:
    # A run that keeps passing cases compact grades passing checks without words; a case
    # that turns out not to pass gets them all, as with every detail kept.
    partly = {
        **PASSING,
        "expects": {
            "response_contains": ["hello", "goodbye"],
            "tools_used": ["echo"],
            "exact_tool_calls": 1,
            "tool_arguments_contain": [{"tool": "echo", "needle": "hello"}],
            "all_tools_succeeded": True,
            "budget": {"max_llm_calls": 5},
        },
    }
    write_fixture(tmp_path / "evals" / "regression", "partly.json", partly)
    write_fixture(tmp_path / "evals" / "regression", "ok.json", PASSING)
    reports = []
    for details in ("failing", "all"):
        result = invoke("eval", "run", "--format", "json", "--details", details, cwd=tmp_path)
        assert result.code == 1, result.stderr
        reports.append({case["name"]: case for case in result.json()["cases"]})
    compact, whole = reports
    assert "checks" in compact["ok.json"]
    grades = compact["partly.json"]["grades"]
    assert [g["passed"] for g in grades].count(True) == 6
    assert all(g["detail"] for g in grades)
    assert grades == whole["partly.json"]["grades"]
