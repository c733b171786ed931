"""`zeroclaw_eval.wire.responses`: Responses API input as chat messages, and the
response object and events that answer it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire.responses import input_messages, output_items, response_events

CALL = ToolCallRequest("c1", "echo", '{"message":"x"}')


def test_a_string_input_is_one_user_message() -> None:
    assert input_messages("hello") == [{"role": "user", "content": "hello"}]


def test_items_become_the_conversation_the_script_checks() -> None:
    items: list[Any] = [
        {"role": "developer", "content": "be brief"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Echo x"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "On it.", "annotations": []}],
        },
        {"type": "function_call", "call_id": "c1", "name": "echo", "arguments": '{"message":"x"}'},
        {"type": "function_call", "call_id": "c2", "name": "list_dir", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "x"},
        {
            "type": "function_call_output",
            "call_id": "c2",
            "output": [{"type": "input_text", "text": "a.txt"}],
        },
    ]
    assert input_messages(items) == [
        {"role": "developer", "content": "be brief"},
        {"role": "user", "content": "Echo x"},
        {
            "role": "assistant",
            "content": "On it.",
            # Calls right after the assistant's text are one step: text beside calls.
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "echo", "arguments": '{"message":"x"}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
        {"role": "tool", "tool_call_id": "c2", "content": "a.txt"},
    ]


def test_calls_after_results_start_a_new_assistant_message() -> None:
    items = [
        {"role": "user", "content": "go"},
        {"type": "function_call", "call_id": "c1", "name": "echo", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "x"},
        {"type": "function_call", "call_id": "c2", "name": "echo", "arguments": "{}"},
    ]
    roles = [message["role"] for message in input_messages(items)]
    assert roles == ["user", "assistant", "tool", "assistant"]


@pytest.mark.parametrize(
    ("items", "words"),
    [
        (42, "input must be a string or a list of items"),
        (["text"], "input[0] is not an object"),
        (
            [{"type": "item_reference", "id": "x"}],
            "Item with id 'x' not found (input[0] is an item_reference)",
        ),
        ([{"type": "computer_call_output"}], "input[0] is a 'computer_call_output' item"),
    ],
)
def test_input_the_translation_cannot_take_is_a_400(items: Any, words: str) -> None:
    with pytest.raises(WireError, match=re.escape(words)) as caught:
        input_messages(items)
    assert caught.value.status == 400


def test_output_items_are_the_text_then_each_call() -> None:
    items = output_items(ModelResponse("Looking.", (CALL,)), 3)
    assert [item["type"] for item in items] == ["message", "function_call"]
    assert items[0]["content"][0]["text"] == "Looking."
    assert (items[1]["call_id"], items[1]["name"], items[1]["arguments"]) == ("c1", "echo", '{"message":"x"}')
    assert [item["type"] for item in output_items(ModelResponse(None, (CALL,)), 3)] == ["function_call"]
    assert output_items(ModelResponse(""), 3)[0]["content"][0]["text"] == ""  # an empty answer is still one


def test_the_events_number_themselves_and_end_with_the_whole_response() -> None:
    events = response_events(ModelResponse("Hello there", (CALL,), 5, 2), {"model": "m"}, "m", 9)
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    kinds = [event["type"] for event in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    assert "response.output_text.delta" in kinds
    assert "response.function_call_arguments.done" in kinds
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    assert text == "Hello there"
    final = events[-1]["response"]
    assert final["status"] == "completed"
    assert final["usage"]["input_tokens"] == 5
    assert [item["type"] for item in final["output"]] == ["message", "function_call"]
