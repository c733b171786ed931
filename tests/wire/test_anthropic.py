"""`zeroclaw_eval.wire.anthropic`: Messages requests read as the chat conversation the
script follows, and replies written as the SDKs read them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice, ToolSpec
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire.anthropic import (
    client_request,
    error_body,
    message_body,
    message_events,
    messages_request,
    offered_tools,
    parse,
    parsed_message,
    request_messages,
    tool_choice,
)
from zeroclaw_eval.wire.endpoint import Endpoint

CALL = ToolCallRequest("toolu_1", "get_weather", '{"city":"Paris"}')


def test_a_tool_round_reads_as_chat_messages() -> None:
    request = {
        "system": [{"type": "text", "text": "Be brief. "}, {"type": "text", "text": "Use tools."}],
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "...", "signature": "s"},
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [{"type": "text", "text": "sunny"}],
                    },
                    {"type": "text", "text": "And Oslo?"},
                ],
            },
        ],
    }
    assert request_messages(request) == [
        {"role": "system", "content": "Be brief. Use tools."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Looking.", "tool_calls": [CALL.as_openai()]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "sunny"},
        {"role": "user", "content": "And Oslo?"},
    ]


def test_a_result_marked_is_error_keeps_the_mark() -> None:
    blocks = [{"type": "tool_result", "tool_use_id": "t", "content": "no such city", "is_error": True}]
    (result,) = request_messages({"messages": [{"role": "user", "content": blocks}]})
    assert result == {"role": "tool", "tool_call_id": "t", "content": "no such city", "is_error": True}


@pytest.mark.parametrize(
    ("request_body", "words"),
    [
        ({}, "messages: at least one message is required"),
        ({"messages": [{"role": "system", "content": "x"}]}, "messages[0]: role must be user or assistant"),
        ({"messages": [{"role": "user", "content": 3}]}, "messages[0]: content must be a string or a list"),
        ({"messages": [{"role": "user", "content": ["x"]}]}, "messages[0].content[0] is not a block"),
        ({"system": 3, "messages": []}, "system must be a string or a list of text blocks"),
        (
            {"messages": [{"role": "assistant", "content": [{"type": "server_tool_use", "id": "s"}]}]},
            "messages[0].content[0] is a 'server_tool_use' block",
        ),
        (
            {"messages": [{"role": "user", "content": []}]},
            "messages[0]: all messages must have non-empty content",
        ),
        (
            {"messages": [{"role": "assistant", "content": [{"type": ["x"]}]}]},
            "content[0] is not a block with a type",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "and then"},
                            {"type": "tool_result", "tool_use_id": "t", "content": "x"},
                        ],
                    }
                ]
            },
            "messages[0].content[1]: tool_result blocks must come first in a user message",
        ),
    ],
)
def test_a_request_the_translation_cannot_take_is_a_400(request_body: dict[str, Any], words: str) -> None:
    with pytest.raises(WireError) as raised:
        request_messages(request_body)
    assert raised.value.status == 400
    assert words in raised.value.message


def test_only_text_blocks_are_the_users_text() -> None:
    image = {"type": "image", "text": "What is the weather in Paris?", "source": {}}
    (message,) = request_messages({"messages": [{"role": "user", "content": [image]}]})
    assert message["content"] == [image]  # not the text it smuggles


@pytest.mark.parametrize(
    ("arguments", "received"),
    [('"just a string"', "just a string"), ("not json", "not json"), ("[1,2]", [1, 2])],
)
def test_odd_arguments_read_alike_plain_and_streamed(arguments: str, received: Any) -> None:
    response = ModelResponse(None, (ToolCallRequest("t1", "echo", arguments),))
    assert message_body(response, "m", 1)["content"][0]["input"] == received
    partial = [
        e["delta"]["partial_json"]
        for e in message_events(response, "m", 1)
        if e["type"] == "content_block_delta"
    ]
    assert json.loads("".join(partial)) == received


def test_client_tools_are_offered_and_server_tools_left_out() -> None:
    tools = [
        {"name": "get_weather", "description": "Weather.", "input_schema": {"type": "object"}},
        {"type": "custom", "name": "save_note", "input_schema": {"type": "object"}},
        {"type": "web_search_20250305", "name": "web_search"},
        "junk",
    ]
    assert [spec.name for spec in offered_tools(tools)] == ["get_weather", "save_note"]
    assert offered_tools(tools)[0].description == "Weather."


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (None, ToolChoice()),
        ({"type": "auto", "disable_parallel_tool_use": True}, ToolChoice(parallel=False)),
        ({"type": "any"}, ToolChoice("required")),
        ({"type": "tool", "name": "get_weather"}, ToolChoice("function", "get_weather")),
        ({"type": "none"}, ToolChoice("none")),
    ],
)
def test_tool_choice_reads_as_what_the_model_may_do(given: Any, expected: ToolChoice) -> None:
    assert tool_choice({} if given is None else {"tool_choice": given}) == expected


@pytest.mark.parametrize(
    "given",
    ["auto", {"type": "tool"}, {"type": "sometimes"}, {"type": "auto", "disable_parallel_tool_use": "true"}],
)
def test_a_tool_choice_the_api_does_not_take_is_a_400(given: Any) -> None:
    with pytest.raises(WireError, match="tool_choice"):
        tool_choice({"tool_choice": given})


def test_the_reply_is_a_message_with_text_then_tool_use_blocks() -> None:
    body = message_body(ModelResponse("Looking.", (CALL,), 12, 5), "claude-x", 3)
    assert body["id"] == "msg_zeroclaw_3"
    assert body["content"] == [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    ]
    assert (body["stop_reason"], body["usage"]["input_tokens"], body["usage"]["output_tokens"]) == (
        "tool_use",
        12,
        5,
    )
    assert message_body(ModelResponse("done"), "m", 1)["stop_reason"] == "end_turn"


def test_the_stream_builds_the_same_message_in_pieces() -> None:
    response = ModelResponse("A scripted answer long enough to come in pieces.", (CALL,), 12, 5)
    events = message_events(response, "claude-x", 3)
    kinds = [event["type"] for event in events]
    assert kinds[:2] == ["message_start", "ping"]
    assert kinds[-2:] == ["message_delta", "message_stop"]
    texts = [e["delta"]["text"] for e in events if e["type"] == "content_block_delta" and e["index"] == 0]
    partial = [
        e["delta"]["partial_json"] for e in events if e["type"] == "content_block_delta" and e["index"] == 1
    ]
    assert len(texts) > 1
    assert "".join(texts) == response.content
    assert json.loads("".join(partial)) == {"city": "Paris"}
    assert events[0]["message"]["usage"]["input_tokens"] == 12
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    assert events[-2]["usage"]["output_tokens"] == 5


def test_errors_take_the_shape_and_type_the_sdks_read() -> None:
    assert error_body(400, "why") == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "why"},
    }
    assert error_body(429, "slow")["error"]["type"] == "rate_limit_error"
    assert error_body(409, "over")["error"]["type"] == "invalid_request_error"
    assert error_body(502, "down")["error"]["type"] == "api_error"


CHAT_ROUND: list[Any] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris and Oslo?"},
    {
        "role": "assistant",
        "content": "Looking.",
        "tool_calls": [
            CALL.as_openai(),
            ToolCallRequest("toolu_2", "get_weather", '{"city":"Oslo"}').as_openai(),
        ],
    },
    {"role": "tool", "tool_call_id": "toolu_1", "content": "sunny"},
    {"role": "tool", "tool_call_id": "toolu_2", "content": "no data", "is_error": True},
]


def test_a_chat_conversation_becomes_a_messages_request_that_reads_back_the_same() -> None:
    body = messages_request(CHAT_ROUND, [], ToolChoice())
    assert body["system"] == "Be brief."
    # The two results are one user message: the API takes no two user messages in a row.
    assert [message["role"] for message in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][2]["content"][1] == {
        "type": "tool_result",
        "tool_use_id": "toolu_2",
        "content": "no data",
        "is_error": True,
    }
    assert "tools" not in body
    assert request_messages(body) == CHAT_ROUND


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        (ToolChoice(), {"type": "auto"}),
        (ToolChoice("required", parallel=False), {"type": "any", "disable_parallel_tool_use": True}),
        (ToolChoice("function", "get_weather"), {"type": "tool", "name": "get_weather"}),
        (ToolChoice("none"), {"type": "none"}),
    ],
)
def test_tools_and_the_choice_are_sent_in_the_apis_words(choice: ToolChoice, sent: dict[str, Any]) -> None:
    spec = ToolSpec("get_weather", "Weather.", {"type": "object"})
    body = messages_request([{"role": "user", "content": "hi"}], [spec], choice)
    assert body["tools"] == [
        {"name": "get_weather", "description": "Weather.", "input_schema": {"type": "object"}}
    ]
    assert body["tool_choice"] == sent
    assert tool_choice(body) == choice


def test_a_message_body_reads_as_the_reply_it_holds() -> None:
    # The body says no cache was read (0), where the scripted reply left it unsaid.
    response = ModelResponse("Looking.", (CALL,), 12, 5, cached_input_tokens=0)
    assert parsed_message(message_body(response, "m", 1)) == response
    with pytest.raises(ValueError, match="no content list"):
        parsed_message({"choices": []})


HELLO: list[Any] = [{"role": "user", "content": "hi"}]


def test_a_request_without_max_tokens_is_refused_as_the_api_refuses_it() -> None:
    # The real API answers 400 "max_tokens: Field required": an agent that never sends it
    # must fail the gate, not pass it and fail in production.
    with pytest.raises(WireError) as raised:
        parse({"model": "claude-x", "messages": HELLO}, 1, "claude-x", Endpoint())
    assert raised.value.status == 400
    assert raised.value.message.startswith("max_tokens: Field required")


@pytest.mark.parametrize("given", [None, -1, 1.5, "many", [1024], {"max": 1024}])
def test_a_max_tokens_that_is_no_whole_number_of_tokens_is_refused(given: Any) -> None:
    request = {"model": "claude-x", "max_tokens": given, "messages": HELLO}
    with pytest.raises(
        WireError, match="max_tokens must be a whole number of tokens, 0 or more, not "
    ) as raised:
        parse(request, 1, "claude-x", Endpoint())
    assert raised.value.status == 400


def test_a_long_refused_max_tokens_is_quoted_cut() -> None:
    request = {"model": "claude-x", "max_tokens": "x" * 10_000, "messages": HELLO}
    with pytest.raises(WireError) as raised:
        parse(request, 1, "claude-x", Endpoint())
    assert len(raised.value.message) < 200
    assert raised.value.message.endswith("…")


@pytest.mark.parametrize("given", [1024, 1, 0, 1024.0, "1024", True])
def test_a_max_tokens_the_api_may_take_is_taken(given: Any) -> None:
    # 0 warms the prompt cache; the others are what a lenient integer field reads as one.
    request = {"model": "claude-x", "max_tokens": given, "messages": HELLO}
    assert parse(request, 1, "claude-x", Endpoint()).messages == HELLO


def test_an_empty_model_is_refused() -> None:
    with pytest.raises(WireError, match="names no model: its model is an empty string"):
        parse({"model": "", "max_tokens": 64, "messages": HELLO}, 1, "", Endpoint())


def test_the_live_client_sends_what_its_own_wire_requires() -> None:
    body = client_request("claude-x", HELLO, [], ToolChoice(), temperature=None, max_tokens=None)
    assert body["max_tokens"] == 4096
    assert parse(body, 1, "claude-x", Endpoint()).messages == HELLO


def test_a_system_string_and_string_contents_read_as_they_are() -> None:
    request = {
        "system": "Be brief.",
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
    }
    assert request_messages(request) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
    ]


def test_an_assistant_message_of_calls_alone_has_no_text_and_a_call_without_input_no_arguments() -> None:
    blocks = [
        {"type": "redacted_thinking", "data": "..."},
        {"type": "tool_use", "id": "toolu_1", "name": "list_dir"},
        {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {"city": "Paris"}},
    ]
    (message,) = request_messages({"messages": [{"role": "assistant", "content": blocks}]})
    assert message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}},
            {
                "id": "toolu_2",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            },
        ],
    }


def test_an_assistant_text_block_without_text_is_refused() -> None:
    blocks = [{"type": "text", "text": 5}]
    with pytest.raises(
        WireError, match=r"messages\[0\]\.content\[0\] is a 'text' block, which this server does"
    ):
        request_messages({"messages": [{"role": "assistant", "content": blocks}]})


def test_tool_results_read_as_tool_messages_whatever_their_content() -> None:
    image = {"type": "image", "source": {"type": "url", "url": "https://example.com/chart.png"}}
    blocks = [
        {"type": "tool_result", "tool_use_id": "t1"},
        {"type": "tool_result", "tool_use_id": "t2", "content": [image], "is_error": "true"},
        {"type": "tool_result", "tool_use_id": "t3", "content": "ok", "is_error": False},
        {"type": "text", "text": "Go "},
        {"type": "text", "text": "on."},
    ]
    assert request_messages({"messages": [{"role": "user", "content": blocks}]}) == [
        {"role": "tool", "tool_call_id": "t1", "content": ""},
        {"role": "tool", "tool_call_id": "t2", "content": [image]},  # only a true is_error fails the call
        {"role": "tool", "tool_call_id": "t3", "content": "ok"},
        {"role": "user", "content": "Go on."},
    ]


def test_a_user_message_of_text_beside_an_image_is_kept_as_its_blocks() -> None:
    blocks = [{"type": "text", "text": "What is this?"}, {"type": "image", "source": {}}]
    assert request_messages({"messages": [{"role": "user", "content": blocks}]}) == [
        {"role": "user", "content": blocks}
    ]


def test_tools_without_a_name_are_skipped_and_odd_fields_read_as_none() -> None:
    tools = [
        {"description": "No name.", "input_schema": {"type": "object"}},
        {"name": "ping", "description": 3, "input_schema": "object"},
    ]
    assert offered_tools(tools) == [ToolSpec("ping", "", {})]
    assert offered_tools({"name": "ping"}) == []


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"type": "any", "disable_parallel_tool_use": True}, ToolChoice("required", parallel=False)),
        (
            {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True},
            ToolChoice("function", "get_weather", parallel=False),
        ),
        ({"type": "auto", "disable_parallel_tool_use": False}, ToolChoice()),
    ],
)
def test_disable_parallel_tool_use_allows_one_call_at_most(given: Any, expected: ToolChoice) -> None:
    assert tool_choice({"tool_choice": given}) == expected


@pytest.mark.parametrize(
    ("given", "words"),
    [
        (
            {"type": "tool", "name": ""},
            "tool_choice {'type': 'tool', 'name': ''} is not auto, any, none or a tool with its name",
        ),
        ("any", "tool_choice 'any' is not auto, any, none or a tool with its name"),
        (
            {"type": "any", "disable_parallel_tool_use": 1},
            "tool_choice.disable_parallel_tool_use must be true or false, not 1",
        ),
    ],
)
def test_a_refused_tool_choice_is_quoted(given: Any, words: str) -> None:
    with pytest.raises(WireError) as raised:
        tool_choice({"tool_choice": given})
    assert (raised.value.status, raised.value.message) == (400, words)


@pytest.mark.parametrize(
    ("request_body", "words"),
    [
        ({"system": {"text": "x"}, "messages": HELLO}, "system must be a string or a list of text blocks"),
        ({"messages": "hi"}, "messages: at least one message is required"),
        ({"messages": [*HELLO, "hi"]}, "messages[1]: role must be user or assistant"),
        (
            {"messages": [*HELLO, {"role": "assistant", "content": ["x"]}]},
            "messages[1].content[0] is not a block with a type",
        ),
        (
            {"messages": [*HELLO, {"role": "assistant", "content": [{"type": "image"}]}]},
            "messages[1].content[0] is a 'image' block, which this server does not take in an assistant"
            " message; send text and tool_use blocks",
        ),
    ],
)
def test_a_refused_request_says_which_message_and_why(request_body: dict[str, Any], words: str) -> None:
    with pytest.raises(WireError) as raised:
        request_messages(request_body)
    assert (raised.value.status, raised.value.message) == (400, words)


def test_an_assistant_messages_text_blocks_are_joined_as_they_are() -> None:
    blocks = [{"type": "text", "text": "Looking "}, {"type": "text", "text": "now."}]
    assert request_messages({"messages": [{"role": "assistant", "content": blocks}]}) == [
        {"role": "assistant", "content": "Looking now."}
    ]


def test_a_client_tool_after_a_server_tool_is_still_offered() -> None:
    tools = [
        {"type": "bash_20250124", "name": "bash"},
        {"name": "save_note", "input_schema": {"type": "object"}},
    ]
    assert offered_tools(tools) == [ToolSpec("save_note", "", {"type": "object"})]


def test_the_refusals_of_required_fields_are_the_apis_words() -> None:
    with pytest.raises(WireError) as raised:
        parse({"model": "", "max_tokens": 64, "messages": HELLO}, 1, "", Endpoint())
    assert (raised.value.status, raised.value.message) == (
        400,
        "the request names no model: its model is an empty string",
    )
    with pytest.raises(WireError) as raised:
        parse({"model": "claude-x", "messages": HELLO}, 1, "claude-x", Endpoint())
    assert (raised.value.status, raised.value.message) == (
        400,
        "max_tokens: Field required (the Messages API refuses a request without max_tokens, the most"
        " tokens the reply may take; the anthropic SDKs always send it)",
    )
