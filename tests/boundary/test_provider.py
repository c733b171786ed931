"""`zeroclaw_eval.boundary.provider`: the message and call shapes at the model boundary, and the
one rule that turns argument text into what a tool receives."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings, strategies as st

from zeroclaw_eval._support.json.text import compact_json, json_equal
from zeroclaw_eval.boundary.provider import (
    ToolCallRequest,
    ToolSpec,
    decode_arguments,
    echoed_as_sent,
    same_arguments,
)


@pytest.mark.parametrize(
    ("text", "received"),
    [
        ('{"message": "東京", "n": 1}', {"message": "東京", "n": 1}),
        ("", {}),  # providers send "" for a call without arguments
        ("  \n", {}),
        ("{}", {}),
        ('{"message": "unterminated', '{"message": "unterminated'),
        ("[1, 2]", "[1, 2]"),  # JSON, but not an object
        ('"just text"', '"just text"'),
        ('{"x": NaN}', '{"x": NaN}'),  # not valid JSON, so not an object either
        ('{"x": 1e999}', '{"x": 1e999}'),
        ('{"a":' * 5_000 + "1" + "}" * 5_000, '{"a":' * 5_000 + "1" + "}" * 5_000),  # too deep to parse
    ],
)
def test_argument_text_is_the_object_it_holds_else_the_raw_text(text: str, received: Any) -> None:
    assert decode_arguments(text) == received


def test_arguments_already_an_object_pass_through() -> None:
    arguments = {"b": 1, "a": 2}
    assert decode_arguments(arguments) is arguments


class _Loose(int):
    """An int that says it equals anything."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


@pytest.mark.parametrize(
    ("received", "text", "same"),
    [
        ({"message": "東京", "n": 1}, '{"message":"東京","n":1}', True),  # as a script writes it
        ({"message": "東京", "n": 1}, '{ "n": 1, "message": "東京" }', True),  # written otherwise
        ({"n": 1}, '{"n":1.0}', True),  # numbers by value
        ({"n": True}, '{"n":1}', False),  # true is not 1
        ({"n": 1}, '{"n":2}', False),
        ({"n": 1}, '{"n":1,"n":2}', False),  # a key given twice: the last wins, as a tool reads it
        ({}, "", True),  # no arguments
        ({"x": None}, '{"x":null}', True),
        # orjson writes NaN as null: text with a null is compared by value, and NaN is no null.
        ({"x": float("nan")}, '{"x":null}', False),
        ({"x": float("inf")}, '{"x":null}', False),
        ({"n": _Loose(1)}, '{"n":1}', True),  # a subclass goes the long way, by value
        ({"big": 2**70}, '{"big":' + str(2**70) + "}", True),  # past what orjson writes
        ("{not json", "{not json", True),  # malformed text reaches the tool as it was sent
        ("{not json", "{not json!", False),
        ({"s": "\ud800"}, '{"s":"\\ud800"}', True),
    ],
)
def test_arguments_a_tool_received_are_the_models_when_equal_as_json(
    received: Any, text: str, same: bool
) -> None:
    assert same_arguments(received, text) is same


def test_text_with_a_lone_surrogate_is_compared_without_raising() -> None:
    assert same_arguments({"s": "\ud800"}, '{"s":"\ud800"}') is True
    assert same_arguments({"s": "x"}, '{"s":"\ud800"}') is False
    assert same_arguments({"s": "\ud800"}, "\ud800") is False


def _compared_the_long_way(received: Any, sent: str) -> bool:
    """`same_arguments` without its shortcut: the text parsed, compared as JSON."""
    asked = decode_arguments(sent)
    if isinstance(received, dict) and isinstance(asked, dict):
        return json_equal(received, asked)
    return type(received) is type(asked) and bool(received == asked)


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()  # NaN and the infinities included: orjson writes them as null
    | st.text(max_size=8)  # lone surrogates included
)
_KEYS = st.text(max_size=4)
_VALUES = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3)
)
_OBJECTS = st.dictionaries(_KEYS, _VALUES, max_size=4)


def _written(value: Any, how: int) -> str:
    """`value` as argument text, written one of the ways a model or a script writes it."""
    if how == 0:
        return compact_json(value)
    if how == 1:
        return json.dumps(value)  # spaces after separators, non-ASCII escaped
    try:
        return orjson.dumps(value).decode()
    except (TypeError, UnicodeDecodeError, orjson.JSONEncodeError):
        return compact_json(value)


@settings(max_examples=400, deadline=None)
@given(received=_OBJECTS, other=_OBJECTS, how=st.integers(0, 2), own=st.booleans())
def test_the_shortcut_never_changes_the_answer(received: Any, other: Any, how: int, own: bool) -> None:
    # The text written of the received object itself (the usual case, where the shortcut
    # answers) or of another one.
    text = _written(received if own else other, how)
    assert same_arguments(received, text) is _compared_the_long_way(received, text)


def test_a_call_and_a_tool_in_the_openai_shapes() -> None:
    call = ToolCallRequest("call_1", "echo", '{"message":"hi"}')
    assert call.as_openai() == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "echo", "arguments": '{"message":"hi"}'},
    }
    spec = ToolSpec("echo", "Echo.", {"type": "object"})
    assert spec.as_openai() == {
        "type": "function",
        "function": {"name": "echo", "description": "Echo.", "parameters": {"type": "object"}},
    }


@pytest.mark.parametrize(
    ("echoed", "sent", "same"),
    [
        ('{"city":"Paris"}', '{"city":"Paris"}', True),
        ('{ "city": "Paris" }', '{"city":"Paris"}', True),  # the same object, written otherwise
        ({"city": "Paris"}, '{"city":"Paris"}', True),  # an object, as an SDK may keep it
        ("", "{}", True),  # blank text is no arguments, as providers send it
        (None, "{}", True),
        ("{}", '{"city":"Paris"}', False),  # the echo drops the arguments
        ("", '{"city":"Paris"}', False),
        (None, '{"city":"Paris"}', False),
        ('{"city":"Lyon"}', '{"city":"Paris"}', False),
        ('{"city":"Paris","units":"C"}', '{"city":"Paris"}', False),  # an argument added
        ('{"n":1}', '{"n":true}', False),  # true is not 1
        ("not json", "not json", True),  # malformed arguments, as the model sent them
        ('"not json"', "not json", True),  # ... or as a tool_use input holding that text
        ("{}", "not json", False),
        ('"other"', "not json", False),
    ],
)
def test_echoed_arguments_are_the_models_when_equal_as_json(echoed: Any, sent: str, same: bool) -> None:
    assert echoed_as_sent(echoed, sent) is same
