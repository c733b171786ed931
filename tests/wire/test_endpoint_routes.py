"""`zeroclaw_eval.wire.endpoint`: the routes a request takes, the replies given without a
model (the models list, a 404, the errors of each API), the bound on what a body may
parse to, the model a refused request's body names, the replies kept, and the
conversation read as a text-echoing agent writes it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest
from zeroclaw_eval.errors import Divergence, WireError
from zeroclaw_eval.wire import endpoint as endpoint_module
from zeroclaw_eval.wire.base import Reply, WireRequest
from zeroclaw_eval.wire.endpoint import (
    CHAT,
    CONVERSE,
    GEMINI,
    MESSAGES,
    RESPONSES,
    Endpoint,
    error_reply,
    model_named,
    refusal,
    route,
    too_large,
)


@pytest.mark.parametrize(
    ("method", "path", "found"),
    [
        ("POST", "/v1/messages", (MESSAGES, None, set())),
        ("POST", "/messages/?beta=true", (MESSAGES, None, set())),
        ("POST", "/model/anthropic.claude-v2%3A1/converse", (CONVERSE, "anthropic.claude-v2:1", set())),
        ("POST", "/model/m/converse-stream", (CONVERSE, "m", {"stream"})),
        ("POST", "/v1beta/models/m:GenerateContent", (GEMINI, "m", set())),
        ("POST", "/v1beta/models/m:generateContent?alt=sse2", (GEMINI, "m", set())),
        ("POST", "/v1/chat/completions?stream=1&alt=sse", (CHAT, None, {"sse"})),
        ("GET", "/v1/models/", ("models", None, set())),
        ("GET", "/v1/chat/completions", (None, None, set())),
        ("PUT", "/v1/chat/completions", (None, None, set())),
        ("DELETE", "/v1/models", (None, None, set())),
        ("POST", "/v1/v1/messages", (None, None, set())),
    ],
)
def test_a_route_names_its_api_the_model_and_what_its_path_says(
    method: str, path: str, found: tuple[str | None, str | None, set[str]]
) -> None:
    api, model, flags = route(method, path)
    assert (api, model, set(flags)) == found


def test_the_models_list_names_each_model() -> None:
    listed = Endpoint().take("GET", "/v1/models", b"", ["case_a", "case_b"])
    assert isinstance(listed, Reply)
    assert (listed.status, listed.content_type) == (200, "application/json")
    assert json.loads(listed.body) == {
        "object": "list",
        "data": [
            {"id": "case_a", "object": "model", "owned_by": "zeroclaw-eval"},
            {"id": "case_b", "object": "model", "owned_by": "zeroclaw-eval"},
        ],
    }


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/v1/embeddings", "no route POST /v1/embeddings"),
        (
            "/v1/v1/messages/?beta=true",
            "no route POST /v1/v1/messages/?beta=true: the Anthropic SDKs add /v1 themselves, so give them"
            " the base URL without it",
        ),
    ],
)
def test_a_route_not_served_is_a_404_that_says_why(path: str, words: str) -> None:
    refused = Endpoint().take("POST", path, b"{}", ["m"])
    assert isinstance(refused, Reply)
    assert refused.status == 404
    assert json.loads(refused.body) == {"error": {"message": words, "type": "not_found", "code": 404}}
    assert refused.error == words


@pytest.mark.parametrize(
    ("path", "error"),
    [
        (
            "/v1/chat/completions",
            {
                "error": {
                    "message": "the request body is not a JSON object",
                    "type": "invalid_request_error",
                    "code": 400,
                }
            },
        ),
        (
            "/v1/responses",
            {
                "error": {
                    "message": "the request body is not a JSON object",
                    "type": "invalid_request_error",
                    "code": 400,
                }
            },
        ),
        (
            "/v1/messages",
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "the request body is not a JSON object",
                },
            },
        ),
        (
            "/v1beta/models/m:generateContent",
            {
                "error": {
                    "code": 400,
                    "message": "the request body is not a JSON object",
                    "status": "INVALID_ARGUMENT",
                }
            },
        ),
        (
            "/model/m/converse",
            {"__type": "ValidationException", "message": "the request body is not a JSON object"},
        ),
    ],
)
def test_a_refused_request_gets_the_error_of_its_own_api(path: str, error: dict[str, Any]) -> None:
    refused = Endpoint().take("POST", path, b"not json", None)
    assert isinstance(refused, Reply)
    assert (refused.status, json.loads(refused.body)) == (400, error)


def test_an_error_reply_carries_its_headers_and_says_its_message() -> None:
    reply = error_reply(429, "slow down", "rate_limit_exceeded", {"Retry-After": "3"}, api=MESSAGES)
    assert (reply.status, reply.headers, reply.error) == (429, {"Retry-After": "3"}, "slow down")
    assert json.loads(reply.body) == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "slow down"},
    }
    assert error_reply(500, "down", "server_error").headers == {}


def test_a_refusal_keeps_the_wire_errors_status_and_a_divergence_is_a_400() -> None:
    refused = refusal(WireError(413, "too big", "request_too_large"), CHAT)
    assert json.loads(refused.body) == {
        "error": {"message": "too big", "type": "request_too_large", "code": 413}
    }
    diverged = refusal(Divergence("left the script"), GEMINI)
    assert diverged.status == 400
    assert json.loads(diverged.body) == {
        "error": {"code": 400, "message": "left the script", "status": "INVALID_ARGUMENT"}
    }


def test_a_path_that_names_the_model_names_it_over_the_body() -> None:
    body = json.dumps({"model": "other", "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}).encode()
    taken = Endpoint().take("POST", "/v1beta/models/m:generateContent?alt=sse", body, None)
    assert isinstance(taken, WireRequest)
    assert (taken.model, taken.stream, taken.path_flags) == ("m", False, frozenset({"sse"}))


def test_a_refused_requests_model_is_read_for_its_log_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    assert model_named(b'{"model": "case_a", "messages": 3}') == "case_a"
    assert model_named(b'{"model": 3}') is None
    assert model_named(b"[1]") is None
    assert model_named(b"not json") is None
    monkeypatch.setattr(endpoint_module, "MAX_VALUES", 10)
    assert model_named(json.dumps({"model": "case_a", "x": [[]] * 20}).encode()) is None


#: A request of 12 values, token by token: `{`, "model", "m", `,`, "messages", `[`, `{`,
#: "role", "user", `,`, "content", and the content; its brackets and commas (its 20 commas
#: of text too) are 25.
TWELVE_VALUES = json.dumps({"model": "m", "messages": [{"role": "user", "content": "a," * 20}]}).encode()


def test_a_body_of_long_texts_is_held_to_the_limit_by_its_values_not_its_commas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(endpoint_module, "MAX_VALUES", 12)
    assert Endpoint().parse(CHAT, TWELVE_VALUES, 1).messages == [{"role": "user", "content": "a," * 20}]
    assert model_named(TWELVE_VALUES) == "m"
    monkeypatch.setattr(endpoint_module, "MAX_VALUES", 11)
    with pytest.raises(WireError) as raised:
        Endpoint().parse(CHAT, TWELVE_VALUES, 1)
    assert (raised.value.status, raised.value.kind) == (413, "request_too_large")
    assert model_named(TWELVE_VALUES) is None


def test_a_body_of_exactly_the_limit_in_brackets_and_commas_is_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
    counted = body.count(b"{") + body.count(b"[") + body.count(b",")  # 5; its strings are 7 more
    monkeypatch.setattr(endpoint_module, "MAX_VALUES", counted)
    assert Endpoint().parse(CHAT, body, 1).messages == [{"role": "user", "content": "hi"}]
    assert model_named(body) == "m"


@pytest.mark.parametrize("kind", ["objects", "arrays"])
def test_nested_objects_and_arrays_count_as_values(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    monkeypatch.setattr(endpoint_module, "MAX_VALUES", 10)
    nested: Any = {} if kind == "objects" else []
    for _ in range(11):
        nested = {"a": nested} if kind == "objects" else [nested]
    body = json.dumps({"model": "m", "messages": nested} if kind == "arrays" else nested).encode()
    refused = Endpoint().take("POST", "/v1/messages", body, None)
    assert isinstance(refused, Reply)
    assert refused.status == 413
    assert json.loads(refused.body) == {
        "type": "error",
        "error": {
            "type": "request_too_large",
            "message": "the request body holds more than 10 JSON values (objects, arrays, strings, the items"
            " between commas), the limit of what one request may parse to",
        },
    }


def test_a_body_over_the_byte_limit_is_refused_in_its_apis_shape() -> None:
    refused = too_large(2000, 1000, api=MESSAGES)
    assert refused is not None
    assert json.loads(refused.body) == {
        "type": "error",
        "error": {
            "type": "request_too_large",
            "message": "the request body is 2000 bytes; the limit is 1000",
        },
    }
    chat_refused = too_large(2000, 1000)
    assert chat_refused is not None
    assert json.loads(chat_refused.body) == {
        "error": {
            "message": "the request body is 2000 bytes; the limit is 1000",
            "type": "request_too_large",
            "code": 413,
        }
    }


def test_an_error_of_a_route_that_is_no_wires_takes_openais_shape() -> None:
    reply = error_reply(400, "malformed", "invalid_request_error", api="models")
    assert json.loads(reply.body) == {
        "error": {"message": "malformed", "type": "invalid_request_error", "code": 400}
    }


@pytest.mark.parametrize(
    "path", ["/v1/chat/completionsX", "/v1/messagesXX", "/v1/model/m/converseX", "/v1/v1/messagesX"]
)
def test_a_path_that_only_starts_like_a_route_is_not_one(path: str) -> None:
    assert route("POST", path).api is None
    refused = Endpoint().take("POST", path, b"{}", None)
    assert isinstance(refused, Reply)
    assert json.loads(refused.body)["error"]["message"] == f"no route POST {path}"


def test_a_request_that_names_no_model_is_refused_in_those_words() -> None:
    with pytest.raises(WireError) as raised:
        Endpoint().parse(CHAT, b'{"model": 3, "messages": []}', 1)
    assert (raised.value.status, raised.value.message) == (400, "the request names no model")


def test_a_previous_response_id_that_is_not_text_is_not_found() -> None:
    with pytest.raises(WireError, match=r"^Previous response with id \['resp_zeroclaw_1'\] not found"):
        Endpoint().parse(
            RESPONSES, json.dumps({"model": "m", "previous_response_id": ["resp_zeroclaw_1"]}).encode(), 1
        )


def test_a_text_echoing_agents_calls_and_results_are_read_as_messages() -> None:
    echoed = (
        "Calling tools:\n[{'id': 'call_1', 'type': 'function',"
        " 'function': {'name': 'echo', 'arguments': {'message': 'hi'}}}]"
    )
    messages = [
        {"role": "user", "content": "Echo hi"},
        {"role": "assistant", "content": echoed},
        {"role": "user", "content": "Observation:\nhi"},
    ]
    body = json.dumps({"model": "m", "messages": messages}).encode()
    read = Endpoint(echo="text").parse(CHAT, body, 1).messages
    assert read == [
        {"role": "user", "content": "Echo hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "echo", "arguments": '{"message":"hi"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "hi", "zeroclaw_from_text": True},
    ]
    assert Endpoint().parse(CHAT, body, 1).messages == messages


def test_a_previous_response_that_is_not_kept_is_named_in_the_400() -> None:
    with pytest.raises(WireError) as raised:
        Endpoint().parse(
            RESPONSES, json.dumps({"model": "m", "input": "x", "previous_response_id": 5}).encode(), 1
        )
    assert (raised.value.status, raised.value.message) == (
        400,
        "Previous response with id 5 not found: this server keeps its last 1000 responses, except those"
        " of a request sent with store: false; send the whole input instead",
    )


def test_a_kept_replys_items_are_dropped_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(endpoint_module, "MAX_STORED", 1)
    endpoint = Endpoint()
    call = ToolCallRequest("c1", "echo", "{}")
    first = endpoint.parse(RESPONSES, json.dumps({"model": "m", "input": "go"}).encode(), 1)
    endpoint.reply(first, ModelResponse("On it.", (call,)))
    assert endpoint.item("fc_zeroclaw_1_1") == {
        "type": "function_call",
        "id": "fc_zeroclaw_1_1",
        "call_id": "c1",
        "name": "echo",
        "arguments": "{}",
        "status": "completed",
    }
    endpoint.reply(
        endpoint.parse(RESPONSES, json.dumps({"model": "m", "input": "hi"}).encode(), 2), ModelResponse("x")
    )
    assert (endpoint.item("msg_zeroclaw_1"), endpoint.item("fc_zeroclaw_1_1")) == (None, None)
    assert endpoint.item("msg_zeroclaw_2") is not None
