"""`zeroclaw_eval.grading.matching`: needles, JSON in a response, RE2."""

from __future__ import annotations

from typing import Any

import pytest

from zeroclaw_eval._support.json.pointer import MISSING
from zeroclaw_eval.cases.patterns import regex_problem
from zeroclaw_eval.errors import EvalError, InvalidRegex
from zeroclaw_eval.grading.matching import arguments_contain, compile_regex, regex_search, response_as_json


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ({"message": "hello world"}, "lo wo"),
        ({"outer": {"inner": ["x", {"deep": "needle here"}]}}, "needle"),
        ({"city": '東京 "quoted"'}, '東京 "quoted"'),
        ({"message": "hi"}, '"message":"hi"'),
        ({"a": 1, "b": [True, None]}, '"b":[true,null]'),
        ({"a": 1, "b": 2}, '{"a":1,"b":2}'),
        ({"city": "東京"}, '{"city":"東京"}'),
        ({"n": 10}, "10"),
        # The compact JSON text holds the escaped form too, so that also matches.
        ({"city": '東京 "quoted"'}, '東京 \\"quoted\\"'),
    ],
    ids=[
        "substring",
        "deep",
        "quotes-decoded",
        "compact-pair",
        "compact-array",
        "whole",
        "non-ascii",
        "number",
        "quotes-escaped",
    ],
)
def test_needle_matches_string_values_or_compact_json(arguments: dict[str, Any], needle: str) -> None:
    assert arguments_contain(arguments, needle)


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ({"message": "hello"}, "goodbye"),
        ({"message": "hi"}, '"message": "hi"'),  # spaced separators are not the compact form
        ({"city": "東京"}, "\\u6771"),  # non-ASCII is kept, not escaped
        ({"a": 1, "b": 2}, '{"b":2,"a":1}'),  # keys stay in fixture order
        ({"key_name": "v"}, "key_name_x"),
    ],
    ids=["absent", "spaced", "ascii-escaped", "reordered", "longer-than-key"],
)
def test_needle_does_not_match(arguments: dict[str, Any], needle: str) -> None:
    assert not arguments_contain(arguments, needle)


@pytest.mark.parametrize(
    "arguments",
    [
        {"outer": {"inner": 'say "hi"\nnow'}},
        {"outer": ["x", ['say "hi"\nnow']]},
        ["x", {"inner": 'say "hi"\nnow'}],
    ],
    ids=["object-in-object", "list-in-object", "top-level-list"],
)
def test_a_needle_matches_a_string_at_any_depth_as_decoded(arguments: Any) -> None:
    # The quote and the newline are escaped in the compact JSON text: only the decoded
    # string holds the needle as written.
    assert arguments_contain(arguments, 'say "hi"\nnow')
    assert not arguments_contain(arguments, "goodbye")


def test_needle_matches_a_key_through_the_compact_json_text() -> None:
    assert arguments_contain({"path": "a.txt"}, '"path"')


def test_raw_string_arguments_are_searched_as_is() -> None:
    raw = '{"message": "unterminated'
    assert arguments_contain(raw, '"message": "unt')
    assert not arguments_contain(raw, '"message":"unt')


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ('{"status": "ok"}', {"status": "ok"}),
        ("  [1, 2]\n", [1, 2]),
        ('Result:\n```json\n{"status": "ok"}\n```\n', {"status": "ok"}),
        ('Result:\n```JSON\n{"status": "upper"}\n```\n', {"status": "upper"}),
        ('Result:\n```Json\n{"status": "mixed"}\n```', {"status": "mixed"}),
        ('```\n{"status": "plain"}\n```', {"status": "plain"}),
        (
            'first:\n```\n{"status": "plain"}\n```\nthen:\n```json\n{"status": "labelled"}\n```\n',
            {"status": "labelled"},
        ),
        ('```json\n{"n": 1}\n```\n```json\n{"n": 2}\n```\n', {"n": 1}),
        ('```python\nx = 1\n```\n```\n{"n": 3}\n```\n', {"n": 3}),
    ],
    ids=[
        "whole",
        "whole-ws",
        "json-block",
        "JSON-block",
        "Json-block",
        "unlabelled",
        "json-first",
        "first-json",
        "unlabelled-after-other-label",
    ],
)
def test_response_as_json(response: str, expected: Any) -> None:
    assert response_as_json(response) == expected


@pytest.mark.parametrize(
    "response",
    [
        "",
        "plain text, no JSON",
        "```python\nprint('hi')\n```",
        "```json\nnot json\n```",
        "NaN",
        '```json\n{"score": NaN}\n```',
        '{"a": 1} trailing',
    ],
)
def test_response_without_json_is_missing(response: str) -> None:
    assert response_as_json(response) is MISSING


def test_json_null_response_is_not_missing() -> None:
    value = response_as_json("null")
    assert value is None
    assert value is not MISSING


def test_regex_search_finds_anywhere() -> None:
    assert regex_search(r"\d{3}-\d{4}", "call 555-1234 now")
    assert not regex_search(r"^\d{3}$", "call 555")
    assert regex_search("東京.*😀", "東京 is fun 😀")


@pytest.mark.parametrize(
    "pattern",
    ["(unclosed", "[a-", "a{2,1}", r"(a)\1", r"foo(?=bar)", r"(?<!x)y"],
    ids=["paren", "class", "repeat", "backreference", "lookahead", "lookbehind"],
)
def test_invalid_or_unsupported_regex_raises_regex_error(pattern: str) -> None:
    with pytest.raises(InvalidRegex):
        compile_regex(pattern)
    with pytest.raises(InvalidRegex):
        regex_search(pattern, "anything")


def test_invalid_regex_is_an_eval_error_with_the_reason() -> None:
    with pytest.raises(EvalError, match=r"missing \)"):
        compile_regex("(unclosed")


def test_pathological_pattern_completes() -> None:
    # Catastrophic for a backtracking engine; RE2 answers in linear time.
    assert not regex_search(r"(a+)+$", "a" * 50000 + "b")
    assert regex_search(r"(a+)+b$", "a" * 50000 + "b")


def test_overflowing_numbers_make_a_response_not_json() -> None:
    # 1e999 would parse to infinity, which no JSON report can hold.
    assert response_as_json('{"a": 1e999}') is MISSING
    assert response_as_json('{"a": 1e300}') == {"a": 1e300}


def test_longer_fences_are_recognised_and_closed_by_as_many_backticks() -> None:
    response = 'Here:\n````json\n{"code": "```"}\n````\n'
    assert response_as_json(response) == {"code": "```"}


def test_a_lone_surrogate_in_a_response_is_searched_as_a_replacement_character() -> None:
    # A live model may send one; RE2 reads only valid UTF-8 and raised on it.
    assert regex_search("a.b", "xa\ud800b")
    assert not regex_search("ab", "xa\ud800b")


def test_a_pattern_with_a_lone_surrogate_is_a_problem_not_a_crash() -> None:
    assert (
        regex_problem("\udfff")
        == "the pattern holds a lone surrogate (\\ud800-\\udfff), which RE2 cannot read"
    )
