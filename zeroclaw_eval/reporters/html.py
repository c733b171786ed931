"""The `html` format: one self-contained page (inline CSS and JS, no network) from jinja2.

The templates are package data (`reporters/templates/`), read through
`importlib.resources`. Autoescaping is on for everything, and the page's Content-Security-Policy allows
only its own script (by hash), so model text can neither inject markup nor run code.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.resources import files
from typing import Any

from zeroclaw_eval.fixtures.json_text import pretty_json
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.baseline import LABELS, SHOWN, changed_cases, describe_changes
from zeroclaw_eval.report.model import CaseReport, SuiteReport
from zeroclaw_eval.reporters.safety import encodable, neutralize_markup
from zeroclaw_eval.reporters.trend import trend

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)
_DIFF_LIMIT = 4000  # characters per side; SequenceMatcher is quadratic in the worst case


@lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FunctionLoader(_template_source),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _template_source(name: str) -> str:
    return (files("zeroclaw_eval.reporters") / "templates" / name).read_text(encoding="utf-8")


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


def _lines_to_mark(case: CaseReport, lines: int) -> dict[int, str]:
    """The source lines (1 to `lines`) a failing field spans. A saved report may say any
    span (`render` reads files), so it is clamped to the source: a field "ending" at
    line 10**9 marks what there is, never a billion entries."""
    marks: dict[int, str] = {}
    for ref in (failure.field for failure in case.failures()):
        if ref.line is not None:
            for line in range(max(ref.line, 1), min(ref.end_line or ref.line, lines) + 1):
                marks[line] = "failing"
    return marks


def _timeline(case: CaseReport) -> list[dict[str, Any]]:
    record = case.record
    if record is None:
        return []
    turns = []
    for turn in record.turns:
        calls = [c for c in record.calls if c.turn == turn.index]
        steps = []
        for step in (s for s in record.steps if s.turn == turn.index):
            requested = []
            for request in step.tool_calls:
                match = next((c for c in calls if c.call_id == request["id"]), None)
                if match is not None:
                    calls.remove(match)
                requested.append({"request": request, "dispatch": match})
            steps.append({"step": step, "requested": requested})
        turns.append({"turn": turn, "steps": steps, "unrequested": calls})
    return turns


def _case_view(index: int, case: CaseReport) -> dict[str, Any]:
    anchor = f"case-{index}"
    # Split on LF only, as positions count lines (str.splitlines also splits at U+2028 and
    # friends, which would shift every line after one).
    source = case.source.split("\n") if case.source else []
    if source and source[-1] == "":
        source.pop()
    marks = _lines_to_mark(case, len(source))
    return {
        "case": case,
        "anchor": anchor,
        "failing": [(g, diff_view(g)) for g in case.failed_grades],
        "source": [(n, text, marks.get(n, "")) for n, text in enumerate(source, 1)],
        "timeline": _timeline(case),
        "json": pretty_json,
    }


def _baseline_view(report: SuiteReport) -> dict[str, Any] | None:
    """The "changes since baseline" section: the baseline, the counts, each case that
    changed (linked to its place in the page unless it was removed)."""
    baseline = report.baseline
    if baseline is None:
        return None
    return {
        "baseline": baseline,
        "summary": describe_changes((case.change for case in report.cases), baseline.removed),
        "rows": changed_cases(report.cases, baseline.removed),
    }


def _script() -> str:
    # Read as is, not rendered: the script is static and must match its CSP hash.
    return _template_source("report.js")


_SCRIPT_SLOT = "/*zeroclaw-eval: the page script*/"


def render(report: SuiteReport, *, color: bool = False) -> str:
    """The whole page as one string."""
    script = _script()
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    page = (
        _environment()
        .get_template("report.html.j2")
        .render(
            report=report,
            counts=report.counts(),
            totals=report.category_totals(),
            verdict="passed" if report.exit_code() == 0 else "failed",
            cases=[_case_view(i, case) for i, case in enumerate(report.cases)],
            baseline=_baseline_view(report),
            trend=trend(report),
            labels=LABELS,
            shown=SHOWN,
            script=_SCRIPT_SLOT,
            script_hash=f"sha256-{digest}",
        )
    )
    # Workflow commands are defused in the document, whose text may be a model's; the
    # script goes in afterwards, untouched, so that it still matches its CSP hash. Its
    # slot is the last one in the page: model text, which could repeat it, comes before.
    # A lone surrogate (a model's broken text) is written as a visible escape.
    before, slot, after = neutralize_markup(encodable(str(page))).rpartition(_SCRIPT_SLOT)
    assert slot, "the template has no script slot"
    return before + script + after
