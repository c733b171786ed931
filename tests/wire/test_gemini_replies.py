"""`wire.gemini`'s replies, as the endpoint writes them (one `GenerateContentResponse`, or
its chunks as server-sent events or one JSON array) and its errors; and the rest of the
client half: headers, a bare request, a reply's thoughts and usage."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice, ToolSpec
from zeroclaw_eval.wire import gemini
from zeroclaw_eval.wire.base import WireRequest
from zeroclaw_eval.wire.endpoint import Endpoint

CALL = ToolCallRequest("c1", "echo", '{"m":"x"}')
BODY = json.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}).encode()
USAGE = {"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7}


def _reply(path: str, response: ModelResponse) -> tuple[int, str, bytes]:
    endpoint = Endpoint()
    request = endpoint.take("POST", path, BODY, None)
    assert isinstance(request, WireRequest)
    reply = endpoint.reply(request, response)
    return reply.status, reply.content_type, reply.body


def _chunk(parts: list[dict[str, Any]], *, last: bool = False) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    chunk: dict[str, Any] = {
        "candidates": [candidate],
        "modelVersion": "gemini-x",
        "responseId": "zeroclaw-1",
    }
    if last:
        candidate["finishReason"] = "STOP"
        chunk["usageMetadata"] = USAGE
    return chunk


def test_the_plain_reply_is_one_response_with_the_text_then_the_calls() -> None:
    status, kind, body = _reply(
        "/v1beta/models/gemini-x:generateContent", ModelResponse("Looking.", (CALL,), 5, 2)
    )
    assert (status, kind) == (200, "application/json")
    assert json.loads(body) == _chunk(
        [{"text": "Looking."}, {"functionCall": {"id": "c1", "name": "echo", "args": {"m": "x"}}}], last=True
    )


def test_calls_alone_have_no_text_part_and_arguments_that_are_no_object_are_sent_empty() -> None:
    odd = ToolCallRequest("c2", "echo", "[1,2]")
    _, _, body = _reply("/v1beta/models/gemini-x:generateContent", ModelResponse("", (odd,), 5, 2))
    assert json.loads(body) == _chunk([{"functionCall": {"id": "c2", "name": "echo", "args": {}}}], last=True)


def test_the_sse_stream_sends_the_text_in_pieces_then_the_calls_then_the_finish() -> None:
    text = "a" * 24 + "b"
    status, kind, body = _reply(
        "/v1beta/models/gemini-x:streamGenerateContent?alt=sse", ModelResponse(text, (CALL,), 5, 2)
    )
    assert (status, kind) == (200, "text/event-stream")
    events = body.decode("ascii").split("\r\n\r\n")
    assert events[-1] == ""
    assert [json.loads(event.removeprefix("data: ")) for event in events[:-1]] == [
        _chunk([{"text": "a" * 24}]),
        _chunk([{"text": "b"}]),
        _chunk([{"functionCall": {"id": "c1", "name": "echo", "args": {"m": "x"}}}], last=True),
    ]


def test_the_array_stream_of_an_empty_answer_is_one_chunk_with_the_finish() -> None:
    status, kind, body = _reply("/v1/models/gemini-x:streamGenerateContent", ModelResponse(None, (), 5, 2))
    assert (status, kind) == (200, "application/json")
    assert json.loads(body) == [_chunk([], last=True)]


def test_a_text_answer_streams_its_usage_on_its_last_piece() -> None:
    _, _, body = _reply("/v1/models/gemini-x:streamGenerateContent", ModelResponse("Hi", (), 5, 2))
    assert json.loads(body) == [_chunk([{"text": "Hi"}], last=True)]


@pytest.mark.parametrize(
    ("status", "name"),
    [
        (400, "INVALID_ARGUMENT"),
        (401, "UNAUTHENTICATED"),
        (403, "PERMISSION_DENIED"),
        (404, "NOT_FOUND"),
        (413, "INVALID_ARGUMENT"),
        (429, "RESOURCE_EXHAUSTED"),
        (500, "INTERNAL"),
        (503, "UNAVAILABLE"),
        (418, "UNKNOWN"),
    ],
)
def test_an_error_is_googles_error_with_the_status_named(status: int, name: str) -> None:
    assert gemini.error_body(status, "why", "divergence") == {
        "error": {"code": status, "message": "why", "status": name}
    }


def test_a_base_url_without_a_version_is_asked_under_v1beta() -> None:
    assert (
        gemini.client_url("https://example.com/LLMBOX/", "m")
        == "https://example.com/LLMBOX/v1beta/models/m:generateContent"
    )


def test_the_key_goes_in_x_goog_api_key() -> None:
    assert gemini.client_headers("zeroclaw-key") == {"x-goog-api-key": "zeroclaw-key"}
    assert gemini.client_headers("") == {}
    assert gemini.client_signed("https://example.com", {"a": "b"}, b"", "k") == {"a": "b"}


def test_a_bare_conversation_is_sent_as_contents_alone() -> None:
    messages: list[Any] = [
        {"role": "user", "content": None},
        {"role": "assistant", "content": "Hello.", "tool_calls": [CALL.as_openai()]},
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": "Use tools."},
    ]
    body = gemini.client_request("m", messages, [], ToolChoice("none"), temperature=None, max_tokens=None)
    assert body == {
        "contents": [
            {"role": "user", "parts": [{"text": ""}]},
            {
                "role": "model",
                "parts": [
                    {"text": "Hello."},
                    {"functionCall": {"id": "c1", "name": "echo", "args": {"m": "x"}}},
                ],
            },
        ],
        "systemInstruction": {"parts": [{"text": "Be brief.\n\nUse tools."}]},
    }


@pytest.mark.parametrize(
    ("choice", "config"),
    [
        (
            ToolChoice("function", "echo"),
            {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["echo"]}},
        ),
        (
            ToolChoice("required", allowed=frozenset({"b", "a"})),
            {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["a", "b"]}},
        ),
        (ToolChoice("function", None), {"functionCallingConfig": {"mode": "ANY"}}),
    ],
)
def test_a_tool_declared_without_parameters_takes_an_object_and_the_choice_its_config(
    choice: ToolChoice, config: dict[str, Any]
) -> None:
    body = gemini.client_request(
        "m",
        [{"role": "user", "content": "hi"}],
        [ToolSpec("echo", "", {})],
        choice,
        temperature=0,
        max_tokens=0,
    )
    assert body == {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "echo", "description": "", "parametersJsonSchema": {"type": "object"}}
                ]
            }
        ],
        "toolConfig": config,
        "generationConfig": {"temperature": 0, "maxOutputTokens": 0},
    }


def test_a_reply_of_calls_alone_has_no_text_and_counts_thoughts_as_output() -> None:
    data = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Let me think", "thought": True},
                        {"functionCall": {"name": "list_dir"}},
                        {"functionCall": {"id": "", "name": "echo", "args": {"m": "x"}}},
                    ],
                }
            }
        ],
        "usage_metadata": {"promptTokenCount": 9, "candidatesTokenCount": 3, "thoughtsTokenCount": 4},
    }
    assert gemini.read_reply(data) == ModelResponse(
        None,
        (ToolCallRequest("call_0", "list_dir", "{}"), ToolCallRequest("call_1", "echo", '{"m":"x"}')),
        9,
        7,
        reasoning_tokens=4,
    )


def test_a_reply_without_parts_is_empty() -> None:
    assert gemini.read_reply({"candidates": [{"content": {"role": "model"}}]}) == ModelResponse(
        None, (), 0, 0, usage_known=False
    )
