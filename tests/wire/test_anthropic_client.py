"""`zeroclaw_eval.wire.anthropic` as the live client speaks it: the Messages request the
harness sends for a chat conversation, where it goes, its headers, and the reply read."""

from __future__ import annotations

from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice, ToolSpec
from zeroclaw_eval.wire.anthropic import (
    client_headers,
    client_request,
    client_signed,
    client_url,
    messages_request,
    read_reply,
    request_messages,
)

CALL = ToolCallRequest("toolu_1", "get_weather", '{"city":"Paris"}')


def test_a_user_message_after_tool_results_joins_their_user_message() -> None:
    # The API takes no two user messages in a row: the follow-up goes beside the results.
    chat: list[Any] = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [CALL.as_openai()]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "sunny"},
        {"role": "user", "content": "Thanks. And Oslo?"},
    ]
    body = messages_request(chat, [], ToolChoice())
    assert body == {
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
                    {"type": "text", "text": "Thanks. And Oslo?"},
                ],
            },
        ]
    }
    assert request_messages(body) == chat


def test_a_user_message_after_an_assistant_message_is_sent_as_its_text() -> None:
    chat: list[Any] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": [{"type": "text", "text": "bye"}]},
    ]
    assert messages_request(chat, [], ToolChoice())["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
        {"role": "user", "content": "bye"},
    ]


def test_a_user_message_that_is_not_text_is_sent_as_it_came_and_a_later_one_joins_it() -> None:
    image = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    chat: list[Any] = [{"role": "user", "content": [image]}, {"role": "user", "content": None}]
    assert messages_request(chat, [], ToolChoice())["messages"] == [
        {"role": "user", "content": [image, {"type": "text", "text": ""}]}
    ]


def test_system_and_developer_messages_are_joined_into_system() -> None:
    chat: list[Any] = [
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": [{"type": "text", "text": "Use tools."}]},
        {"role": "system", "content": None},
        {"role": "user", "content": "hi"},
    ]
    assert messages_request(chat, [], ToolChoice()) == {
        "messages": [{"role": "user", "content": "hi"}],
        "system": "Be brief.\n\nUse tools.\n\n",
    }


def test_an_assistant_message_without_text_or_calls_is_one_empty_text_block() -> None:
    chat: list[Any] = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""}]
    assert messages_request(chat, [], ToolChoice())["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": ""}],
    }


@pytest.mark.parametrize(
    ("arguments", "sent"), [("", {}), (None, {}), ("not json", {}), ('{"a":1}', {"a": 1})]
)
def test_call_arguments_are_sent_as_the_object_they_hold_or_an_empty_one(arguments: Any, sent: Any) -> None:
    call = {"id": "toolu_9", "type": "function", "function": {"name": "echo", "arguments": arguments}}
    chat: list[Any] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "On it.", "tool_calls": [call]},
    ]
    assert messages_request(chat, [], ToolChoice())["messages"][1]["content"] == [
        {"type": "text", "text": "On it."},
        {"type": "tool_use", "id": "toolu_9", "name": "echo", "input": sent},
    ]


def test_a_call_without_a_function_is_sent_with_no_name_and_no_input() -> None:
    chat: list[Any] = [{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": [{"id": "t"}]}]
    assert messages_request(chat, [], ToolChoice())["messages"][1]["content"] == [
        {"type": "tool_use", "id": "t", "name": None, "input": {}}
    ]


def test_a_structured_tool_result_is_sent_as_its_json_text() -> None:
    chat: list[Any] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [CALL.as_openai()]},
        {
            "role": "tool",
            "tool_call_id": "toolu_1",
            "content": {"temp": 21, "sky": "clear"},
            "is_error": "yes",
        },
    ]
    assert messages_request(chat, [], ToolChoice())["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"temp":21,"sky":"clear"}'}
        ],
    }


def test_a_tool_without_parameters_is_offered_with_an_object_schema() -> None:
    body = messages_request([{"role": "user", "content": "hi"}], [ToolSpec("ping", "", {})], ToolChoice())
    assert body["tools"] == [{"name": "ping", "description": "", "input_schema": {"type": "object"}}]
    assert body["tool_choice"] == {"type": "auto"}


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        (ToolChoice(parallel=False), {"type": "auto", "disable_parallel_tool_use": True}),
        (ToolChoice("required"), {"type": "any"}),
        (
            ToolChoice("function", "get_weather", parallel=False),
            {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True},
        ),
        (ToolChoice("none", parallel=False), {"type": "none"}),
    ],
)
def test_one_call_at_most_is_sent_as_disable_parallel_tool_use(
    choice: ToolChoice, sent: dict[str, Any]
) -> None:
    spec = ToolSpec("get_weather", "Weather.", {"type": "object"})
    assert messages_request([{"role": "user", "content": "hi"}], [spec], choice)["tool_choice"] == sent


def test_the_request_carries_the_model_max_tokens_and_temperature_given() -> None:
    body = client_request(
        "claude-x", [{"role": "user", "content": "hi"}], [], ToolChoice(), temperature=0.5, max_tokens=256
    )
    assert body == {
        "model": "claude-x",
        "max_tokens": 256,
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.5,
    }
    # A temperature of 0 is one given.
    zero = client_request(
        "m", [{"role": "user", "content": "hi"}], [], ToolChoice(), temperature=0, max_tokens=None
    )
    assert (zero["temperature"], zero["max_tokens"]) == (0, 4096)


@pytest.mark.parametrize(
    ("base_url", "url"),
    [
        ("https://api.example.com", "https://api.example.com/v1/messages"),
        ("https://api.example.com/", "https://api.example.com/v1/messages"),
        ("https://proxy.example.com/v1", "https://proxy.example.com/v1/messages"),
        ("https://proxy.example.com/v1/", "https://proxy.example.com/v1/messages"),
        ("https://example.com/LLMBOX", "https://example.com/LLMBOX/v1/messages"),
    ],
)
def test_the_messages_url_adds_v1_unless_the_base_url_has_it(base_url: str, url: str) -> None:
    assert client_url(base_url, "claude-x") == url


def test_the_headers_pin_the_version_and_carry_the_key() -> None:
    assert client_headers("sk-zeroclaw") == {"anthropic-version": "2023-06-01", "x-api-key": "sk-zeroclaw"}
    assert client_headers("") == {"anthropic-version": "2023-06-01"}
    headers = {"anthropic-version": "2023-06-01"}
    assert client_signed("https://api.example.com/v1/messages", headers, b"{}", "sk") == headers


def test_a_reply_is_read_text_calls_and_usage() -> None:
    data = {
        "type": "message",
        "content": [
            {"type": "thinking", "thinking": "...", "signature": "s"},
            {"type": "text", "text": "Looking "},
            {"type": "text", "text": 42},
            {"type": "tool_use", "name": "list_dir"},
            {"type": "tool_use", "id": "toolu_7", "name": "echo", "input": {"message": "x"}},
        ],
        "usage": {"input_tokens": 10, "output_tokens": 4, "cache_read_input_tokens": 6},
    }
    assert read_reply(data) == ModelResponse(
        "Looking 42",
        (ToolCallRequest("toolu_3", "list_dir", "{}"), ToolCallRequest("toolu_7", "echo", '{"message":"x"}')),
        16,
        4,
        cached_input_tokens=6,
    )


def test_a_reply_of_calls_alone_has_no_text_and_one_without_usage_says_so() -> None:
    data = {
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]
    }
    assert read_reply(data) == ModelResponse(None, (CALL,), 0, 0, usage_known=False)


@pytest.mark.parametrize("data", [None, [], {"content": "hi"}, {"type": "error"}])
def test_a_body_that_is_no_message_is_refused(data: Any) -> None:
    with pytest.raises(ValueError, match=r"^no content list of the message shape$"):
        read_reply(data)


def test_the_request_offers_the_tools_and_says_the_choice() -> None:
    spec = ToolSpec("get_weather", "Weather.", {"type": "object"})
    body = client_request(
        "claude-x",
        [{"role": "user", "content": "hi"}],
        [spec],
        ToolChoice("required"),
        temperature=None,
        max_tokens=1,
    )
    assert body == {
        "model": "claude-x",
        "max_tokens": 1,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "get_weather", "description": "Weather.", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "any"},
    }
