"""`zeroclaw_eval.wire.chat`: the chat-completion bodies serve answers with."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice, ToolSpec
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire.chat import (
    chat_tool_choice,
    completion,
    completion_chunks,
    error_body,
    offered_specs,
    parse,
    reply,
    tool_choice_of,
)
from zeroclaw_eval.wire.endpoint import Endpoint


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


HELLO: list[Any] = [{"role": "user", "content": "hi"}]


def test_a_request_reads_as_its_messages_tools_stream_and_choice() -> None:
    tools = [{"type": "function", "function": {"name": "echo", "parameters": {"type": "object"}}}]
    request = {
        "model": "gpt-x",
        "messages": HELLO,
        "tools": tools,
        "stream": True,
        "stream_options": {"include_usage": True},
        "tool_choice": "required",
        "parallel_tool_calls": False,
    }
    parsed = parse(request, 4, "gpt-x", Endpoint())
    assert (parsed.api, parsed.number, parsed.model, parsed.messages) == (
        "chat.completions",
        4,
        "gpt-x",
        HELLO,
    )
    assert parsed.tools == [ToolSpec("echo", "", {"type": "object"})]
    assert (parsed.stream, parsed.include_usage) == (True, True)
    assert parsed.choice == ToolChoice("required", parallel=False)
    assert parsed.body is request


@pytest.mark.parametrize(
    ("fields", "stream", "include_usage"),
    [
        ({}, False, False),
        ({"stream": "true", "stream_options": {"include_usage": "true"}}, False, False),
        ({"stream": True, "stream_options": ["include_usage"]}, True, False),
        ({"stream": True, "stream_options": {"include_usage": False}}, True, False),
    ],
)
def test_only_true_asks_for_a_stream_or_a_usage_chunk(
    fields: dict[str, Any], stream: bool, include_usage: bool
) -> None:
    parsed = parse({"model": "m", "messages": HELLO, **fields}, 1, "m", Endpoint())
    assert (parsed.stream, parsed.include_usage) == (stream, include_usage)


@pytest.mark.parametrize(
    ("messages", "words"),
    [
        (None, "the request has no messages list"),
        ("hi", "the request has no messages list"),
        ([], "Invalid 'messages': empty array. Expected an array with minimum length 1"),
    ],
)
def test_a_request_without_a_message_is_a_400_in_the_apis_words(messages: Any, words: str) -> None:
    with pytest.raises(WireError) as raised:
        parse({"model": "m", "messages": messages}, 1, "m", Endpoint())
    assert (raised.value.status, raised.value.message) == (400, words)


def test_the_plain_reply_is_the_whole_completion() -> None:
    request = parse({"model": "gpt-x", "messages": HELLO}, 7, "gpt-x", Endpoint())
    answer = reply(request, ModelResponse("hello", (), 5, 2), Endpoint(), keep=True)
    assert (answer.status, answer.content_type) == (200, "application/json")
    assert json.loads(answer.body) == {
        "id": "chatcmpl-zeroclaw-7",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-x",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
    }


def test_the_stream_is_data_lines_of_chunks_then_done() -> None:
    request = parse({"model": "gpt-x", "messages": HELLO, "stream": True}, 7, "gpt-x", Endpoint())
    answer = reply(request, ModelResponse("hello", (), 5, 2), Endpoint(), keep=True)
    assert (answer.status, answer.content_type) == (200, "text/event-stream")
    events = answer.body.decode("ascii").split("\n\n")
    assert events[-2:] == ["data: [DONE]", ""]
    head = {"id": "chatcmpl-zeroclaw-7", "object": "chat.completion.chunk", "created": 0, "model": "gpt-x"}

    def choice(delta: dict[str, Any], finish: str | None) -> list[dict[str, Any]]:
        return [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]

    assert [json.loads(event.removeprefix("data: ")) for event in events[:-2]] == [
        {**head, "choices": choice({"role": "assistant", "content": ""}, None), "usage": None},
        {**head, "choices": choice({"content": "hello"}, None), "usage": None},
        {
            **head,
            "choices": choice({}, "stop"),
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
        },
    ]


def test_a_streamed_usage_chunk_follows_the_finish_when_asked_for() -> None:
    request = parse(
        {"model": "m", "messages": HELLO, "stream": True, "stream_options": {"include_usage": True}},
        1,
        "m",
        Endpoint(),
    )
    body = reply(request, ModelResponse("", (), 5, 2), Endpoint(), keep=True).body.decode("ascii")
    chunks = [json.loads(line.removeprefix("data: ")) for line in body.split("\n\n")[:-2]]
    assert [(chunk["choices"], chunk["usage"]) for chunk in chunks[1:]] == [
        ([{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}], None),
        ([], {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}),
    ]


@pytest.mark.parametrize(
    ("text", "pieces"),
    [("a" * 24, ["a" * 24]), ("a" * 24 + "b", ["a" * 24, "b"]), ("", [])],
)
def test_streamed_text_comes_in_pieces_of_24_characters(text: str, pieces: list[str]) -> None:
    chunks = completion_chunks(ModelResponse(text), "m", 1)
    assert [chunk["choices"][0]["delta"]["content"] for chunk in chunks[1:-1]] == pieces


def test_a_call_opens_with_its_id_and_name_then_its_arguments() -> None:
    calls = (ToolCallRequest("c1", "echo", '{"m":"x"}'), ToolCallRequest("c2", "list_dir", ""))
    chunks = completion_chunks(ModelResponse(None, calls), "m", 1)
    assert [chunk["choices"][0]["delta"] for chunk in chunks] == [
        {"role": "assistant", "content": ""},
        {
            "tool_calls": [
                {"index": 0, "id": "c1", "type": "function", "function": {"name": "echo", "arguments": ""}}
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"m":"x"}'}}]},
        {
            "tool_calls": [
                {
                    "index": 1,
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "list_dir", "arguments": ""},
                }
            ]
        },
        {},
    ]


def test_an_error_is_the_body_the_openai_clients_raise() -> None:
    assert error_body(429, "slow down", "rate_limit_exceeded") == {
        "error": {"message": "slow down", "type": "rate_limit_exceeded", "code": 429}
    }


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"type": "function", "function": {"name": "echo"}}, ToolChoice("function", "echo", parallel=False)),
        (
            {
                "type": "allowed_tools",
                "allowed_tools": {"tools": [{"type": "function", "function": {"name": "a"}}]},
            },
            ToolChoice("auto", allowed=frozenset({"a"}), parallel=False),
        ),
        ({"type": "web_search"}, ToolChoice("function", "web_search (a hosted tool)", parallel=False)),
        ("none", ToolChoice("none", parallel=False)),
    ],
)
def test_parallel_tool_calls_false_holds_for_every_choice(given: Any, expected: ToolChoice) -> None:
    assert tool_choice_of({"tool_choice": given, "parallel_tool_calls": False}) == expected


@pytest.mark.parametrize(
    "given",
    [
        {"type": "function", "function": {"name": ""}},
        {"type": "allowed_tools", "mode": "required", "tools": "a"},
        {"type": ""},
        {"type": 3},
    ],
)
def test_a_refused_tool_choice_is_quoted(given: Any) -> None:
    with pytest.raises(WireError) as raised:
        tool_choice_of({"tool_choice": given})
    assert (
        raised.value.message
        == f"tool_choice {given!r} is not none, auto, required, a function or allowed_tools"
    )


def test_a_refused_parallel_tool_calls_is_quoted() -> None:
    with pytest.raises(WireError) as raised:
        tool_choice_of({"parallel_tool_calls": "no"})
    assert (raised.value.status, raised.value.message) == (
        400,
        "parallel_tool_calls must be true or false, not 'no'",
    )


def test_offered_tools_read_odd_fields_as_none() -> None:
    tools = [{"type": "function", "function": {"name": "ping", "description": 3, "parameters": "object"}}]
    assert offered_specs(tools) == [ToolSpec("ping", "", {})]


def test_a_tool_after_an_entry_that_is_not_one_is_still_offered() -> None:
    flat = {"type": "function", "name": "list_dir", "parameters": {"type": "object"}}
    assert offered_specs(["junk", flat]) == [ToolSpec("list_dir", "", {"type": "object"})]


def test_an_allowed_set_is_sent_as_chat_functions_in_name_order() -> None:
    assert chat_tool_choice(ToolChoice("required", allowed=frozenset({"b", "a"}))) == {
        "type": "allowed_tools",
        "allowed_tools": {
            "mode": "required",
            "tools": [
                {"type": "function", "function": {"name": "a"}},
                {"type": "function", "function": {"name": "b"}},
            ],
        },
    }
