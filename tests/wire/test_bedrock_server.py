"""`wire.bedrock`'s server half, through the endpoint: a Converse request read as the
conversation the script follows, what it refuses with a 400, and the reply written back,
one `ConverseResponse` or AWS's event stream as botocore's own reader takes it apart."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.eventstream import EventStreamBuffer

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice, ToolSpec
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire import bedrock
from zeroclaw_eval.wire.base import WireRequest
from zeroclaw_eval.wire.endpoint import Endpoint

PATH = "/model/anthropic.claude-v2%3A1/converse"
USER: dict[str, Any] = {"role": "user", "content": [{"text": "hi"}]}
CALL = ToolCallRequest("t1", "echo", '{"m":"x"}')


def _taken(request: dict[str, Any], path: str = PATH) -> WireRequest:
    taken = Endpoint().take("POST", path, json.dumps(request).encode(), None)
    assert isinstance(taken, WireRequest), taken
    return taken


def test_a_request_reads_as_its_conversation_tools_and_choice() -> None:
    request = {
        "system": [{"text": "Be brief. "}, {"cachePoint": {"type": "default"}}, {"text": "Use tools."}],
        "messages": [USER],
        "toolConfig": {
            "tools": [
                {
                    "toolSpec": {
                        "name": "echo",
                        "description": "Echo.",
                        "inputSchema": {"json": {"type": "object"}},
                    }
                },
                {"cachePoint": {"type": "default"}},
                {"toolSpec": {"name": "ping", "inputSchema": "object"}},
                {"toolSpec": {"description": "No name."}},
                "junk",
            ],
            "toolChoice": {"tool": {"name": "echo"}},
        },
    }
    taken = _taken(request)
    assert (taken.api, taken.number, taken.model) == ("converse", 1, "anthropic.claude-v2:1")
    assert taken.messages == [
        {"role": "system", "content": "Be brief. Use tools."},
        {"role": "user", "content": "hi"},
    ]
    assert taken.tools == [ToolSpec("echo", "Echo.", {"type": "object"}), ToolSpec("ping", "", {})]
    assert (taken.stream, taken.include_usage) == (False, True)
    assert taken.choice == ToolChoice("function", "echo")
    assert taken.choice.said == 'toolConfig.toolChoice {"tool":{"name":"echo"}}'
    assert taken.body == request
    assert _taken(request, "/model/m/converse-stream").stream is True


def test_a_tool_round_reads_as_calls_and_their_results() -> None:
    request = {
        "system": [{"cachePoint": {"type": "default"}}],
        "messages": [
            USER,
            {
                "role": "assistant",
                "content": [
                    {"reasoningContent": {"reasoningText": {"text": "..."}}},
                    {"toolUse": {"toolUseId": "t1", "name": "echo", "input": {"m": "x"}}},
                    {"toolUse": {"toolUseId": "t2", "name": "list_dir"}},
                    {"toolUse": "junk"},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "t1",
                            "content": [{"text": "x"}, {"json": {"n": 1}}, {"image": {}}],
                        }
                    },
                    {"toolResult": {"toolUseId": "t2", "content": "denied", "status": "error"}},
                    {"toolResult": {"toolUseId": "t3", "status": "success"}},
                    {"text": "Go "},
                    {"text": "on."},
                ],
            },
        ],
    }
    assert _taken(request).messages == [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "t1", "type": "function", "function": {"name": "echo", "arguments": '{"m":"x"}'}},
                {"id": "t2", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "t1", "content": 'x{"n":1}'},
        {"role": "tool", "tool_call_id": "t2", "content": "", "is_error": True},
        {"role": "tool", "tool_call_id": "t3", "content": ""},
        {"role": "user", "content": "Go on."},
    ]


def test_an_assistant_message_of_text_has_no_calls() -> None:
    request = {"messages": [USER, {"role": "assistant", "content": [{"text": "Hello."}]}]}
    assert _taken(request).messages[1] == {"role": "assistant", "content": "Hello."}


@pytest.mark.parametrize(
    ("request_body", "words"),
    [
        ({}, "1 validation error detected: messages must have at least 1 message"),
        ({"messages": []}, "1 validation error detected: messages must have at least 1 message"),
        ({"messages": [USER], "system": "Be brief."}, "system must be a list of system content blocks"),
        ({"messages": [USER], "system": ["Be brief."]}, "system must be a list of system content blocks"),
        (
            {"messages": [USER, {"role": "system", "content": []}]},
            "messages.1.role must be user or assistant",
        ),
        ({"messages": ["hi"]}, "messages.0.role must be user or assistant"),
        (
            {"messages": [{"role": "user", "content": "hi"}]},
            "messages.0.content must be a list of content blocks",
        ),
        (
            {"messages": [{"role": "user", "content": ["hi"]}]},
            "messages.0.content must be a list of content blocks",
        ),
        (
            {"messages": [{"role": "user", "content": [{"toolResult": "x"}]}]},
            "a toolResult block must be an object",
        ),
        (
            {"messages": [USER], "toolConfig": {"toolChoice": {"tool": {"name": ""}}}},
            "toolConfig.toolChoice must be one of auto, any or tool (with a name)",
        ),
        (
            {"messages": [USER], "toolConfig": {"toolChoice": "any"}},
            "toolConfig.toolChoice must be one of auto, any or tool (with a name)",
        ),
    ],
)
def test_a_request_the_api_would_refuse_is_a_400(request_body: dict[str, Any], words: str) -> None:
    with pytest.raises(WireError) as raised:
        bedrock.parse(request_body, 1, "m", Endpoint())
    assert (raised.value.status, raised.value.message) == (400, words)


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (None, ToolChoice()),
        ({}, ToolChoice()),
        ({"toolChoice": {"auto": {}}}, ToolChoice()),
        ({"toolChoice": {"any": {}}}, ToolChoice("required")),
    ],
)
def test_tool_choice_reads_as_what_the_model_may_do(config: Any, expected: ToolChoice) -> None:
    choice = bedrock.tool_choice_of({} if config is None else {"toolConfig": config})
    assert choice == expected
    assert choice.said == ('toolConfig.toolChoice {"any":{}}' if expected.mode == "required" else "")


def test_the_plain_reply_is_one_converse_response() -> None:
    endpoint = Endpoint()
    request = endpoint.take("POST", PATH, json.dumps({"messages": [USER]}).encode(), None)
    assert isinstance(request, WireRequest)
    odd = ToolCallRequest("t2", "list_dir", "[1]")
    reply = endpoint.reply(request, ModelResponse("Looking.", (CALL, odd), 5, 2))
    assert (reply.status, reply.content_type) == (200, "application/json")
    assert json.loads(reply.body) == {
        "output": {
            "message": {
                "role": "assistant",
                "content": [
                    {"text": "Looking."},
                    {"toolUse": {"toolUseId": "t1", "name": "echo", "input": {"m": "x"}}},
                    {"toolUse": {"toolUseId": "t2", "name": "list_dir", "input": {}}},
                ],
            }
        },
        "stopReason": "tool_use",
        "usage": {"inputTokens": 5, "outputTokens": 2, "totalTokens": 7},
        "metrics": {"latencyMs": 0},
    }
    assert json.loads(endpoint.reply(request, ModelResponse("")).body)["output"]["message"]["content"] == []


def _read(body: bytes) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The (headers, payload) of each event-stream message, as botocore reads (and checks) them."""
    buffer = EventStreamBuffer()
    buffer.add_data(body)
    return [(message.headers, json.loads(message.payload)) for message in buffer]


def test_the_stream_is_aws_event_stream_messages_building_the_reply() -> None:
    endpoint = Endpoint()
    request = endpoint.take(
        "POST", "/model/m/converse-stream", json.dumps({"messages": [USER]}).encode(), None
    )
    assert isinstance(request, WireRequest)
    long_call = ToolCallRequest("t1", "echo", json.dumps({"m": "x" * 20}))
    reply = endpoint.reply(request, ModelResponse("a" * 24 + "b", (long_call,), 5, 2))
    assert (reply.status, reply.content_type) == (200, "application/vnd.amazon.eventstream")
    events = _read(reply.body)
    assert [headers for headers, _ in events] == [
        {":event-type": kind, ":content-type": "application/json", ":message-type": "event"}
        for kind in [
            "messageStart",
            "contentBlockDelta",
            "contentBlockDelta",
            "contentBlockStop",
            "contentBlockStart",
            "contentBlockDelta",
            "contentBlockDelta",
            "contentBlockStop",
            "messageStop",
            "metadata",
        ]
    ]
    assert [payload for _, payload in events] == [
        {"role": "assistant"},
        {"delta": {"text": "a" * 24}, "contentBlockIndex": 0},
        {"delta": {"text": "b"}, "contentBlockIndex": 0},
        {"contentBlockIndex": 0},
        {"start": {"toolUse": {"toolUseId": "t1", "name": "echo"}}, "contentBlockIndex": 1},
        {"delta": {"toolUse": {"input": '{"m":"xxxxxxxxxxxxxxxxxx'}}, "contentBlockIndex": 1},
        {"delta": {"toolUse": {"input": 'xx"}'}}, "contentBlockIndex": 1},
        {"contentBlockIndex": 1},
        {"stopReason": "tool_use"},
        {"usage": {"inputTokens": 5, "outputTokens": 2, "totalTokens": 7}, "metrics": {"latencyMs": 0}},
    ]


def test_a_streamed_text_answer_ends_its_turn() -> None:
    events = bedrock.stream_events(ModelResponse("Hi", (), 1, 1))
    assert events[-2:] == [
        ("messageStop", {"stopReason": "end_turn"}),
        (
            "metadata",
            {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": {"latencyMs": 0}},
        ),
    ]


def test_a_non_ascii_event_type_is_framed_by_its_bytes() -> None:
    ((headers, payload),) = _read(bedrock.event_message("messageStart-é", {"text": "é"}))
    assert headers[":event-type"] == "messageStart-é"
    assert payload == {"text": "é"}


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, "ValidationException"),
        (403, "AccessDeniedException"),
        (404, "ResourceNotFoundException"),
        (413, "ValidationException"),
        (429, "ThrottlingException"),
        (500, "InternalServerException"),
        (503, "ServiceUnavailableException"),
        (418, "InternalServerException"),
    ],
)
def test_an_error_names_the_exception_boto3_raises(status: int, kind: str) -> None:
    assert bedrock.error_body(status, "why", "divergence") == {"__type": kind, "message": "why"}
