"""`zeroclaw_eval._support.json.text`: strict parsing that never raises, and strict loads."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.builders import line_col
from zeroclaw_eval._support.json import text as json_text
from zeroclaw_eval._support.json.text import (
    compact_json,
    json_equal,
    loads_strict,
    loads_untrusted,
    parse_json,
    reference_parse,
)
from zeroclaw_eval.cases.source_map import offset_to_line_col


def test_parse_json_flags_duplicate_key_at_second_occurrence() -> None:
    text = '{"a": 1,\n "a": 2}'
    parsed = parse_json(text.encode())
    assert not parsed.fatal
    assert [p.pointer for p in parsed.problems] == ["/a"]
    assert offset_to_line_col(text, parsed.problems[0].offset) == line_col(text, '"a"', occurrence=2)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_parse_json_flags_non_finite_numbers(literal: str) -> None:
    text = '{"x": [1, ' + literal + "]}"
    parsed = parse_json(text.encode())
    assert [p.pointer for p in parsed.problems] == ["/x/1"]
    assert parsed.problems[0].offset == text.index(literal)
    assert literal in parsed.problems[0].message


def test_parse_json_accepts_valid_surrogate_pair_and_flags_lone_one() -> None:
    good = parse_json(b'{"s": "\\ud83d\\ude00"}')
    assert good.problems == []
    assert good.data == {"s": "\U0001f600"}
    bad = parse_json(b'{"s": "x\\ud800"}')
    assert [p.pointer for p in bad.problems] == ["/s"]
    assert "surrogate" in bad.problems[0].message


def test_parse_json_never_raises_on_garbage() -> None:
    for raw in (b"", b"{", b"\xff", b"[" * 100000, b"\xef\xbb\xbf{}"):
        parsed = parse_json(raw)
        assert parsed.fatal
        assert parsed.data is None
        assert parsed.problems


def test_a_plain_fixture_is_read_by_the_fast_path_and_as_the_reference_reads_it() -> None:
    raw = '{"model_name": "m", "turns": [{"user_input": "héllo", "steps": []}], "n": [1, -0.5, 2e3, true]}'
    assert json_text._quick(raw.encode(), raw) is not json_text._UNREAD  # the fast path is live
    fast, reference = parse_json(raw.encode()), reference_parse(raw)
    assert fast.problems == reference.problems == []
    assert fast.data == reference.data
    assert [type(v) for v in fast.data["n"]] == [int, float, float, bool]


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ('{"a": 1e999}', True),  # the fast parser reads infinity: left to the reference
        ('{"a": [-1e400]}', True),
        (r'{"a": 1, "\u0061": 2}', True),  # a duplicate key, spelled with an escape
        ('{"a": NaN}', True),
        (r'{"a": "\ud800"}', True),
        ('{"a": "' + "x" * 10 + r'\udc00"}', True),
        ('{"a": ' + "1" * 4301 + "}", True),  # more digits than the interpreter converts
        ('{"a": 18446744073709551616}', False),  # beyond 64 bits: orjson refuses, the reference reads
        ('{"a": null}', False),  # a null: the reference reads it (admission rejects it later)
        ('{"a": "null"}', False),
        ("[" * 300 + "]" * 300, False),  # past the fast parser's nesting limit
    ],
)
def test_whatever_the_fast_path_cannot_vouch_for_is_read_as_the_reference_reads_it(
    text: str, flagged: bool
) -> None:
    assert json_text._quick(text.encode(), text) is json_text._UNREAD
    fast, reference = parse_json(text.encode()), reference_parse(text)
    assert (fast.problems, fast.fatal, repr(fast.data)) == (
        reference.problems,
        reference.fatal,
        repr(reference.data),
    )
    assert bool(fast.problems) == flagged


def test_loads_strict_rejects_non_finite_constants() -> None:
    assert loads_strict('{"a": 1.5}') == {"a": 1.5}
    with pytest.raises(ValueError, match="NaN"):
        loads_strict("NaN")
    with pytest.raises(ValueError, match="Infinity"):
        loads_strict("[-Infinity]")


@pytest.mark.parametrize("loads", [loads_strict, loads_untrusted])
@pytest.mark.parametrize("text", ["[" * 100_000, '{"a":' * 5_000 + "1" + "}" * 5_000])
def test_nesting_deeper_than_the_parser_recurses_is_a_value_error(loads: Any, text: str) -> None:
    # Callers catch ValueError for text that is not JSON; a RecursionError would pass them.
    with pytest.raises(ValueError, match="nested too deep to parse"):
        loads(text)


def test_loads_untrusted_reads_text_and_bytes_as_json_loads_does() -> None:
    assert loads_untrusted(b'{"a": [1, 2]}') == {"a": [1, 2]}
    with pytest.raises(ValueError, match="Expecting property name"):
        loads_untrusted("{not json")


def test_compact_json_uses_tight_separators_key_order_and_keeps_non_ascii() -> None:
    value = {"z": 1, "a": ["東京", {"k": None}], "m": True}
    assert compact_json(value) == '{"z":1,"a":["東京",{"k":null}],"m":true}'


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (1, 1.0),
        (0, -0.0),
        ({"a": [1, {"b": 2.0}]}, {"a": [1.0, {"b": 2}]}),
        ("x", "x"),
        (None, None),
        (True, True),
        ([], []),
    ],
)
def test_json_equal_holds(left: Any, right: Any) -> None:
    assert json_equal(left, right)
    assert json_equal(right, left)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (True, 1),
        (False, 0),
        (1, "1"),
        (None, False),
        (None, 0),
        ([1, 2], [2, 1]),
        ([1], [1, 1]),
        ({"a": 1}, {"a": 1, "b": 2}),
        ({"a": True}, {"a": 1}),
        ({"a": [True]}, {"a": [1.0]}),
        ("1", 1),
        ({}, []),
    ],
)
def test_json_equal_does_not_hold(left: Any, right: Any) -> None:
    assert not json_equal(left, right)
    assert not json_equal(right, left)


@pytest.mark.parametrize(
    ("arguments", "text"),
    [
        ('{"city": "Paris"}', '{"city": "Paris"}'),  # text as the model sent it, spaces and all
        ("not json", "not json"),  # malformed arguments are kept
        (None, "{}"),  # no arguments at all
        ({"b": 1, "a": "東京"}, '{"b":1,"a":"東京"}'),  # an object: compact, keys in order, non-ASCII kept
        ([1, 2], "[1,2]"),
    ],
)
def test_arguments_have_one_spelling_as_text(arguments: Any, text: str) -> None:
    assert json_text.arguments_text(arguments) == text
