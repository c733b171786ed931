"""`zeroclaw_eval._support.json.scan`: value ends and text-level problems, measured in
linear time without recursion; lone surrogates in keys rejected where they stand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.builders import line_col, minimal_fixture, only_problem_at, position, reject
from zeroclaw_eval._support.json.scan import (
    depth_offset,
    encodes,
    printable,
    string_end,
    text_problems,
    value_end,
    well_formed,
    well_formed_json,
)


@pytest.mark.parametrize(
    ("literal", "after"),
    [('"plain"', ""), ('"a \\" quote"', ""), ('"ends in \\\\"', ""), ('"\\\\\\""', ""), ('"x"', ', "y"')],
)
def test_string_end_honours_escaped_quotes_and_backslashes(literal: str, after: str) -> None:
    assert string_end(literal + after, 0) == len(literal)


def test_value_end_skips_brackets_inside_strings() -> None:
    text = '{"a": ["]", "}", {"b": "[{"}], "c": 1} tail'
    assert value_end(text, 0) == text.index(" tail")


@pytest.mark.parametrize(
    ("section", "key_prefix"),
    [
        ({"setup": {"workspace_files": {"KEY": "x"}}}, "/setup/workspace_files/"),
        ({"expects": {"workspace": {"file_contains": {"KEY": ["x"]}}}}, "/expects/workspace/file_contains/"),
        ({"expects": {"response_json": {"/KEY": 1}}}, "/expects/response_json/~1"),
    ],
)
def test_a_lone_surrogate_in_a_key_is_rejected_at_the_key(
    tmp_path: Path, section: dict[str, object], key_prefix: str
) -> None:
    text = json.dumps(minimal_fixture(**section), indent=2).replace("KEY", "\\ud800")
    rejected = reject(tmp_path, text)
    problem = only_problem_at(rejected, key_prefix + "\\ud800")
    assert "surrogate" in problem.message
    assert position(problem) == line_col(text, '"' + ("/" if "~1" in key_prefix else "") + "\\ud800")
    for each in rejected.problems:  # every problem can be printed (and so reported)
        each.describe("case.json").encode("utf-8")


def test_a_rejected_fixture_keeps_a_printable_model_name(tmp_path: Path) -> None:
    text = json.dumps(minimal_fixture(model_name="KEY")).replace("KEY", "a\\udfff")
    rejected = reject(tmp_path, text)
    assert rejected.model_name == "a\\udfff"


def test_the_problem_scan_is_a_loop_not_recursion() -> None:
    deep = "[" * 50_000 + '{"k": 1, "k": NaN}' + "]" * 50_000
    problems = text_problems(deep)
    assert [p.message.split()[0] for p in problems] == ["duplicate", "NaN"]
    assert problems[0].pointer == "/0" * 50_000 + "/k"


def test_depth_offset_finds_the_first_bracket_past_the_limit() -> None:
    assert depth_offset('["[[[[", [[1]]]', 3) is None
    assert depth_offset('["[[[[", [[[1]]]]', 3) == 11


def test_printable_escapes_only_lone_surrogates() -> None:
    assert printable("東京 \U0001f600") == "東京 \U0001f600"
    assert printable("a\ud800b") == "a\\ud800b"


def test_well_formed_replaces_only_lone_surrogates() -> None:
    assert well_formed("東京 \U0001f600") == "東京 \U0001f600"
    assert well_formed("a\ud800b\udfff") == "a\ufffdb\ufffd"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a":"x\\ud800y"}', '{"a":"x\ufffdy"}'),  # a lone escape: replaced
        ('{"a":"\\ud83d\\ude00"}', '{"a":"\\ud83d\\ude00"}'),  # a pair: kept as written
        ('{"a":"\\\\ud800"}', '{"a":"\\\\ud800"}'),  # an escaped backslash, no escape
        ('{"k\\udc00":1, "b": [1, "\\ud800"]}', '{"k\ufffd":1, "b": [1, "\ufffd"]}'),
        ("not json \\ud800 {", "not json \\ud800 {"),  # no JSON: left as the model wrote it
        ('{"a":"\ud800"}', '{"a":"\ufffd"}'),  # a lone surrogate itself
    ],
)
def test_well_formed_json_rewrites_only_the_literals_of_lone_surrogates(text: str, expected: str) -> None:
    fixed = well_formed_json(text)
    assert fixed == expected
    assert encodes(fixed)
    try:
        parsed = json.loads(fixed)
    except ValueError:
        return
    assert not text_problems(json.dumps(parsed))
