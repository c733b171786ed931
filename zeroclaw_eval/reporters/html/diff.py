"""What the HTML page shows for a failing check: expected, found, and a word diff of the
two when it helps."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval._support.json.text import pretty_json
from zeroclaw_eval.grading.result import GradeResult

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)
_DIFF_LIMIT = 4000  # characters per side; SequenceMatcher is quadratic in the worst case


@dataclass
class DiffView:
    """Expected and found side by side, with a word diff when it helps."""

    expected: str
    found: str
    segments: list[tuple[str, str]] = field(default_factory=list)


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return pretty_json(value)


def _closest(needle: str, candidates: list[str]) -> str:
    return max(candidates, key=lambda c: difflib.SequenceMatcher(None, needle, c).quick_ratio(), default="")


def word_diff(expected: str, found: str) -> list[tuple[str, str]]:
    """Segments (`same` | `del` | `ins`, text) turning `expected` into `found`."""
    if len(expected) > _DIFF_LIMIT or len(found) > _DIFF_LIMIT:
        return []
    left, right = _TOKEN.findall(expected), _TOKEN.findall(found)
    segments: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            segments.append(("same", "".join(left[i1:i2])))
            continue
        if i2 > i1:
            segments.append(("del", "".join(left[i1:i2])))
        if j2 > j1:
            segments.append(("ins", "".join(right[j1:j2])))
    return segments


def diff_view(grade: GradeResult) -> DiffView:
    """What to show for a failing check: expected, found, and their diff."""
    expected = _as_text(grade.expected)
    actual = grade.actual
    if isinstance(actual, list) and actual and grade.check_id.startswith("tool_"):
        # Dispatch checks: compare the needle with the call most like it.
        found = _closest(expected, [_as_text(a) for a in actual])
    else:
        found = "" if actual is None else _as_text(actual)
    segments = word_diff(expected, found) if expected and found and expected != found else []
    # A diff helps only where the two have words in common; otherwise it just repeats them.
    if not any(op == "same" and text.strip() for op, text in segments):
        segments = []
    return DiffView(expected, found, segments)
