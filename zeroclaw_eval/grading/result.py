"""What a check's verdict is: `GradeResult`, made by the checks and located for reports."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from zeroclaw_eval._support.frozen import quick_init
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.cases.location import FieldRef

RESPONSE, TOOL, REQUEST, SIDE_EFFECT, BUDGET = "response", "tool", "request", "side_effect", "budget"
CATEGORIES = (RESPONSE, TOOL, REQUEST, SIDE_EFFECT, BUDGET)


@quick_init
@dataclass(frozen=True, slots=True)
class GradeResult:
    """The verdict of one declared check, with what was expected and what was found."""

    check_id: str
    category: str
    passed: bool
    detail: str
    field: FieldRef
    expected: Any = None
    actual: Any = None
    #: A check that is reported but does not decide the case (a judge check whose judge is
    #: not calibrated, `grading.judges.gate`): its failure fails neither the case nor the run.
    diagnostic: bool = False


def make_grade(
    check_id: str,
    category: str,
    pointer: str,
    passed: bool,
    detail: str,
    expected: Any = None,
    actual: Any = None,
) -> GradeResult:
    """The verdict on the check at `pointer`; its line and column are looked up only if a
    report points at it."""
    field = _FIELDS.get(pointer)
    if field is None:
        field = FieldRef(pointer)
        if len(_FIELDS) < _MAX_FIELDS:
            _FIELDS[pointer] = field
    return GradeResult(check_id, category, passed, detail, field, expected, actual)


#: The field of each check pointer, made once: the checks of a suite's cases point at the
#: same few fields (`/expects/response_contains/0`), and a `FieldRef` costs more to make
#: than to look up. Bounded, as pointers a fixture writes (`response_json`) are its own.
_FIELDS: dict[str, FieldRef] = {}
_MAX_FIELDS = 4096


def located(case: Case, result: GradeResult) -> GradeResult:
    """`result` with the line and column of its fixture field filled in."""
    return replace(result, field=case.locate(result.field.pointer, at_key=True))
