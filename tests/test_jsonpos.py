"""Unit tests for `zeroclaw_eval.jsonpos`: strict parsing and positions by JSON pointer."""

from __future__ import annotations

import pytest

from tests.helpers import line_col
from zeroclaw_eval.fixtures.json_text import loads_strict, parse_json
from zeroclaw_eval.fixtures.location import Position
from zeroclaw_eval.fixtures.pointer import escape_pointer_token, join_pointer, parent_pointer
from zeroclaw_eval.fixtures.source_map import SourceMap, offset_to_line_col

TEXT = """{
  "name": "zeroclaw",
  "items": [
    [1, 2],
    [3, {"deep": true}]
  ],
  "a/b": "slash",
  "m~n": "tilde",
  "empty": {}
}"""


def test_value_position_is_the_value_not_the_key() -> None:
    source = SourceMap(TEXT)
    pos = source.position("/name")
    assert (pos.line, pos.col) == line_col(TEXT, '"zeroclaw"')
    # The span ends right after the closing quote of the value.
    start_line, start_col = line_col(TEXT, '"zeroclaw"')
    assert (pos.end_line, pos.end_col) == (start_line, start_col + len('"zeroclaw"'))


def test_key_position_with_at_key() -> None:
    source = SourceMap(TEXT)
    pos = source.position("/name", at_key=True)
    assert (pos.line, pos.col) == line_col(TEXT, '"name"')
    assert (pos.end_line, pos.end_col) == (pos.line, pos.col + len('"name"'))


def test_nested_array_positions() -> None:
    source = SourceMap(TEXT)
    assert (source.position("/items/0").line, source.position("/items/0").col) == line_col(TEXT, "[1, 2]")
    first = source.position("/items/0/1")
    assert (first.line, first.col) == line_col(TEXT, "2]")
    deep = source.position("/items/1/1/deep")
    assert (deep.line, deep.col) == line_col(TEXT, "true")
    deep_key = source.position("/items/1/1/deep", at_key=True)
    assert (deep_key.line, deep_key.col) == line_col(TEXT, '"deep"')


def test_at_key_on_array_element_falls_back_to_the_value() -> None:
    source = SourceMap(TEXT)
    assert source.position("/items/1", at_key=True) == source.position("/items/1")


def test_multi_line_span_end_position() -> None:
    source = SourceMap(TEXT)
    pos = source.position("/items")
    assert (pos.line, pos.col) == line_col(TEXT, "[\n")
    # The array closes with "]" on line 6, column 3; the end is just after it.
    assert (pos.end_line, pos.end_col) == (6, 4)
    root = source.position("")
    assert root == Position(1, 1, 10, 2)


def test_escaped_pointer_tokens_locate_keys_with_slash_and_tilde() -> None:
    source = SourceMap(TEXT)
    slash = source.position("/a~1b")
    assert (slash.line, slash.col) == line_col(TEXT, '"slash"')
    tilde = source.position("/m~0n", at_key=True)
    assert (tilde.line, tilde.col) == line_col(TEXT, '"m~n"')
    assert source.has("/a~1b")
    assert not source.has("/a/b")


def test_missing_pointer_falls_back_to_nearest_existing_ancestor() -> None:
    source = SourceMap(TEXT)
    assert not source.has("/items/1/1/missing/more")
    assert source.position("/items/1/1/missing/more") == source.position("/items/1/1")
    # at_key does not apply to the ancestor: the ancestor is located at its value.
    assert source.position("/empty/nothing", at_key=True) == source.position("/empty")
    assert source.position("/nope") == source.position("")


def test_columns_count_code_points() -> None:
    text = '{"k": "東京😀", "after": 1}'
    pos = SourceMap(text).position("/after", at_key=True)
    # 東, 京 and 😀 are one column each even though they take 3-4 bytes in UTF-8.
    assert (pos.line, pos.col) == (1, text.index('"after"') + 1)
    assert pos.col == 14


def test_pointer_helpers_escape_per_rfc6901() -> None:
    assert escape_pointer_token("a/b~c") == "a~1b~0c"
    # "~" is escaped first so "~1" in a key does not turn into "/".
    assert escape_pointer_token("~1") == "~01"
    assert (
        join_pointer("/expects", "file_contains", "dir/out.txt", 0) == "/expects/file_contains/dir~1out.txt/0"
    )
    assert join_pointer("") == ""
    assert parent_pointer("/a/b") == "/a"
    assert parent_pointer("/a") == ""
    assert parent_pointer("") == ""


def test_offset_to_line_col_is_one_based() -> None:
    text = "ab\ncd\n"
    assert offset_to_line_col(text, 0) == (1, 1)
    assert offset_to_line_col(text, 1) == (1, 2)
    assert offset_to_line_col(text, 3) == (2, 1)
    assert offset_to_line_col(text, 4) == (2, 2)


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


def test_loads_strict_rejects_non_finite_constants() -> None:
    assert loads_strict('{"a": 1.5}') == {"a": 1.5}
    with pytest.raises(ValueError, match="NaN"):
        loads_strict("NaN")
    with pytest.raises(ValueError, match="Infinity"):
        loads_strict("[-Infinity]")
