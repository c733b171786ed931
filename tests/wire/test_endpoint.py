"""`zeroclaw_eval.wire.endpoint`: requests of either API read into one shape, and
replies written back in the shape asked for."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest
from zeroclaw_eval.errors import Divergence, EvalError, WireError
from zeroclaw_eval.wire import endpoint as openai_endpoint
from zeroclaw_eval.wire.endpoint import (
    CHAT,
    GEMINI,
    MESSAGES,
    MODELS,
    RESPONSES,
    Endpoint,
    Reply,
    WireRequest,
    refusal,
    route,
    route_of,
    too_large,
)
from zeroclaw_eval.wire.limits import MAX_BODY


def body(**fields: Any) -> bytes:
    return json.dumps({"model": "m", **fields}).encode("utf-8")


@pytest.mark.parametrize(
    ("method", "path", "api"),
    [
        ("POST", "/v1/chat/completions", CHAT),
        ("POST", "/chat/completions?x=1", CHAT),
        ("POST", "/v1/responses/", RESPONSES),
        ("POST", "/v2/chat/completions", None),
        ("GET", "/v1/responses", None),
        ("GET", "/v1/models", MODELS),
        ("GET", "/models/?x=1", MODELS),
        ("POST", "/v1/models", None),
        ("POST", "/v1beta/models/gemini-2.5-flash:generateContent", GEMINI),
        ("POST", "/v1/models/m:streamGenerateContent?alt=sse", GEMINI),
        ("POST", "/v1beta/models/m:countTokens", None),
        ("POST", "/v1beta/models/a/b:generateContent", None),
    ],
)
def test_routes_name_their_api(method: str, path: str, api: str | None) -> None:
    assert route_of(method, path) == api


@pytest.mark.parametrize(
    ("path", "model", "flags"),
    [
        ("/v1beta/models/m-1.5:generateContent", "m-1.5", set()),
        ("/v1/models/m:streamGenerateContent", "m", {"stream"}),
        ("/v1beta/models/m:streamGenerateContent?alt=sse&key=x", "m", {"stream", "sse"}),
        ("/v1beta/models/m:generateContent?key=x&alt=sse", "m", {"sse"}),
        ("/v1/chat/completions?alt=sse", None, {"sse"}),
    ],
)
def test_a_route_reads_the_model_and_the_flags_its_path_names(path: str, model: str, flags: set[str]) -> None:
    found = route("POST", path)
    assert (found.model, set(found.flags)) == (model, flags)


def test_a_gemini_request_streams_as_its_path_says() -> None:
    body = json.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}).encode()
    endpoint = Endpoint()
    plain = endpoint.take("POST", "/v1beta/models/m:generateContent", body, None)
    sse = endpoint.take("POST", "/v1beta/models/m:streamGenerateContent?alt=sse", body, None)
    array = endpoint.take("POST", "/v1beta/models/m:streamGenerateContent", body, None)
    assert isinstance(plain, WireRequest)
    assert isinstance(sse, WireRequest)
    assert isinstance(array, WireRequest)
    assert (plain.model, plain.stream, sse.stream, array.stream) == ("m", False, True, True)
    answer = ModelResponse("a long enough answer to come in several pieces", (), 3, 9)
    assert endpoint.reply(sse, answer).body.startswith(b"data: {")
    chunks = json.loads(endpoint.reply(array, answer).body)
    assert "".join(c["candidates"][0]["content"]["parts"][0]["text"] for c in chunks) == answer.content
    assert chunks[-1]["usageMetadata"] == {
        "promptTokenCount": 3,
        "candidatesTokenCount": 9,
        "totalTokenCount": 12,
    }
    assert [c["candidates"][0].get("finishReason") for c in chunks][-1] == "STOP"
    whole = json.loads(endpoint.reply(plain, answer).body)
    assert whole["candidates"][0]["content"]["parts"] == [{"text": answer.content}]


def test_instructions_lead_and_a_stored_response_is_continued() -> None:
    endpoint = Endpoint()
    first = endpoint.parse(RESPONSES, body(input="hi", instructions="be brief"), 1)
    assert first.messages == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    endpoint.reply(first, ModelResponse("hello"))
    later = endpoint.parse(RESPONSES, body(input="again", previous_response_id="resp_zeroclaw_1"), 2)
    # The instructions of the first request do not carry over; the conversation does.
    assert later.messages == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "again"},
    ]


def test_an_item_reference_reads_as_the_output_item_it_names() -> None:
    # The Vercel AI SDK sends earlier assistant text as a reference while store is on,
    # and the calls beside it whole.
    endpoint = Endpoint()
    first = endpoint.parse(RESPONSES, body(input="go"), 1)
    call = ToolCallRequest("c1", "echo", '{"message":"x"}')
    endpoint.reply(first, ModelResponse("Looking.", (call,)))
    items = [
        {"role": "user", "content": "go"},
        {"type": "item_reference", "id": "msg_zeroclaw_1"},
        {"type": "function_call", "call_id": "c1", "name": "echo", "arguments": '{"message":"x"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "x"},
    ]
    later = endpoint.parse(RESPONSES, body(input=items), 2)
    assert later.messages == [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "Looking.", "tool_calls": [call.as_openai()]},
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
    ]
    # A call may be referred to as well.
    by_reference = [items[0], {"type": "item_reference", "id": "fc_zeroclaw_1_1"}, items[3]]
    assert endpoint.parse(RESPONSES, body(input=by_reference), 3).messages[1]["tool_calls"] == [
        call.as_openai()
    ]


def test_store_false_keeps_nothing_to_continue_or_refer_to() -> None:
    endpoint = Endpoint()
    endpoint.reply(endpoint.parse(RESPONSES, body(input="hi", store=False), 1), ModelResponse("hello"))
    with pytest.raises(WireError, match="except those of a request sent with store: false"):
        endpoint.parse(RESPONSES, body(input="x", previous_response_id="resp_zeroclaw_1"), 2)
    with pytest.raises(WireError, match="Item with id 'msg_zeroclaw_1' not found"):
        endpoint.parse(RESPONSES, body(input=[{"type": "item_reference", "id": "msg_zeroclaw_1"}]), 3)
    # What a client sends whole under store: false is read as sent, ids and all.
    whole = [
        {"role": "assistant", "id": "msg_zeroclaw_1", "content": [{"type": "output_text", "text": "hello"}]}
    ]
    assert endpoint.parse(RESPONSES, body(input=whole), 4).messages == [
        {"role": "assistant", "content": "hello"}
    ]


def test_a_body_of_too_many_values_is_refused_before_it_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    # `[{},{},...]` at the byte limit would parse to over 500 MiB of objects.
    monkeypatch.setattr(openai_endpoint, "MAX_VALUES", 1000)
    many = json.dumps({"model": "m", "messages": [{}] * 2000}).encode()
    with pytest.raises(WireError) as raised:
        Endpoint().parse(CHAT, many, 1)
    assert raised.value.status == 413
    assert "holds more than 1,000 JSON values" in raised.value.message


def test_commas_inside_strings_are_text_not_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openai_endpoint, "MAX_VALUES", 1000)
    csv = "a,b,{c},[d]," * 5000  # a tool result of a long CSV
    text = json.dumps({"model": "m", "messages": [{"role": "user", "content": csv}]}).encode()
    assert openai_endpoint.json_values(text) < 20  # the strings and what separates them
    assert Endpoint().parse(CHAT, text, 1).messages[0]["content"] == csv


def test_store_must_be_a_boolean() -> None:
    with pytest.raises(WireError, match="store must be true or false"):
        Endpoint().parse(RESPONSES, body(input="hi", store="false"), 1)


def test_a_reply_echoing_a_lone_surrogate_is_still_json() -> None:
    endpoint = Endpoint()
    request = endpoint.parse(RESPONSES, body(input="hi", instructions="\ud800"), 1)
    reply = endpoint.reply(request, ModelResponse("hello"))
    assert json.loads(reply.body)["instructions"] == "\ud800"


def test_only_the_newest_responses_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openai_endpoint, "MAX_STORED", 2)
    endpoint = Endpoint()
    for number in (1, 2, 3):
        endpoint.reply(endpoint.parse(RESPONSES, body(input="hi"), number), ModelResponse("hello"))
    with pytest.raises(WireError, match="'resp_zeroclaw_1' not found"):
        endpoint.parse(RESPONSES, body(input="x", previous_response_id="resp_zeroclaw_1"), 4)
    assert endpoint.parse(RESPONSES, body(input="x", previous_response_id="resp_zeroclaw_3"), 5).messages
    # Their output items go with them.
    with pytest.raises(WireError, match="'msg_zeroclaw_1' not found"):
        endpoint.parse(RESPONSES, body(input=[{"type": "item_reference", "id": "msg_zeroclaw_1"}]), 6)
    assert endpoint.parse(RESPONSES, body(input=[{"type": "item_reference", "id": "msg_zeroclaw_3"}]), 7)
    endpoint.forget()
    with pytest.raises(WireError, match="'resp_zeroclaw_3' not found"):
        endpoint.parse(RESPONSES, body(input="x", previous_response_id="resp_zeroclaw_3"), 1)


def test_a_reply_a_fault_cuts_off_is_not_kept() -> None:
    endpoint = Endpoint()
    endpoint.reply(endpoint.parse(RESPONSES, body(input="hi"), 1), ModelResponse("hello"), keep=False)
    with pytest.raises(WireError):
        endpoint.parse(RESPONSES, body(input="x", previous_response_id="resp_zeroclaw_1"), 2)


@pytest.mark.parametrize("api", [CHAT, RESPONSES])
def test_event_data_is_ascii_so_no_reader_splits_a_line_inside_it(api: str) -> None:
    # Some SSE readers also end lines at U+2028, U+2029 and U+0085.
    endpoint = Endpoint()
    fields = {"messages": [{"role": "user", "content": "hi"}]} if api == CHAT else {"input": "hi"}
    request = endpoint.parse(api, body(stream=True, **fields), 1)
    reply = endpoint.reply(request, ModelResponse("a\u2028b\u2029c\x85d é"))
    assert reply.content_type == "text/event-stream"
    reply.body.decode("ascii")  # raises if any byte is not ASCII
    assert "\\u2028" in reply.body.decode("ascii")


@pytest.mark.parametrize(
    ("api", "sent", "words"),
    [
        (CHAT, b"[1, 2]", "not a JSON object"),
        (CHAT, b'{"a":' * 5_000 + b"1" + b"}" * 5_000, "not a JSON object"),  # deeper than json recurses
        (CHAT, b'{"messages": []}', "names no model"),
        (CHAT, body(messages="hi"), "no messages list"),
        (RESPONSES, body(input=5), "input must be a string or a list of items"),
        # What the Messages API requires, the wire requires.
        (MESSAGES, body(messages=[{"role": "user", "content": "hi"}]), "max_tokens: Field required"),
        (MESSAGES, body(max_tokens=64), "messages: at least one message is required"),
        (MESSAGES, body(max_tokens=64, messages=[]), "messages: at least one message is required"),
        (CHAT, body(messages=[]), "Invalid 'messages': empty array"),
        (MESSAGES, b'{"max_tokens": 64, "messages": []}', "names no model"),
    ],
)
def test_a_request_that_is_not_one_is_a_400(api: str, sent: bytes, words: str) -> None:
    with pytest.raises(WireError, match=words) as caught:
        Endpoint().parse(api, sent, 1)
    assert caught.value.status == 400


@pytest.mark.parametrize(
    ("method", "path", "models", "status", "words"),
    [
        ("GET", "/v1/models", ["case_a", "case_b"], 200, '"id": "case_a"'),
        ("GET", "/v1/models", None, 404, "no route GET /v1/models"),
        ("GET", "/v1/chat/completions", ["m"], 404, "no route GET /v1/chat/completions"),
        ("POST", "/v1/embeddings", ["m"], 404, "no route POST /v1/embeddings"),
        ("POST", "/v1/chat/completions", ["m"], 400, "not a JSON object"),
    ],
)
def test_take_answers_every_request_that_asks_for_no_model_answer(
    method: str, path: str, models: list[str] | None, status: int, words: str
) -> None:
    taken = Endpoint().take(method, path, b"[]", models)
    assert isinstance(taken, Reply)
    assert taken.status == status
    assert words in taken.body.decode("utf-8")


def test_take_reads_a_model_request_of_either_api() -> None:
    endpoint = Endpoint()
    chat = endpoint.take(
        "POST", "/chat/completions", body(messages=[{"role": "user", "content": "hi"}]), None
    )
    responses = endpoint.take("POST", "/v1/responses/", body(input="hi"), ["m"])
    assert isinstance(chat, WireRequest)
    assert isinstance(responses, WireRequest)
    assert (chat.api, responses.api) == (CHAT, RESPONSES)
    assert chat.messages == responses.messages == [{"role": "user", "content": "hi"}]


def test_a_messages_request_without_max_tokens_gets_the_apis_400() -> None:
    # The real API refuses it with a 400 invalid_request_error the SDKs raise as
    # BadRequestError: an agent that never sends max_tokens fails here as in production.
    hello = [{"role": "user", "content": "hi"}]
    refused = Endpoint().take("POST", "/v1/messages", body(messages=hello), None)
    assert isinstance(refused, Reply)
    assert refused.status == 400
    error = json.loads(refused.body)
    assert error["type"] == "error"
    assert error["error"]["type"] == "invalid_request_error"
    assert error["error"]["message"].startswith("max_tokens: Field required")
    taken = Endpoint().take("POST", "/v1/messages", body(max_tokens=64, messages=hello), None)
    assert isinstance(taken, WireRequest)
    assert taken.messages == hello


def test_the_one_body_limit_refuses_past_it_and_says_both_sizes() -> None:
    assert too_large(MAX_BODY) is None
    refused = too_large(MAX_BODY + 1)
    assert refused is not None
    assert refused.status == 413
    assert f"the request body is {MAX_BODY + 1} bytes; the limit is {MAX_BODY}" in refused.body.decode()


@pytest.mark.parametrize(
    ("error", "status", "kind"),
    [
        (WireError(413, "too big", "request_too_large"), 413, "request_too_large"),
        (Divergence("off"), 400, "divergence"),
    ],
)
def test_a_refusal_is_the_error_the_official_clients_raise(error: EvalError, status: int, kind: str) -> None:
    reply = refusal(error)
    assert reply.status == status
    assert json.loads(reply.body)["error"]["type"] == kind
    assert reply.error == str(error)


def test_every_model_request_is_numbered_as_it_arrives_answered_or_refused() -> None:
    # The number a reply's ids carry: the same count for serve, an agent command's front
    # and the in-process client, whatever happened to the requests before.
    endpoint = Endpoint()
    assert isinstance(endpoint.take("GET", "/v1/models", b"", ["m"]), Reply)  # not a model request
    assert isinstance(endpoint.take("POST", "/v1/chat/completions", b"[]", None), Reply)  # refused: 1
    taken = endpoint.take(
        "POST", "/v1/chat/completions", body(messages=[{"role": "user", "content": "hi"}]), None
    )
    assert isinstance(taken, WireRequest)
    assert taken.number == 2
    assert json.loads(endpoint.reply(taken, ModelResponse("hi")).body)["id"] == "chatcmpl-zeroclaw-2"
    endpoint.forget()
    again = endpoint.take("POST", "/v1/responses", body(input="hi"), None)
    assert isinstance(again, WireRequest)
    assert again.number == 1
