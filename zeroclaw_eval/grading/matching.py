"""The matching rules graders apply: needles, JSON in a response, JSON equality, regexes.

Each rule is stated once, precisely, so two checks cannot disagree about what matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from zeroclaw_eval.errors import InvalidRegex
from zeroclaw_eval.fixtures.json_text import compact_json, loads_strict
from zeroclaw_eval.fixtures.pointer import MISSING

# A fence is three or more backticks; it is closed by a line of at least as many (CommonMark).
_FENCE = re.compile(
    r"^[ \t]*(`{3,})[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)^[ \t]*\1`*[ \t]*$", re.DOTALL | re.MULTILINE
)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def arguments_contain(arguments: Any, needle: str) -> bool:
    """A needle matches arguments when it is in any string value (at any depth) or in
    the arguments' compact JSON text; raw (unparsed) argument text is searched as is."""
    if isinstance(arguments, str):
        return needle in arguments
    if any(needle in text for text in _strings(arguments)):
        return True
    return needle in compact_json(arguments)


@lru_cache(maxsize=512)
def compile_regex(pattern: str) -> Any:
    """Compile `pattern` with RE2, which matches in linear time whatever the input.

    RE2 leaves out backreferences and lookaround; such a pattern raises `InvalidRegex`.
    """
    import re2  # only cases with response_matches pay for the import

    options = re2.Options()
    options.log_errors = False  # RE2 would otherwise print parse errors to stderr
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else str(exc)
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", errors="replace")
        raise InvalidRegex(str(reason)) from None


def regex_search(pattern: str, text: str) -> bool:
    """Whether RE2 finds `pattern` anywhere in `text`."""
    return compile_regex(pattern).search(text) is not None


def response_as_json(response: str) -> Any:
    """The response parsed as JSON; else its first ```json block; else its first
    unlabelled fenced block. Returns `MISSING` when none parses."""
    candidates = [response]
    blocks = [(m.group(2), m.group(3)) for m in _FENCE.finditer(response)]
    labelled = [body for label, body in blocks if label.lower() == "json"]
    plain = [body for label, body in blocks if not label]
    if labelled:
        candidates.append(labelled[0])
    elif plain:
        candidates.append(plain[0])
    for text in candidates:
        try:
            return loads_strict(text)
        except ValueError:
            continue
    return MISSING


def json_equal(left: Any, right: Any) -> bool:
    """Equality as JSON: types must match (`true` is not `1`), numbers by value."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(json_equal, left, right))
    return type(left) is type(right) and bool(left == right)
