"""`zeroclaw_eval.cases.source_map`: positions by JSON pointer, measured apart from the scanner."""

from __future__ import annotations

import tracemalloc

from tests.support.builders import line_col
from zeroclaw_eval.cases.location import Position
from zeroclaw_eval.cases.source_map import SourceMap, offset_to_line_col

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


def test_offset_to_line_col_is_one_based() -> None:
    text = "ab\ncd\n"
    assert offset_to_line_col(text, 0) == (1, 1)
    assert offset_to_line_col(text, 1) == (1, 2)
    assert offset_to_line_col(text, 3) == (2, 1)
    assert offset_to_line_col(text, 4) == (2, 2)


def test_finding_a_position_past_a_huge_string_allocates_nothing_per_character() -> None:
    # The old regex scan kept ~120 bytes of state per character of a string (2.5 GB for a
    # 20 MB fixture); skipping a string now allocates nothing whatever its length.
    text = '{"result": "' + "x\\n" * 1_000_000 + '", "after": [1, {"deep": true}]}'
    tracemalloc.start()
    try:
        pos = SourceMap(text).position("/after/1/deep", at_key=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (pos.line, pos.col) == line_col(text, '"deep"')
    assert peak < len(text) // 10


def test_a_pointer_as_deep_as_the_text_is_found_without_recursion() -> None:
    text = "[" * 20_000 + "7" + "]" * 20_000
    pos = SourceMap(text).position("/0" * 20_000)
    assert (pos.line, pos.col) == (1, 20_001)
