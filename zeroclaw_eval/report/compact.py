"""Compact records: what a report keeps of a passing case unless asked for all of it.

A passing case's details (each check's words, what it expected and what it found, the
whole record of the run) are what nobody reads of a green suite, and most of a report:
about nine tenths of a case's record. Kept compact (`--details failing`, the default), a
passing case keeps its name, path, id, status, score, duration and category totals, each
check's id, category and field, the tools it called in order, and its tokens: what
`compare`, `merge`, `--baseline` and every reporter read of a passing case. A case that
did not pass always keeps everything, its fixture text included.

The JSON report and the HTML page write a passing case compact unless `--details all`.
A run whose outputs show no passing case's details (no `-v` table, no plugin format) keeps
each passing case compact from the moment it is graded, so a suite's memory grows by
about a kilobyte a passing case rather than by the whole record.
"""

from __future__ import annotations

import sys

from zeroclaw_eval.cases.location import FieldRef
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.model import DETAILS_FAILING, PASSED, CaseReport, CaseSummary

#: Passing checks without their words, one object each: a suite's cases mostly declare
#: the same checks at the same fields, so a compact case holds references to shared
#: grades. Bounded by the kinds of check times their indices, not by the suite's size.
_GRADES: dict[tuple[str, str, str, bool], GradeResult] = {}


def passing_check(check_id: str, category: str, pointer: str, diagnostic: bool = False) -> GradeResult:
    """The grade of a passing check as a compact case keeps it: no words, no values, its
    field by pointer alone (a passing check's position is never looked up)."""
    key = (check_id, category, pointer, diagnostic)
    found = _GRADES.get(key)
    if found is None:
        check = sys.intern(check_id)
        found = _GRADES[key] = GradeResult(
            check, sys.intern(category), True, "", FieldRef(sys.intern(pointer)), diagnostic=diagnostic
        )
    return found


def summary_of(case: CaseReport) -> CaseSummary:
    """What the record of `case`'s run says in sum (nothing, for a case without one)."""
    if case.summary is not None:
        return case.summary
    record = case.record
    if record is None:
        return CaseSummary((), 0, 0)
    names = tuple(sys.intern(call.name) for call in record.calls)
    return CaseSummary(names, record.input_tokens, record.output_tokens)


def written_compact(case: CaseReport, details: str) -> bool:
    """Whether a report of `details` (`--details`) shows `case` as a compact record: a case
    kept compact, and with `failing` every passing case. The JSON report and the HTML page
    both ask, so that the page is the one `render` draws from the JSON."""
    return case.summary is not None or (details == DETAILS_FAILING and settled(case))


def settled(case: CaseReport) -> bool:
    """Whether `case` passed with nothing to show: no check failed, a diagnostic one
    included (whose words and fixture a report shows, though it decides nothing)."""
    return case.status == PASSED and not case.diagnostic_failures


def compact_case(case: CaseReport) -> CaseReport:
    """`case` kept compact if it passed (see the module); any other case as it is."""
    if case.summary is not None or not settled(case):
        return case
    grades = [passing_check(g.check_id, g.category, g.field.pointer, g.diagnostic) for g in case.grades]
    # Every field named, rather than `dataclasses.replace` (which reads the fields' list and
    # builds keyword arguments for each case); tests/report/test_compact.py fails for a
    # field of CaseReport that this does not carry over.
    return CaseReport(
        name=case.name,
        path=case.path,
        model_name=case.model_name,
        grades=grades,
        error=case.error,
        problems=case.problems,
        duration_ms=case.duration_ms,
        record=None,
        source=None,
        id=case.id,
        cluster=case.cluster,
        cost_usd=case.cost_usd,
        judge_cost_usd=case.judge_cost_usd,
        fixture_sha256=case.fixture_sha256,
        repeats=case.repeats,
        change=case.change,
        judged=case.judged,
        summary=summary_of(case),
        xfail=case.xfail,
    )
