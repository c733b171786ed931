"""Grading: one `GradeResult` per declared check, from a `RunRecord` and the workspace.

A grader never raises: an invalid regex, an unreadable file or a path that leaves the
workspace is a failed check with a detail. Dispatch checks read only the recorded
calls, the canonical fact of what crossed the tool boundary.
"""

from __future__ import annotations

from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.grading.families import FAMILIES
from zeroclaw_eval.grading.result import SIDE_EFFECT, GradeResult
from zeroclaw_eval.tools.workspace import Workspace


def grade(
    expects: Expects, record: RunRecord, workspace: Workspace | None = None, *, words: bool = True
) -> list[GradeResult]:
    """Grade every declared check of `expects` against `record`, in the order of the
    check families (`grading.families`).

    With `words` false a passing check of the common families gets no words (`detail`
    ""): a run that keeps passing cases compact never shows them, and putting what each
    check found into words is most of grading's work. A failing check always gets them.
    """
    grades: list[GradeResult] = []
    for family in FAMILIES:
        grades.extend(family.grade(expects, record, workspace, words))
    return grades


def in_words(grades: list[GradeResult], expects: Expects, record: RunRecord) -> list[GradeResult]:
    """`grades` (of `grade(..., words=False)`) with every passing check in words, for a case
    that turns out not to pass: it keeps every detail. The checks of the record are graded
    again; a workspace check, which the workspace gone could not grade again, always has
    its words."""
    if all(g.detail or not g.passed for g in grades):
        return grades
    again = {g.check_id: g for g in grade(expects, record) if g.category != SIDE_EFFECT}
    return [again.get(g.check_id, g) if g.passed and not g.detail else g for g in grades]
