"""The two writers of indented JSON agree: `pretty_json` takes orjson's text only where it
is the standard module's `indent=2` text byte for byte (fixtures written by `import`,
`capture`, `new` and `init` must not change with the writer).

Values are built to hit every place the writers part: floats of every magnitude (orjson
spells those below 1e-4 its own way), NaN and the infinities (orjson writes `null`),
integers past 64 bits, lone surrogates, control characters and the characters JSON
escapes, text that looks like what the fast path's check looks for, keys that are not
strings, subclasses of str and int, nesting around orjson's limit, and the shipped
fixtures mutated.
"""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest
from hypothesis import example, given, strategies as st

from tests.fuzz.mutations import mutated
from zeroclaw_eval._support.json.text import loads_strict, pretty_json


class _Colour(str, enum.Enum):
    RED = "red"


class _Size(enum.IntEnum):
    LARGE = 3


def _standard(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


_FLOATS = st.one_of(
    st.floats(),  # NaN and the infinities included
    st.sampled_from([1e-5, 1.5e-7, 9.99e-5, 1e-4, 0.0001234, 5e-324, 1e16, 1e22, -0.0, 0.0]),
    st.tuples(st.integers(1, 9999), st.integers(-12, 20)).map(lambda pair: float(f"{pair[0]}e{pair[1]}")),
)
_INTEGERS = st.one_of(
    st.integers(-(2**63), 2**64 - 1),
    st.sampled_from([2**63, 2**64, -(2**63) - 1, 10**30]),
)
_TEXT = st.one_of(
    st.text(st.characters(codec=None, exclude_categories=())),  # lone surrogates too
    st.sampled_from(["null", "1e-5", "0.00001", "v1.2e-3", '"\\/\b\f\n\r\t', "\x00\x1f\x7f\u2028\u2029"]),
)
_SCALARS = st.one_of(st.none(), st.booleans(), _INTEGERS, _FLOATS, _TEXT)
_KEYS = st.one_of(_TEXT, st.integers(-5, 5), st.booleans(), st.none(), st.just(_Colour.RED))
_VALUES = st.recursive(
    st.one_of(_SCALARS, st.sampled_from([_Colour.RED, _Size.LARGE])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(_KEYS, inner, max_size=5),
    ),
    max_leaves=30,
)


def _nested(depth: int) -> Any:
    value: Any = "x"
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


@given(value=_VALUES)
@example(value={"ratio": 1e-5, "tiny": [1.5e-7]})
@example(value={"x": float("nan"), "y": None})
@example(value={"big": 2**64})
@example(value={1: "one"})
@example(value="\ud800")
def test_any_value_is_written_as_the_standard_module_writes_it(value: Any) -> None:
    assert pretty_json(value) == _standard(value)


@pytest.mark.parametrize("depth", [1, 254, 255, 256, 300])
def test_nesting_around_orjsons_limit_is_written_as_the_standard_module_writes_it(depth: int) -> None:
    value = _nested(depth)
    assert pretty_json(value) == _standard(value)


@given(text=mutated())
def test_a_mutated_shipped_fixture_is_written_as_the_standard_module_writes_it(text: str) -> None:
    try:
        value = loads_strict(text)
    except ValueError:
        return  # text no fixture reader accepts is never written back
    assert pretty_json(value) == _standard(value)
