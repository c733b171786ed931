"""`boundary.text_echo`: a conversation written as text (smolagents') read as the
structured messages the script's walk reads; anything else left as it was."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zeroclaw_eval.boundary.text_echo import FROM_TEXT, calls_in_text, structured


def parts(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


SMOLAGENTS_ECHO = (
    "Let me look.\nCalling tools:\n[{'id': 'call_b', 'type': 'function', 'function': {'name': 'save_note',"
    " 'arguments': {'text': 'Paris\\' café: \"sunny\"'}}}, {'id': 'call_a', 'type': 'function',"
    " 'function': {'name': 'get_weather', 'arguments': {'city': 'Paris'}}}]"
)


def test_calls_echoed_as_a_python_literal_become_tool_calls_and_the_observation_their_results() -> None:
    messages = [
        {"role": "system", "content": parts("be brief")},
        {"role": "user", "content": parts("New task:\nWeather?")},
        {"role": "assistant", "content": parts(SMOLAGENTS_ECHO)},
        {"role": "user", "content": parts("Observation:\nsaved\nsunny")},
    ]
    read = structured(messages)
    assert read[:2] == messages[:2]
    assert read[2] == {
        "role": "assistant",
        "content": "Let me look.",  # the label line before the calls is not what was said
        "tool_calls": [
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": "save_note", "arguments": '{"text":"Paris\' café: \\"sunny\\""}'},
            },
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            },
        ],
    }
    # One observation answers both calls, without its label: which part is whose cannot be told.
    assert read[3:] == [
        {"role": "tool", "tool_call_id": "call_b", "content": "saved\nsunny", FROM_TEXT: True},
        {"role": "tool", "tool_call_id": "call_a", "content": "saved\nsunny", FROM_TEXT: True},
    ]


def test_json_calls_at_the_top_level_are_read_too() -> None:
    text = 'I will call: {"name": "echo", "arguments": "{\\"message\\": \\"hi\\"}", "id": "c1"}'
    assert calls_in_text(text) == (
        "",
        [{"id": "c1", "type": "function", "function": {"name": "echo", "arguments": '{"message": "hi"}'}}],
    )


@pytest.mark.parametrize(
    "text",
    [
        "The weather is sunny.",
        "Here is a list: [1, 2, 3] and {'a': 1}",
        "[{'name': 'echo'}]",  # no arguments
        "[{'function': {'name': 'echo', 'arguments': {'x': {1, 2}}}}]",  # a set: no JSON spelling
        "Calling tools:\n[{'id': 'c1', 'function': {'name': 'echo', 'arguments': {}}}",  # never closed
        "[{'id': 'c1', 'function': {'name': 'echo', 'arguments': __import__('os').getcwd()}}]",  # code
    ],
    ids=["prose", "other-data", "no-arguments", "set", "unclosed", "code"],
)
def test_text_that_holds_no_calls_is_left_as_it_was(text: str) -> None:
    messages: list[Any] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": text},
        {"role": "user", "content": "next"},
    ]
    assert structured(messages) == messages


def test_structured_messages_are_left_as_they_were() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "function": {"name": "e", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "user", "content": "Observation:\nnot a result: no call was echoed as text"},
    ]
    assert structured(messages) == messages


def test_a_huge_text_is_not_parsed() -> None:
    calls = [
        {"id": f"c{i}", "function": {"name": "echo", "arguments": {"message": "x" * 100}}}
        for i in range(3000)
    ]
    message = {"role": "assistant", "content": f"Calling tools:\n{calls!r}"}
    assert structured([message]) == [message]
    small = {"role": "assistant", "content": f"Calling tools:\n{calls[:2]!r}"}
    assert json.loads(structured([small])[0]["tool_calls"][1]["function"]["arguments"]) == {
        "message": "x" * 100
    }
