"""What a check's verdict is (`GradeResult`), and the words a detail quotes the run in."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.fixtures.json_text import compact_json
from zeroclaw_eval.fixtures.location import FieldRef
from zeroclaw_eval.run.record import RecordedCall

RESPONSE, TOOL, SIDE_EFFECT, BUDGET = "response", "tool", "side_effect", "budget"
CATEGORIES = (RESPONSE, TOOL, SIDE_EFFECT, BUDGET)
_SHOWN = 300  # characters of observed text quoted in a detail


@dataclass(frozen=True)
class GradeResult:
    """The verdict of one declared check, with what was expected and what was found."""

    check_id: str
    category: str
    passed: bool
    detail: str
    field: FieldRef
    expected: Any = None
    actual: Any = None


def _cut(text: str, limit: int) -> tuple[str, str]:
    """`text` cut after `limit` characters, and the note that says how much was left out."""
    if len(text) <= limit:
        return text, ""
    return text[:limit], f"… ({len(text) - limit} more characters)"


def quote(text: str, limit: int = _SHOWN) -> str:
    """`text` as a JSON string literal, cut after `limit` characters with a note."""
    head, note = _cut(text, limit)
    return json.dumps(head, ensure_ascii=False) + note


def describe_calls(calls: list[RecordedCall], *, results: bool = False) -> str:
    """The observed calls, numbered per tool, for a detail."""
    if not calls:
        return "no tool was called"
    lines = []
    for index, call in enumerate(calls):
        payload = quote(call.result) if results else _argument_text(call.arguments)
        status = "" if call.success else " (failed)"
        lines.append(f"[{index}] {call.name}{status}: {payload}")
    return "; ".join(lines)


def _argument_text(arguments: Any) -> str:
    # Raw (unparsed) argument text is quoted so it cannot be mistaken for an object.
    if isinstance(arguments, str):
        return quote(arguments)
    head, note = _cut(compact_json(arguments), _SHOWN)
    return head + note


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
    return GradeResult(check_id, category, passed, detail, FieldRef(pointer), expected, actual)


def located(case: Case, result: GradeResult) -> GradeResult:
    """`result` with the line and column of its fixture field filled in."""
    return replace(result, field=case.locate(result.field.pointer, at_key=True))
