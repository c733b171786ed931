"""Strict JSON loading, with source positions found only when a report needs them.

Fixtures are parsed by the C-speed `json` module: a 1,000-case run must stay close to
the cost of a bare `json.load` loop. The standard parser is lenient in ways a fail-closed
gate cannot accept (duplicate keys silently keep the last value; `NaN` and `Infinity`
are accepted; `\\ud800` escapes make strings that cannot be written back out), so the
fast pass raises a flag when it meets one of them and a slow pass (`SourceMap`) then
finds exactly where. The slow pass is also what turns a JSON pointer into a line and
column, and it runs only for fixtures that a report points into (a rejection or a
failing check). No library offers this pair (a C-speed parse plus on-demand positions
by JSON pointer), so the scanner below is written here.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval.location import Position

_BOM = b"\xef\xbb\xbf"
_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_NON_FINITE = ("-Infinity", "Infinity", "NaN")
# A surrogate escape may be half of a valid pair; matching it only sends the text to the
# slow pass, which decides.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def escape_pointer_token(token: str) -> str:
    """Escape one reference token for a JSON pointer (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


def join_pointer(base: str, *tokens: str | int) -> str:
    """Append reference tokens to a JSON pointer."""
    return base + "".join("/" + escape_pointer_token(str(t)) for t in tokens)


def parent_pointer(pointer: str) -> str:
    """The pointer of the node that holds `pointer` (the root is its own parent)."""
    return pointer.rsplit("/", 1)[0] if pointer else ""


@dataclass(frozen=True)
class JsonProblem:
    """Something wrong with the JSON text itself, at a character offset."""

    pointer: str
    offset: int
    message: str


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    key_start: int | None = None
    key_end: int | None = None


@dataclass
class ParsedJson:
    """The result of `parse_json`: the data (None when unreadable) and the problems."""

    text: str
    data: Any
    problems: list[JsonProblem] = field(default_factory=list)
    fatal: bool = False


def offset_to_line_col(text: str, offset: int) -> tuple[int, int]:
    """Turn a character offset into a 1-based (line, column)."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def parse_json(raw: bytes) -> ParsedJson:
    """Parse fixture bytes strictly; never raises for bad input."""
    if raw.startswith(_BOM):
        text = raw[len(_BOM) :].decode("utf-8", errors="replace")
        message = "file starts with a UTF-8 byte order mark (BOM); save it as UTF-8 without BOM"
        return ParsedJson(text, None, [JsonProblem("", 0, message)], fatal=True)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = raw[: exc.start].decode("utf-8")
        message = f"invalid UTF-8: byte 0x{raw[exc.start]:02x} cannot start or continue a character"
        return ParsedJson(good, None, [JsonProblem("", len(good), message)], fatal=True)

    flagged = False

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal flagged
        obj = dict(pairs)
        if len(obj) != len(pairs):
            flagged = True
        return obj

    def constant_hook(name: str) -> float:
        nonlocal flagged
        flagged = True
        return float(name)

    def float_hook(text: str) -> float:
        nonlocal flagged
        value = float(text)
        if math.isinf(value):  # 1e999: as unwritable as Infinity itself
            flagged = True
        return value

    try:
        data = json.loads(
            text, object_pairs_hook=pairs_hook, parse_constant=constant_hook, parse_float=float_hook
        )
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg}"
        if exc.msg == "Extra data":
            message = "invalid JSON: unexpected data after the end of the top-level value"
        return ParsedJson(text, None, [JsonProblem("", exc.pos, message)], fatal=True)
    except RecursionError:
        message = "invalid JSON: values are nested too deeply"
        return ParsedJson(text, None, [JsonProblem("", 0, message)], fatal=True)

    parsed = ParsedJson(text, data)
    if flagged or _SURROGATE_ESCAPE.search(text):
        parsed.problems.extend(SourceMap(text).problems)
    return parsed


class SourceMap:
    """Positions of every node of a JSON text, addressed by JSON pointer.

    Built by one scan of text that `json.loads` already accepted, so the scanner can
    trust the grammar and only has to measure.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._spans: dict[str, _Span] = {}
        self.problems: list[JsonProblem] = []
        try:
            self._value(_WS.match(text, 0).end(), "")  # type: ignore[union-attr]
        except (RecursionError, IndexError, AttributeError):
            # Positions are a courtesy on top of an already-made verdict: a text too deep
            # to scan still gets reported, at the nearest node that was measured.
            pass

    def position(self, pointer: str, *, at_key: bool = False) -> Position:
        """The position of the node at `pointer`, or of its nearest existing ancestor.

        With `at_key`, an object member is located at its key rather than its value.
        """
        probe = pointer
        while probe not in self._spans and probe:
            probe = parent_pointer(probe)
            at_key = False
        span = self._spans.get(probe)
        if span is None:
            return Position(1, 1, 1, 1)
        if at_key and span.key_start is not None and span.key_end is not None:
            start, end = span.key_start, span.key_end
        else:
            start, end = span.start, span.end
        line, col = offset_to_line_col(self.text, start)
        end_line, end_col = offset_to_line_col(self.text, end)
        return Position(line, col, end_line, end_col)

    def has(self, pointer: str) -> bool:
        """True when `pointer` names a node that exists in the text."""
        return pointer in self._spans

    def _skip(self, i: int) -> int:
        return _WS.match(self.text, i).end()  # type: ignore[union-attr]

    def _value(self, i: int, pointer: str, key: tuple[int, int] | None = None) -> int:
        text = self.text
        char = text[i]
        if char == "{":
            end = self._object(i, pointer)
        elif char == "[":
            end = self._array(i, pointer)
        elif char == '"':
            end = _STRING.match(text, i).end()  # type: ignore[union-attr]
            if _SURROGATE_ESCAPE.search(text, i, end):
                try:
                    json.loads(text[i:end]).encode("utf-8")
                except UnicodeEncodeError:
                    self.problems.append(
                        JsonProblem(pointer, i, "string holds an unpaired UTF-16 surrogate escape")
                    )
        else:
            number = _NUMBER.match(text, i)
            if number and number.end() > i:
                end = number.end()
                if math.isinf(float(number.group())):
                    message = (
                        f"the number {number.group()} is too large to be written back out; use a smaller one"
                    )
                    self.problems.append(JsonProblem(pointer, i, message))
            else:
                for literal in (*_LITERALS, *_NON_FINITE):
                    if text.startswith(literal, i):
                        end = i + len(literal)
                        if literal in _NON_FINITE:
                            message = f"{literal} is not valid JSON; use a number or a string"
                            self.problems.append(JsonProblem(pointer, i, message))
                        break
                else:
                    raise IndexError(i)
        key_start, key_end = key if key else (None, None)
        self._spans[pointer] = _Span(i, end, key_start, key_end)
        return end

    def _object(self, i: int, pointer: str) -> int:
        text = self.text
        seen: set[str] = set()
        i = self._skip(i + 1)
        if text[i] == "}":
            return i + 1
        while True:
            key_match = _STRING.match(text, i)
            assert key_match is not None
            key = json.loads(key_match.group())
            member = join_pointer(pointer, key)
            if key in seen:
                message = f"duplicate key {json.dumps(key, ensure_ascii=False)} in one object"
                self.problems.append(JsonProblem(member, i, message))
            seen.add(key)
            i = self._skip(key_match.end())
            i = self._skip(i + 1)  # the colon
            i = self._skip(self._value(i, member, (key_match.start(), key_match.end())))
            if text[i] == "}":
                return i + 1
            i = self._skip(i + 1)  # the comma

    def _array(self, i: int, pointer: str) -> int:
        text = self.text
        i = self._skip(i + 1)
        if text[i] == "]":
            return i + 1
        index = 0
        while True:
            i = self._skip(self._value(i, join_pointer(pointer, index)))
            index += 1
            if text[i] == "]":
                return i + 1
            i = self._skip(i + 1)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text} is out of range for a float")
    return value


def loads_strict(text: str) -> Any:
    """`json.loads` that refuses `NaN`, `Infinity` and numbers that overflow to infinity,
    so whatever it returns can be written back out as valid JSON (model output and tool
    arguments are parsed with this)."""
    return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
