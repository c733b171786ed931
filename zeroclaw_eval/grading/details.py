"""How a check's detail shows what it observed: the calls, numbered per tool and each cut
short, and amounts however large; `ToolCalls` writes each tool's calls out once per run."""

from __future__ import annotations

from typing import Any

from zeroclaw_eval._support.json.text import SHOWN, compact_json, cut, quote
from zeroclaw_eval.boundary.record import RecordedCall


class ToolCalls:
    """A run's recorded calls, grouped by tool on first need, and each tool's description
    written once: every dispatch check on a tool shows all of its calls, so a case with k
    such checks would otherwise describe k calls k times over."""

    def __init__(self, calls: list[RecordedCall]) -> None:
        self.calls = calls
        self._by_tool: dict[str, list[RecordedCall]] | None = None
        self._described: dict[tuple[str, bool], str] = {}

    def to(self, tool: str) -> list[RecordedCall]:
        """The calls to `tool`, in the order they were made."""
        if self._by_tool is None:
            self._by_tool = {}
            for call in self.calls:
                self._by_tool.setdefault(call.name, []).append(call)
        return self._by_tool.get(tool, [])

    def described(self, tool: str, *, results: bool) -> str:
        """`describe_calls` of the calls to `tool`."""
        key = (tool, results)
        text = self._described.get(key)
        if text is None:
            text = self._described[key] = describe_calls(self.to(tool), results=results)
        return text


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
