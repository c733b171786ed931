"""The matching rules graders apply: needles, JSON in a response, regexes.

Each rule is stated once, precisely, so two checks cannot disagree about what matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from zeroclaw_eval._support.json.pointer import MISSING
from zeroclaw_eval._support.json.scan import encodes
from zeroclaw_eval._support.json.text import compact_json, loads_strict
from zeroclaw_eval.cases.patterns import compile_regex

_SURROGATE = re.compile("[\ud800-\udfff]")
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
    if isinstance(arguments, dict):
        # Arguments are mostly an object of strings: read those without a generator each.
        for item in arguments.values():
            if isinstance(item, str):
                if needle in item:
                    return True
            elif any(needle in text for text in _strings(item)):
                return True
    elif any(needle in text for text in _strings(arguments)):
        return True
    return needle in compact_json(arguments)


def regex_search(pattern: str, text: str) -> bool:
    """Whether RE2 finds `pattern` anywhere in `text`. A lone surrogate in the text (a
    live model may send one) is searched as U+FFFD: RE2 reads only valid UTF-8."""
    if not encodes(text):
        text = _SURROGATE.sub("\ufffd", text)
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
