"""`zeroclaw_eval.wire.responses` as the endpoint serves it: a Responses request read
through `Endpoint.parse`, and the `response` object or the stream of events written back,
field by field, as the official clients read them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice, ToolSpec
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire.endpoint import RESPONSES, Endpoint
from zeroclaw_eval.wire.responses import error_body, input_messages

CALL = ToolCallRequest("c1", "echo", '{"m":"x"}')
USAGE = {
    "input_tokens": 5,
    "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
    "output_tokens": 2,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 7,
}


def _body(**fields: Any) -> bytes:
    return json.dumps({"model": "gpt-x", **fields}).encode()


def _response(**changed: Any) -> dict[str, Any]:
    """The `response` object of request 4 for model gpt-x that says nothing else."""
    return {
        "id": "resp_zeroclaw_4",
        "object": "response",
        "created_at": 0,
        "completed_at": 0,
        "background": False,
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "model": "gpt-x",
        "output": [],
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": USAGE,
        "user": None,
        "metadata": {},
        **changed,
    }


MESSAGE: dict[str, Any] = {
    "type": "message",
    "id": "msg_zeroclaw_4",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Hi", "annotations": [], "logprobs": []}],
}
FUNCTION_CALL: dict[str, Any] = {
    "type": "function_call",
    "id": "fc_zeroclaw_4_1",
    "call_id": "c1",
    "name": "echo",
    "arguments": '{"m":"x"}',
    "status": "completed",
}


def test_a_request_reads_as_its_conversation_tools_and_choice() -> None:
    tools = [{"type": "function", "name": "echo", "parameters": {"type": "object"}}]
    request = Endpoint().parse(
        RESPONSES, _body(input="hi", instructions="Be brief.", tools=tools, tool_choice="required"), 4
    )
    assert (request.api, request.number, request.model) == ("responses", 4, "gpt-x")
    assert request.messages == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    assert request.history == [{"role": "user", "content": "hi"}]
    assert request.tools == [ToolSpec("echo", "", {"type": "object"})]
    assert (request.stream, request.include_usage) == (False, False)
    assert request.choice == ToolChoice("required")


@pytest.mark.parametrize(("stream", "streamed"), [(True, True), ("true", False), (None, False)])
def test_only_stream_true_asks_for_a_stream(stream: Any, streamed: bool) -> None:
    assert Endpoint().parse(RESPONSES, _body(input="hi", stream=stream), 1).stream is streamed


def test_a_request_without_input_or_with_instructions_that_are_not_text_is_empty() -> None:
    assert Endpoint().parse(RESPONSES, _body(instructions=["Be brief."]), 1).messages == []


def test_the_plain_reply_is_the_whole_response_echoing_the_requests_settings() -> None:
    endpoint = Endpoint()
    settings = {
        "instructions": "Be brief.",
        "max_output_tokens": 256,
        "parallel_tool_calls": False,
        "store": True,
        "temperature": 0.2,
        "tool_choice": "required",
        "tools": [{"type": "function", "name": "echo"}],
        "top_p": 0.9,
        "metadata": {"case": "zeroclaw_user"},
    }
    request = endpoint.parse(RESPONSES, _body(input="hi", **settings), 4)
    reply = endpoint.reply(request, ModelResponse("Hi", (CALL,), 5, 2))
    assert (reply.status, reply.content_type) == (200, "application/json")
    assert json.loads(reply.body) == _response(output=[MESSAGE, FUNCTION_CALL], **settings)


def test_a_reply_to_a_continued_response_names_it() -> None:
    endpoint = Endpoint()
    endpoint.reply(endpoint.parse(RESPONSES, _body(input="hi"), 3), ModelResponse("hello"))
    request = endpoint.parse(RESPONSES, _body(input="again", previous_response_id="resp_zeroclaw_3"), 4)
    body = json.loads(endpoint.reply(request, ModelResponse("Hi", (), 5, 2)).body)
    assert body == _response(output=[MESSAGE], previous_response_id="resp_zeroclaw_3")


def test_calls_alone_are_function_call_items_numbered_from_zero() -> None:
    endpoint = Endpoint()
    request = endpoint.parse(RESPONSES, _body(input="hi"), 4)
    body = json.loads(endpoint.reply(request, ModelResponse(None, (CALL,), 5, 2)).body)
    assert body["output"] == [{**FUNCTION_CALL, "id": "fc_zeroclaw_4_0"}]


def test_the_stream_builds_the_response_event_by_event() -> None:
    endpoint = Endpoint()
    request = endpoint.parse(RESPONSES, _body(input="hi", stream=True), 4)
    reply = endpoint.reply(request, ModelResponse("Hi", (CALL,), 5, 2))
    assert (reply.status, reply.content_type) == (200, "text/event-stream")
    events = []
    for chunk in reply.body.decode("ascii").split("\n\n")[:-1]:
        name, data = chunk.split("\n")
        event = json.loads(data.removeprefix("data: "))
        assert name == f"event: {event['type']}"
        events.append(event)
    pending = _response(status="in_progress", completed_at=None, usage=None)
    text_at: dict[str, Any] = {"item_id": "msg_zeroclaw_4", "output_index": 0, "content_index": 0}
    call_at: dict[str, Any] = {"item_id": "fc_zeroclaw_4_1", "output_index": 1}
    part: dict[str, Any] = MESSAGE["content"][0]
    expected: list[dict[str, Any]] = [
        {"type": "response.created", "response": pending},
        {"type": "response.in_progress", "response": pending},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**MESSAGE, "status": "in_progress", "content": []},
        },
        {"type": "response.content_part.added", **text_at, "part": {**part, "text": ""}},
        {"type": "response.output_text.delta", **text_at, "delta": "Hi", "logprobs": []},
        {"type": "response.output_text.done", **text_at, "text": "Hi", "logprobs": []},
        {"type": "response.content_part.done", **text_at, "part": part},
        {"type": "response.output_item.done", "output_index": 0, "item": MESSAGE},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**FUNCTION_CALL, "status": "in_progress", "arguments": ""},
        },
        {"type": "response.function_call_arguments.delta", **call_at, "delta": '{"m":"x"}'},
        {
            "type": "response.function_call_arguments.done",
            **call_at,
            "arguments": '{"m":"x"}',
            "name": "echo",
        },
        {"type": "response.output_item.done", "output_index": 1, "item": FUNCTION_CALL},
        {"type": "response.completed", "response": _response(output=[MESSAGE, FUNCTION_CALL])},
    ]
    assert events == [{**event, "sequence_number": at} for at, event in enumerate(expected)]


def test_streamed_text_comes_in_pieces_of_24_characters_and_empty_arguments_in_none() -> None:
    endpoint = Endpoint()
    request = endpoint.parse(RESPONSES, _body(input="hi", stream=True), 1)
    text = "a" * 24 + "b"
    bare = ToolCallRequest("c2", "list_dir", "")
    body = endpoint.reply(request, ModelResponse(text, (bare,))).body.decode("ascii")
    events = [json.loads(chunk.split("\n")[1].removeprefix("data: ")) for chunk in body.split("\n\n")[:-1]]
    assert [e["delta"] for e in events if e["type"] == "response.output_text.delta"] == ["a" * 24, "b"]
    assert [e["type"] for e in events if e["type"].startswith("response.function_call_arguments")] == [
        "response.function_call_arguments.done"
    ]


def test_a_reply_is_kept_to_be_continued_with_its_calls() -> None:
    endpoint = Endpoint()
    endpoint.reply(
        endpoint.parse(RESPONSES, _body(input="go", store=True), 1), ModelResponse("On it.", (CALL,))
    )
    later = endpoint.parse(RESPONSES, _body(previous_response_id="resp_zeroclaw_1"), 2)
    assert later.messages == [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "On it.", "tool_calls": [CALL.as_openai()]},
    ]


def test_items_without_a_type_are_messages_and_calls_after_a_user_join_no_one() -> None:
    items = [
        {"role": "user", "content": "go"},
        {"type": "function_call", "call_id": "c1", "name": "list_dir"},
        {"type": "message", "role": "assistant", "content": "Done."},
        {"type": "function_call", "call_id": "c2", "name": "echo", "arguments": "{}"},
    ]
    assert input_messages(items) == [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "list_dir", "arguments": ""}}
            ],
        },
        {
            "role": "assistant",
            "content": "Done.",
            "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "echo", "arguments": "{}"}}],
        },
    ]


def test_an_output_that_is_not_text_is_kept_as_sent() -> None:
    output = [{"type": "input_image", "image_url": "https://example.com/a.png"}]
    items = [{"type": "function_call_output", "call_id": "c1", "output": output}]
    assert input_messages(items) == [{"role": "tool", "tool_call_id": "c1", "content": output}]


@pytest.mark.parametrize(
    ("items", "words"),
    [
        ([{"type": 3}], "input[0].type must be a string, not 3"),
        (
            [{"role": "user", "content": "x"}, {"type": "web_search_call"}],
            "input[1] is a 'web_search_call' item, which this server does not take; send messages,"
            " function_call and function_call_output items",
        ),
        (
            [{"type": "item_reference", "id": 7}],
            "Item with id 7 not found (input[0] is an item_reference): this server keeps the output"
            " items of its recent replies, except those of a request sent with store: false; send"
            " the item itself instead",
        ),
        ([{"role": "user", "content": "x"}, "y"], "input[1] is not an object"),
    ],
)
def test_an_item_the_translation_cannot_take_is_named_in_the_400(items: Any, words: str) -> None:
    with pytest.raises(WireError) as raised:
        input_messages(items)
    assert (raised.value.status, raised.value.message) == (400, words)


@pytest.mark.parametrize("store", ["false", 0, None])
def test_a_store_that_is_not_a_boolean_is_quoted(store: Any) -> None:
    with pytest.raises(WireError) as raised:
        Endpoint().parse(RESPONSES, _body(input="hi", store=store), 1)
    assert (raised.value.status, raised.value.message) == (400, f"store must be true or false, not {store!r}")


def test_an_error_is_the_openai_error_body() -> None:
    assert error_body(404, "gone", "not_found") == {
        "error": {"message": "gone", "type": "not_found", "code": 404}
    }


def test_a_reply_to_a_request_sent_with_store_false_says_so() -> None:
    endpoint = Endpoint()
    request = endpoint.parse(RESPONSES, _body(input="hi", store=False), 4)
    assert json.loads(endpoint.reply(request, ModelResponse("Hi", (), 5, 2)).body) == _response(
        output=[MESSAGE], store=False
    )


def test_a_call_that_opens_the_input_is_an_assistant_message_of_its_own() -> None:
    items = [{"type": "function_call", "call_id": "c1", "name": "echo", "arguments": "{}"}]
    assert input_messages(items) == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "echo", "arguments": "{}"}}],
        }
    ]


@pytest.mark.parametrize("item_id", [["msg_zeroclaw_1"], None])
def test_a_reference_whose_id_is_not_text_is_an_item_not_found(item_id: Any) -> None:
    endpoint = Endpoint()
    endpoint.reply(endpoint.parse(RESPONSES, _body(input="hi"), 1), ModelResponse("hello"))
    with pytest.raises(WireError) as raised:
        endpoint.parse(RESPONSES, _body(input=[{"type": "item_reference", "id": item_id}]), 2)
    assert raised.value.message.startswith(
        f"Item with id {item_id!r} not found (input[0] is an item_reference)"
    )


def test_an_input_that_is_no_string_or_list_is_refused_in_those_words() -> None:
    with pytest.raises(WireError) as raised:
        Endpoint().parse(RESPONSES, _body(input={"role": "user"}), 1)
    assert (raised.value.status, raised.value.message) == (400, "input must be a string or a list of items")
