"""`zeroclaw_eval.boundary.provider`: the message and call shapes at the model boundary, and the
one rule that turns argument text into what a tool receives."""

from __future__ import annotations

from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ToolCallRequest, ToolSpec, decode_arguments


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
