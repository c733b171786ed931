"""How a check's detail shows what it observed: the calls, numbered per tool and each cut
short, and amounts however large."""

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


def number_text(value: float) -> str:
    """A spent amount as a detail shows it: its digits, or for an integer beyond 64 bits
    (no real run spends that much) how many digits it has, since Python refuses to write
    out one longer than 4,300 digits and a detail must never crash the grader."""
    if isinstance(value, int) and value.bit_length() > 64:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    return str(value)


def _argument_text(arguments: Any) -> str:
    # Raw (unparsed) argument text is quoted so it cannot be mistaken for an object.
    if isinstance(arguments, str):
        return quote(arguments)
    head, note = cut(compact_json(arguments), SHOWN)
    return head + note
