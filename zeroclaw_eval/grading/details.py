"""How a check's detail shows the calls it observed: numbered per tool, each cut short."""

from __future__ import annotations

from typing import Any

from zeroclaw_eval.fixtures.json_text import SHOWN, compact_json, cut, quote
from zeroclaw_eval.run.record import RecordedCall


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
    head, note = cut(compact_json(arguments), SHOWN)
    return head + note
