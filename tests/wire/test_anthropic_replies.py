"""`zeroclaw_eval.wire.anthropic` as the server answers: a Messages request read through
`parse`, the `message` or the stream of events written back by `reply`, and the error
bodies the SDKs raise."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice, ToolSpec
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire.anthropic import error_body, message_body, message_events, parse, reply
from zeroclaw_eval.wire.endpoint import Endpoint

HELLO: list[Any] = [{"role": "user", "content": "hi"}]
CALL = ToolCallRequest("toolu_1", "echo", '{"m":"x"}')


def _parsed(**fields: Any) -> Any:
    return parse(
        {"model": "claude-x", "max_tokens": 64, "messages": HELLO, **fields}, 3, "claude-x", Endpoint()
    )


def test_a_request_reads_as_the_conversation_its_tools_and_its_choice() -> None:
    tools = [{"name": "echo", "description": "Echo.", "input_schema": {"type": "object"}}]
    choice = {"type": "any", "disable_parallel_tool_use": True}
    request = _parsed(tools=tools, tool_choice=choice)
    assert (request.api, request.number, request.model) == ("messages", 3, "claude-x")
    assert request.messages == HELLO
    assert request.tools == [ToolSpec("echo", "Echo.", {"type": "object"})]
    assert (request.stream, request.include_usage) == (False, True)
    assert request.choice == ToolChoice("required", parallel=False)
    assert request.body["tool_choice"] == choice


@pytest.mark.parametrize(("stream", "streamed"), [(True, True), ("true", False), (1, False), (False, False)])
def test_only_stream_true_asks_for_a_stream(stream: Any, streamed: bool) -> None:
    assert _parsed(stream=stream).stream is streamed


def test_the_plain_reply_is_the_whole_message() -> None:
    answer = reply(_parsed(), ModelResponse("Looking.", (CALL,), 12, 5), Endpoint(), keep=True)
    assert (answer.status, answer.content_type) == (200, "application/json")
    assert json.loads(answer.body) == {
        "id": "msg_zeroclaw_3",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {"m": "x"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 12,
            "output_tokens": 5,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def test_an_empty_answer_is_one_empty_text_block_and_calls_alone_have_none() -> None:
    assert message_body(ModelResponse(None), "m", 1)["content"] == [{"type": "text", "text": ""}]
    bare = ToolCallRequest("toolu_2", "list_dir", "")
    assert message_body(ModelResponse(None, (bare,)), "m", 1)["content"] == [
        {"type": "tool_use", "id": "toolu_2", "name": "list_dir", "input": {}}
    ]


def _events(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    """The (event name, data) of each server-sent event of `body`."""
    read = []
    for chunk in body.decode("ascii").split("\n\n")[:-1]:
        name, data = chunk.split("\n")
        assert name.startswith("event: ")
        assert data.startswith("data: ")
        read.append((name.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return read


def test_the_stream_opens_with_the_message_builds_each_block_and_ends_with_the_usage() -> None:
    response = ModelResponse("Hi", (CALL,), 7, 3)
    answer = reply(_parsed(stream=True), response, Endpoint(), keep=True)
    assert (answer.status, answer.content_type) == (200, "text/event-stream")
    assert answer.body.endswith(b"\n\n")
    events = _events(answer.body)
    assert [name for name, _ in events] == [data["type"] for _, data in events]
    assert [data for _, data in events] == [
        {
            "type": "message_start",
            "message": {
                "id": "msg_zeroclaw_3",
                "type": "message",
                "role": "assistant",
                "model": "claude-x",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 7,
                    "output_tokens": 0,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                },
            },
        },
        {"type": "ping"},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"m":"x"}'},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {
                "input_tokens": 7,
                "output_tokens": 3,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        },
        {"type": "message_stop"},
    ]


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("a" * 24, ["a" * 24]),
        ("a" * 24 + "b", ["a" * 24, "b"]),
        ("a" * 24 + "b" * 24 + "c", ["a" * 24, "b" * 24, "c"]),
        ("", []),
    ],
)
def test_streamed_text_comes_in_pieces_of_24_characters(text: str, pieces: list[str]) -> None:
    events = message_events(ModelResponse(text), "m", 1)
    deltas = [event["delta"]["text"] for event in events if event["type"] == "content_block_delta"]
    assert deltas == pieces
    assert events[-2]["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}


def test_a_long_tool_input_streams_in_pieces_that_add_up_to_it() -> None:
    call = ToolCallRequest("toolu_1", "write_file", json.dumps({"path": "notes.txt", "text": "x" * 40}))
    events = message_events(ModelResponse(None, (call,)), "m", 1)
    partial = [event["delta"]["partial_json"] for event in events if event["type"] == "content_block_delta"]
    assert [len(piece) for piece in partial] == [24, 24, 22]
    assert json.loads("".join(partial)) == {"path": "notes.txt", "text": "x" * 40}
    assert [event["index"] for event in events if "index" in event] == [0] * 5


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (413, "request_too_large"),
        (422, "invalid_request_error"),
        (429, "rate_limit_error"),
        (499, "invalid_request_error"),
        (500, "api_error"),
        (501, "api_error"),
        (503, "overloaded_error"),
        (529, "overloaded_error"),
    ],
)
def test_an_error_takes_the_type_the_api_answers_its_status_with(status: int, kind: str) -> None:
    # The harness's own name for the error (`divergence`) is not a type the SDKs know.
    assert error_body(status, "why", "divergence") == {
        "type": "error",
        "error": {"type": kind, "message": "why"},
    }


@pytest.mark.parametrize(
    ("given", "shown"), [("x" * 58, '"' + "x" * 58 + '"'), ("x" * 59, '"' + "x" * 59 + "…")]
)
def test_a_refused_max_tokens_is_quoted_whole_up_to_60_characters(given: str, shown: str) -> None:
    with pytest.raises(WireError) as raised:
        _parsed(max_tokens=given)
    assert raised.value.message == f"max_tokens must be a whole number of tokens, 0 or more, not {shown}"
