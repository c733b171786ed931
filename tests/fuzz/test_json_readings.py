"""The two readings of fixture text agree: the compiled fast path (`parse_json`) answers
only where the reference reading (`reference_parse`, the standard parser with its hooks)
would give the same data and flag nothing; everything else is the reference's answer.

Inputs are JSON texts built to hit every place the readings could part: duplicate keys
(also spelled with escapes), numbers that overflow a float or are too long for an int,
`NaN` and the infinities, lone and paired surrogate escapes, control characters,
nesting around each parser's limit, `null` (which the fast path's check looks for), and
the shipped fixtures mutated and then damaged byte by byte.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, strategies as st

from tests.fuzz.mutations import DAMAGE, Damage, mutated
from zeroclaw_eval._support.json.text import ParsedJson, parse_json, reference_parse


def same_data(left: Any, right: Any) -> bool:
    """Equal as JSON data and of the very same types (`True == 1` and `0.0 == -0.0` in
    Python; not here), with keys in the same order. Walked without recursion: the data
    may be nested as deep as the reference reading accepts."""
    pending = [(left, right)]
    while pending:
        a, b = pending.pop()
        if type(a) is not type(b):
            return False
        if isinstance(a, dict):
            if list(a) != list(b):
                return False
            pending.extend((a[key], b[key]) for key in a)
        elif isinstance(a, list):
            if len(a) != len(b):
                return False
            pending.extend(zip(a, b, strict=True))
        elif isinstance(a, float):
            if repr(a) != repr(b) and not (math.isnan(a) and math.isnan(b)):
                return False
        elif a != b:
            return False
    return True


def assert_same_reading(raw: bytes) -> None:
    fast = parse_json(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return  # refused before either reading, the same way
    if raw.startswith(b"\xef\xbb\xbf") or not raw.strip(b" \t\n\r"):
        return  # likewise (a BOM, an empty file)
    reference: ParsedJson = reference_parse(text)
    assert fast.text == reference.text
    assert fast.fatal == reference.fatal, (raw[:200], fast.problems, reference.problems)
    assert fast.problems == reference.problems, raw[:200]
    assert same_data(fast.data, reference.data), raw[:200]


_NUMBERS = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.from_regex(r"-?(0|[1-9][0-9]{0,24})(\.[0-9]{1,20})?([eE][-+]?[0-9]{1,4})?", fullmatch=True),
    st.sampled_from(
        [
            "1e999",
            "-1e400",
            "1E+308",
            "1.7976931348623157e308",
            "1.8e308",
            "2e-400",
            "-0",
            "-0.0",
            "NaN",
            "Infinity",
            "-Infinity",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775809",
            "1" * 309,
            "1" * 4300,
            "1" * 4301,
        ]
    ),
)
_STRINGS = st.one_of(
    st.text(max_size=20).map(json.dumps),  # non-ASCII and lone surrogates as escapes
    st.text(st.characters(exclude_categories=["Cs"]), max_size=20).map(
        lambda s: json.dumps(s, ensure_ascii=False)
    ),
    st.sampled_from(
        [
            '"\\ud800"',
            '"\\udc00x"',
            '"\\ud83d\\ude00"',
            '"\\ud800\\u0041"',
            '"a\\u0000b"',
            '"\x01"',
            '"\t"',
            '"null"',
            '"\\/"',
            '"\\x41"',
        ]
    ),
)
_KEYS = st.one_of(st.sampled_from(['"a"', '"\\u0061"', '"b"', '"null"']), _STRINGS)
_SCALARS = st.one_of(st.sampled_from(["true", "false", "null"]), _NUMBERS, _STRINGS)
_SPACE = st.sampled_from(["", "", " ", "\n  ", "\t", "\r\n", "\x0c", "\xa0"])


def _array(items: list[tuple[str, str]]) -> str:
    return "[" + ",".join(space + item for space, item in items) + "]"


def _object(pairs: list[tuple[str, str, str]]) -> str:
    return "{" + ",".join(f"{space}{key}:{value}" for space, key, value in pairs) + "}"


_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(st.tuples(_SPACE, inner), max_size=5).map(_array),
        st.lists(st.tuples(_SPACE, _KEYS, inner), max_size=5).map(_object),
    ),
    max_leaves=30,
)
_NESTED = st.tuples(st.integers(150, 1100), st.sampled_from(["[", '{"a":['])).map(
    lambda deep: deep[1] * deep[0] + "1" + ("]" if deep[1] == "[" else "]}") * deep[0]
)
_TEXTS = st.one_of(
    _VALUES, _NESTED, st.tuples(_VALUES, _SPACE, st.sampled_from(["", "x", ",1", "]"])).map("".join)
)


@given(text=_TEXTS, damage=DAMAGE)
def test_the_fast_reading_agrees_with_the_reference_on_any_json_text(text: str, damage: Damage) -> None:
    assert_same_reading(damage.apply(text))


@given(text=mutated(), damage=DAMAGE)
def test_the_fast_reading_agrees_with_the_reference_on_mutated_fixtures(text: str, damage: Damage) -> None:
    assert_same_reading(damage.apply(text))
