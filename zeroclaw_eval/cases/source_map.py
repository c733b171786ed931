"""Where a node of a JSON text is: JSON pointer -> line and column, found on demand.

`json.loads` is fast but says nothing about positions. A report points into a fixture
only where something is wrong (a rejection, a failing check), so a position is measured
only when asked for, by walking from the root along the pointer: each container on the
way is entered, the members before the wanted one are skipped (`scan.value_end`,
which never decodes them), and the nodes on the way are remembered for the next
question. Time is linear in the text before the node; memory holds the path only. No
library offers positions by JSON pointer over a C-speed parse, so it is written here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from zeroclaw_eval._support.json.pointer import parent_pointer
from zeroclaw_eval._support.json.scan import skip_ws, string_end, value_end
from zeroclaw_eval.cases.location import Position

#: How many levels of a looked-up path are remembered for the next lookup.
_CACHED_LEVELS = 16


@dataclass(frozen=True)
class _Span:
    """Where a node starts (and its key, for an object member); its end is measured only
    for the node a position is asked of, as measuring every ancestor's end on the way
    down would cross the text once per level."""

    start: int
    key_start: int | None = None
    key_end: int | None = None


def offset_to_line_col(text: str, offset: int) -> tuple[int, int]:
    """Turn a character offset into a 1-based (line, column)."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


class SourceMap:
    """Positions of the nodes of a JSON text (one `json.loads` accepted), by JSON pointer."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._spans: dict[str, _Span | None] = {}

    def position(self, pointer: str, *, at_key: bool = False) -> Position:
        """The position of the node at `pointer`, or of its nearest existing ancestor.

        With `at_key`, an object member is located at its key rather than its value.
        """
        probe = pointer
        span = self._span(probe)
        while span is None and probe:
            probe = parent_pointer(probe)
            at_key = False
            span = self._span(probe)
        if span is None:
            return Position(1, 1, 1, 1)
        if at_key and span.key_start is not None and span.key_end is not None:
            start, end = span.key_start, span.key_end
        else:
            start = span.start
            try:
                end = value_end(self.text, start)
            except IndexError:
                end = len(self.text)
        line, col = offset_to_line_col(self.text, start)
        end_line, end_col = offset_to_line_col(self.text, end)
        return Position(line, col, end_line, end_col)

    def has(self, pointer: str) -> bool:
        """True when `pointer` names a node that exists in the text."""
        return self._span(pointer) is not None

    def _span(self, pointer: str) -> _Span | None:
        """The span at `pointer`, walking down from the deepest ancestor already measured.

        A loop, not recursion (a pointer may be as deep as the text); only the first
        `_CACHED_LEVELS` levels of a path are remembered, so a deep pointer costs neither
        quadratic time nor memory."""
        if pointer in self._spans:
            return self._spans[pointer]
        if "" not in self._spans:
            start = skip_ws(self.text, 0)
            self._spans[""] = _Span(start) if start < len(self.text) else None
        raws = pointer.split("/")[1:]
        prefixes = [""]
        for raw in raws[:_CACHED_LEVELS]:
            prefixes.append(f"{prefixes[-1]}/{raw}")
        level = max(n for n, prefix in enumerate(prefixes) if prefix in self._spans)
        span = self._spans[prefixes[level]]
        for raw in raws[level:]:
            if span is None:
                break
            level += 1
            token = raw.replace("~1", "/").replace("~0", "~")
            try:
                span = self._child(span.start, token)
            except (IndexError, ValueError):  # text that is not JSON: no position, no crash
                span = None
            if level < len(prefixes):
                self._spans[prefixes[level]] = span
        self._spans[pointer] = span
        return span

    def _child(self, start: int, token: str) -> _Span | None:
        """The member `token` of the container that opens at `start`: for a repeated key
        (which admission rejects where it stands) the first, so that the scan stops there."""
        text = self.text
        if text[start] == "[":
            # An array index is digits without a leading zero (RFC 6901 section 4).
            if not (token.isascii() and token.isdigit()) or (len(token) > 1 and token[0] == "0"):
                return None
            wanted = int(token)
            i = skip_ws(text, start + 1)
            if text[i] == "]":
                return None
            index = 0
            while True:
                if index == wanted:
                    return _Span(i)
                i = skip_ws(text, value_end(text, i))
                if text[i] != ",":
                    return None
                i = skip_ws(text, i + 1)
                index += 1
        if text[start] != "{":
            return None
        i = skip_ws(text, start + 1)
        if text[i] == "}":
            return None
        while True:
            key_end = string_end(text, i)
            value_start = skip_ws(text, skip_ws(text, key_end) + 1)
            if _key_is(text, i, key_end, token):
                return _Span(value_start, i, key_end)
            i = skip_ws(text, value_end(text, value_start))
            if text[i] != ",":
                return None
            i = skip_ws(text, i + 1)


def _key_is(text: str, start: int, end: int, token: str) -> bool:
    """Whether the key literal `text[start:end]` spells `token`; a key too long to spell it
    (even with every character escaped) is not even sliced."""
    if end - start - 2 > 12 * len(token) + 12:
        return False
    inner = text[start + 1 : end - 1]
    if "\\" not in inner:
        return inner == token
    return bool(json.loads(text[start:end]) == token)
