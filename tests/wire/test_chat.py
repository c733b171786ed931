"""`zeroclaw_eval.wire.chat`: the chat-completion bodies serve answers with."""

from __future__ import annotations

from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire.chat import (
    chat_tool_choice,
    completion,
    completion_chunks,
    offered_specs,
    tool_choice_of,
)


def test_completion_is_an_openai_chat_completion_body() -> None:
    response = ModelResponse(None, (ToolCallRequest("c1", "echo", '{"message":"x"}'),), 7, 3)
    body = completion(response, "m", 4)
    assert body["object"] == "chat.completion"
    assert body["model"] == "m"
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": '{"message":"x"}'}}
        ],
    }
    assert body["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    text = completion(ModelResponse("hi"), "m", 5)
    assert text["choices"][0]["finish_reason"] == "stop"
    assert "tool_calls" not in text["choices"][0]["message"]


def test_the_chunks_of_a_stream_accumulate_to_the_reply() -> None:
    calls = (ToolCallRequest("c1", "echo", '{"message":"x"}'), ToolCallRequest("c2", "list_dir", ""))
    response = ModelResponse("Let me look " * 5, calls, 7, 3)
    chunks = completion_chunks(response, "m", 4, include_usage=True)
    deltas = [chunk["choices"][0]["delta"] for chunk in chunks if chunk["choices"]]
    assert deltas[0] == {"role": "assistant", "content": ""}  # the role comes first
    assert "".join(d.get("content") or "" for d in deltas) == response.content
    assert sum(1 for d in deltas if d.get("content")) > 1
    # Each call opens with its index, id and name; its arguments follow by index.
    built: dict[int, dict[str, str]] = {}
    for delta in deltas:
        for part in delta.get("tool_calls", []):
            call = built.setdefault(part["index"], {"id": "", "name": "", "arguments": ""})
            call["id"] += part.get("id", "")
            call["name"] += part.get("function", {}).get("name", "")
            call["arguments"] += part.get("function", {}).get("arguments", "")
    assert built == {
        0: {"id": "c1", "name": "echo", "arguments": '{"message":"x"}'},
        1: {"id": "c2", "name": "list_dir", "arguments": ""},
    }
    finishes = [chunk["choices"][0]["finish_reason"] for chunk in chunks if chunk["choices"]]
    assert finishes[-1] == "tool_calls"
    assert set(finishes[:-1]) == {None}
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    assert [chunk["usage"] for chunk in chunks[:-1]] == [None] * (len(chunks) - 1)
    assert all(chunk["object"] == "chat.completion.chunk" for chunk in chunks)


def test_without_include_usage_the_usage_rides_on_the_finish_chunk() -> None:
    # Clients that never ask would report no tokens; a chunk without choices would trip
    # a client that reads choices[0] of every chunk.
    chunks = completion_chunks(ModelResponse("hi", (), 4, 2), "m", 1)
    assert all(chunk["choices"] for chunk in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["usage"] == {"prompt_tokens": 4, "completion_tokens": 2, "total_tokens": 6}
    assert [chunk["usage"] for chunk in chunks[:-1]] == [None] * (len(chunks) - 1)  # counted once


def test_offered_specs_reads_both_tool_shapes_and_skips_the_rest() -> None:
    chat = {
        "type": "function",
        "function": {"name": "echo", "description": "E.", "parameters": {"type": "object"}},
    }
    flat = {"type": "function", "name": "list_dir", "parameters": {"type": "object"}}
    specs = offered_specs([chat, flat, "junk", {"type": "web_search"}, {"function": {"name": 7}}])
    assert [(spec.name, spec.description) for spec in specs] == [("echo", "E."), ("list_dir", "")]
    assert offered_specs("not a list") == []


@pytest.mark.parametrize(
    ("request_body", "expected"),
    [
        ({}, ToolChoice()),
        ({"tool_choice": "none"}, ToolChoice("none")),
        ({"tool_choice": "required", "parallel_tool_calls": False}, ToolChoice("required", parallel=False)),
        # Chat nests the function; Responses does not.
        ({"tool_choice": {"type": "function", "function": {"name": "echo"}}}, ToolChoice("function", "echo")),
        ({"tool_choice": {"type": "function", "name": "echo"}}, ToolChoice("function", "echo")),
        (
            {
                "tool_choice": {
                    "type": "allowed_tools",
                    "allowed_tools": {
                        "mode": "required",
                        "tools": [{"type": "function", "function": {"name": "a"}}],
                    },
                }
            },
            ToolChoice("required", allowed=frozenset({"a"})),
        ),
        (
            {
                "tool_choice": {
                    "type": "allowed_tools",
                    "mode": "auto",
                    "tools": [{"type": "function", "name": "b"}],
                }
            },
            ToolChoice("auto", allowed=frozenset({"b"})),
        ),
        ({"tool_choice": {"type": "file_search"}}, ToolChoice("function", "file_search (a hosted tool)")),
    ],
)
def test_tool_choice_of_reads_both_apis_shapes(request_body: dict[str, Any], expected: ToolChoice) -> None:
    assert tool_choice_of(request_body) == expected


@pytest.mark.parametrize(
    "given",
    [
        "sometimes",
        {"type": "function"},
        {"type": "allowed_tools", "mode": "none"},
        3,
        # Chat's nested function given as a name, beside a Responses-shaped name.
        {"type": "function", "function": "save_note", "name": "get_weather"},
    ],
)
def test_a_tool_choice_no_api_takes_is_refused(given: Any) -> None:
    with pytest.raises(WireError) as raised:
        tool_choice_of({"tool_choice": given})
    assert raised.value.status == 400
    assert "tool_choice" in str(raised.value)


@pytest.mark.parametrize("flag", ["false", 0, None])
def test_parallel_tool_calls_must_be_a_boolean(flag: Any) -> None:
    # Read loosely, "false" would be true and a two-call step served.
    with pytest.raises(WireError, match="parallel_tool_calls must be true or false"):
        tool_choice_of({"parallel_tool_calls": flag})


@pytest.mark.parametrize(
    "choice",
    [
        ToolChoice(),
        ToolChoice("none"),
        ToolChoice("function", "echo"),
        ToolChoice("required", allowed=frozenset({"a", "b"})),
    ],
)
def test_chat_tool_choice_is_read_back_as_the_same_choice(choice: ToolChoice) -> None:
    assert tool_choice_of({"tool_choice": chat_tool_choice(choice)}) == choice
