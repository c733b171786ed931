"""JSON text measured without being parsed again: where a value ends, how deep it nests,
and the problems `json.loads` lets through, each at its offset.

Every scan here is linear in the text and holds only the open containers: a string is
crossed with `str.find` (a regex alternation would keep state per character, about 120
bytes each), and no string is decoded unless it holds a surrogate escape. The text has
passed `json.loads` already (except in `depth_offset`, which looks at text it refused),
so the grammar is trusted and only measured.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from zeroclaw_eval._support.json.pointer import join_pointer

WS = re.compile(r"[ \t\n\r]*")
#: What a container skip stops at: brackets, and strings (which may hold brackets).
_STRUCTURE = re.compile(r'["\[\]{}]')
_SCALAR = re.compile(r"-?Infinity|NaN|true|false|null|[-+0-9.eE]+")
_NON_FINITE = ("-Infinity", "Infinity", "NaN")
#: A surrogate escape may be half of a valid pair; matching one only means "look closer".
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


@dataclass(frozen=True)
class JsonProblem:
    """Something wrong with the JSON text itself, at a character offset."""

    pointer: str
    offset: int
    message: str


def skip_ws(text: str, i: int) -> int:
    """The offset of the first non-whitespace character at or after `i`."""
    return WS.match(text, i).end()  # type: ignore[union-attr]


def string_end(text: str, i: int) -> int:
    """The offset just after the string literal that opens at `i`."""
    j = i + 1
    while True:
        j = text.find('"', j)
        if j < 0:
            return len(text)
        k = j
        while text[k - 1] == "\\":  # a quote after an odd run of backslashes is escaped
            k -= 1
        if (j - k) % 2 == 0:
            return j + 1
        j += 1


def value_end(text: str, i: int) -> int:
    """The offset just after the JSON value that starts at `i`."""
    char = text[i]
    if char == '"':
        return string_end(text, i)
    if char not in "{[":
        scalar = _SCALAR.match(text, i)
        return scalar.end() if scalar else i + 1
    for offset, depth in _brackets(text, i):
        if depth == 0:
            return offset + 1
    return len(text)


def depth_offset(text: str, limit: int) -> int | None:
    """The offset of the first bracket that opens level `limit + 1`, or None when the
    text nests no deeper than `limit` (strings are skipped, so their brackets do not count)."""
    for offset, depth in _brackets(text, 0):
        if depth > limit:
            return offset
    return None


def _brackets(text: str, start: int) -> Iterator[tuple[int, int]]:
    """Each bracket from `start` on, outside strings, with the depth it leaves the text
    at: one linear scan, in a loop (no recursion however deep the nesting)."""
    depth, j = 0, start
    while True:
        found = _STRUCTURE.search(text, j)
        if found is None:
            return
        j = found.end()
        mark = found.group()
        if mark == '"':
            j = string_end(text, found.start())
            continue
        depth += 1 if mark in "{[" else -1
        yield found.start(), depth


def encodes(text: str) -> bool:
    """Whether `text` encodes as UTF-8: it holds no lone surrogate."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def printable(text: str) -> str:
    """`text` with each lone surrogate written as its `\\udXXX` escape, so that it can be
    encoded (printed, written to a report) wherever it is shown."""
    return text if encodes(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")


#: A surrogate code point: in a str a JSON parser made, always a lone one (it joins pairs).
_SURROGATE_CHAR = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD, as a UTF-8 decoder replaces
    what it cannot read: for text from outside that must be carried on as UTF-8 (into a
    fixture, to a judge). (`printable` writes it as a visible escape, for text only shown.)"""
    return text if encodes(text) else _SURROGATE_CHAR.sub("\ufffd", text)


#: A JSON string literal (used only on text known to hold a surrogate escape).
_STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def well_formed_json(text: str) -> str:
    """JSON text (or text meant as JSON: a model's tool-call arguments) with each string
    literal that decodes to a lone surrogate written again with U+FFFD in its place, so
    the value it parses to is UTF-8 text too; everything else as it was written."""

    def fixed(found: re.Match[str]) -> str:
        literal = found.group()
        try:
            if not _unencodable(literal, 0, len(literal)):
                return literal
        except ValueError:  # not a literal JSON reads: text that is no JSON at all
            return literal
        return json.dumps(well_formed(json.loads(literal)), ensure_ascii=False)

    text = well_formed(text)
    return _STRING_LITERAL.sub(fixed, text) if SURROGATE_ESCAPE.search(text) else text


def _unencodable(text: str, start: int, end: int) -> bool:
    """Whether the string literal `text[start:end]` decodes to a lone surrogate."""
    return bool(SURROGATE_ESCAPE.search(text, start, end)) and not encodes(json.loads(text[start:end]))


_SURROGATE = "holds an unpaired UTF-16 surrogate escape, which no file, pointer or report can encode"


def text_problems(text: str) -> list[JsonProblem]:
    """Duplicate keys, `NaN`/`Infinity`, numbers no reader can hold, and lone surrogate
    escapes (in keys and values) of text `json.loads` accepted, each where it stands."""
    problems: list[JsonProblem] = []
    path: list[str | int | None] = []  # the key or index of each open container's member
    seen: list[set[str] | None] = []  # the keys met so far in each open object (None: array)

    def pointer() -> str:
        return join_pointer("", *(printable(t) if isinstance(t, str) else t for t in path if t is not None))

    def member(i: int) -> int:
        """Read the key at `i` into the innermost object; the offset of its value."""
        end = string_end(text, i)
        key = json.loads(text[i:end])
        path[-1] = key
        keys = seen[-1]
        assert keys is not None
        if _unencodable(text, i, end):
            problems.append(JsonProblem(pointer(), i, f"the key {_SURROGATE}; rename it"))
        elif key in keys:
            shown = json.dumps(key, ensure_ascii=False)
            problems.append(JsonProblem(pointer(), i, f"duplicate key {shown} in one object"))
        keys.add(key)
        i = skip_ws(text, end)
        return skip_ws(text, i + 1)  # past the colon

    i = skip_ws(text, 0)
    while True:
        char = text[i]
        if char in "{[":
            i = skip_ws(text, i + 1)
            if text[i] in "}]":
                i += 1
            else:
                seen.append(set() if char == "{" else None)
                path.append(None if char == "{" else 0)
                if char == "{":
                    i = member(i)
                continue
        elif char == '"':
            end = string_end(text, i)
            if _unencodable(text, i, end):
                problems.append(JsonProblem(pointer(), i, f"string {_SURROGATE}"))
            i = end
        else:
            i = _scalar(text, i, pointer, problems)
        # After a value: close every container that ends here, then on to the next member.
        while True:
            i = skip_ws(text, i)
            if not seen or i >= len(text):
                return problems
            if text[i] == ",":
                i = skip_ws(text, i + 1)
                if seen[-1] is None:
                    index = path[-1]
                    assert isinstance(index, int)
                    path[-1] = index + 1
                else:
                    i = member(i)
                break
            seen.pop()
            path.pop()
            i += 1


def _scalar(text: str, i: int, pointer: Callable[[], str], problems: list[JsonProblem]) -> int:
    found = _SCALAR.match(text, i)
    if found is None:
        return i + 1
    literal = found.group()
    where = pointer()
    if literal in _NON_FINITE:
        problems.append(JsonProblem(where, i, f"{literal} is not valid JSON; use a number or a string"))
    elif literal not in ("true", "false", "null"):
        if not any(c in literal for c in ".eE"):
            try:
                int(literal)
            except ValueError:  # longer than the interpreter converts (4,300 digits)
                digits = len(literal.lstrip("-"))
                message = f"the integer has {digits} digits, more than any reader holds; use a smaller one"
                problems.append(JsonProblem(where, i, message))
        elif math.isinf(float(literal)):
            message = f"the number {literal[:40]} is too large to be written back out; use a smaller one"
            problems.append(JsonProblem(where, i, message))
    return found.end()
