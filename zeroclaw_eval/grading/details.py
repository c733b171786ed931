"""How a check's detail quotes the run: text cut with a note of how much was left out,
and the observed calls numbered per tool."""

from __future__ import annotations

import json
from typing import Any

from zeroclaw_eval.fixtures.json_text import compact_json
from zeroclaw_eval.run.record import RecordedCall

_SHOWN = 300  # characters of observed text quoted in a detail


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
