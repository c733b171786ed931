"""Grading without words (`grade(..., words=False)`, how a run grades every case that
only a summary shows) decides exactly what grading in words decides: the same checks in
the same order, each passed or failed alike, at the same field, with the same expected
and found values. Only a passing check's words are left out, and `in_words` (a case that
turns out not to pass) puts back exactly the words grading in words writes.

Held on every shipped regression fixture and one that declares the checks they do not,
replayed through the real agent loop, and on each run taken apart, changed and overdone,
so that every check graded without a workspace is met both passing and failing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.grading.runs import CASES, EVERY_CHECK, NAMES, case_of, records
from zeroclaw_eval.grading.grader import grade, in_words
from zeroclaw_eval.grading.result import GradeResult


def _decided(result: GradeResult) -> tuple[object, ...]:
    return (
        result.check_id,
        result.category,
        result.passed,
        result.field.pointer,
        result.expected,
        result.actual,
    )


@pytest.mark.parametrize("path", CASES, ids=NAMES)
def test_grading_without_words_decides_what_grading_in_words_decides(
    path: Path | None, tmp_path: Path
) -> None:
    case = case_of(path, tmp_path)
    expects = case.trace.expects
    for name, record in records(case).items():
        worded = grade(expects, record, None, words=True)
        quiet = grade(expects, record, None, words=False)
        assert [_decided(g) for g in quiet] == [_decided(g) for g in worded], name
        for said, unsaid in zip(worded, quiet, strict=True):
            # A failing check always says why; a passing one may be silent without words.
            allowed = {said.detail, ""} if said.passed else {said.detail}
            assert unsaid.detail in allowed, (name, said.check_id)
        assert in_words(quiet, expects, record) == worded, name


def test_the_fixtures_meet_every_check_both_passing_and_failing(tmp_path: Path) -> None:
    # What the test above is worth: over the fixtures and their taken-apart runs, every
    # key of every family graded without a workspace is met passing and failing.
    met: dict[str, set[bool]] = {}
    for path in CASES:
        case = case_of(path, tmp_path)
        for record in records(case).values():
            for result in grade(case.trace.expects, record, None, words=True):
                met.setdefault(result.field.pointer.split("/")[2], set()).add(result.passed)
    unmet = {key for key in (*EVERY_CHECK["expects"], "response_json") if met.get(key) != {True, False}}
    assert unmet == set()
