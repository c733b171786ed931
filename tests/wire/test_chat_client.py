"""`zeroclaw_eval.wire.chat` as the live client speaks it: the chat-completions request
the harness sends, where it goes, its headers, and the reply read."""

from __future__ import annotations

from typing import Any

import pytest

from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice, ToolSpec
from zeroclaw_eval.wire.chat import client_headers, client_request, client_signed, client_url, read_reply

HELLO: list[Any] = [{"role": "user", "content": "hi"}]
ECHO = ToolSpec("echo", "Echo.", {"type": "object"})


def test_a_request_without_tools_carries_the_messages_and_the_settings_given() -> None:
    body = client_request("gpt-x", HELLO, [], ToolChoice("none", parallel=False), temperature=0, max_tokens=0)
    assert body == {"model": "gpt-x", "messages": HELLO, "temperature": 0, "max_tokens": 0}
    bare = client_request("gpt-x", HELLO, [], ToolChoice(), temperature=None, max_tokens=None)
    assert bare == {"model": "gpt-x", "messages": HELLO}


def test_tools_are_offered_and_a_choice_of_auto_left_unsaid() -> None:
    body = client_request("gpt-x", HELLO, [ECHO], ToolChoice(), temperature=None, max_tokens=None)
    assert body == {
        "model": "gpt-x",
        "messages": HELLO,
        "tools": [
            {
                "type": "function",
                "function": {"name": "echo", "description": "Echo.", "parameters": {"type": "object"}},
            }
        ],
    }


@pytest.mark.parametrize(
    ("choice", "sent"),
    [
        (ToolChoice("required"), {"tool_choice": "required"}),
        (ToolChoice(parallel=False), {"tool_choice": "auto", "parallel_tool_calls": False}),
        (
            ToolChoice("function", "echo", parallel=False),
            {"tool_choice": {"type": "function", "function": {"name": "echo"}}, "parallel_tool_calls": False},
        ),
    ],
)
def test_the_choice_and_one_call_at_most_reach_the_model(choice: ToolChoice, sent: dict[str, Any]) -> None:
    body = client_request("gpt-x", HELLO, [ECHO], choice, temperature=None, max_tokens=None)
    assert {key: body[key] for key in body if key not in ("model", "messages", "tools")} == sent


@pytest.mark.parametrize(
    ("base_url", "url"),
    [
        ("https://api.example.com/v1", "https://api.example.com/v1/chat/completions"),
        ("https://api.example.com/v1/", "https://api.example.com/v1/chat/completions"),
        ("https://example.com/LLMBOX", "https://example.com/LLMBOX/chat/completions"),
    ],
)
def test_chat_completions_are_asked_for_under_the_base_url(base_url: str, url: str) -> None:
    assert client_url(base_url, "gpt-x") == url


def test_the_key_is_a_bearer_token_and_no_key_sends_no_header() -> None:
    assert client_headers("sk-zeroclaw") == {"Authorization": "Bearer sk-zeroclaw"}
    assert client_headers("") == {}
    assert client_signed("https://api.example.com/v1", {"a": "b"}, b"", "k") == {"a": "b"}


def test_a_reply_is_read_text_calls_and_usage() -> None:
    data = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": "Looking.",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "echo", "arguments": '{"m":"x"}'},
                        },
                        {"type": "function", "function": {"name": "list_dir"}},
                        {
                            "id": "c3",
                            "type": "function",
                            "function": {"name": "echo", "arguments": {"m": "y"}},
                        },
                    ],
                }
            }
        ],
        "usage": {"prompt_tokens": 9, "completion_tokens": 4},
    }
    assert read_reply(data) == ModelResponse(
        "Looking.",
        (
            ToolCallRequest("c1", "echo", '{"m":"x"}'),
            ToolCallRequest("call_1", "list_dir", "{}"),
            ToolCallRequest("c3", "echo", '{"m":"y"}'),
        ),
        9,
        4,
    )


def test_a_reply_whose_content_is_not_text_has_none() -> None:
    data = {"choices": [{"message": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}}]}
    assert read_reply(data) == ModelResponse(None, (), 0, 0, usage_known=False)
    assert read_reply({"choices": [{"message": {"content": "hi", "tool_calls": None}}]}).tool_calls == ()
