"""`wire.gemini`'s client half, which live mode speaks to a real Gemini: where it asks,
what it sends, how it reads a reply (the server half is tested with google-genai itself,
tests/serve/test_gemini.py, and the two together in tests/cli/commands/test_run_live.py)."""

from __future__ import annotations

import pytest

from zeroclaw_eval.boundary.provider import AUTO, ToolChoice, ToolSpec
from zeroclaw_eval.errors import ReplyValueError
from zeroclaw_eval.wire import gemini


@pytest.mark.parametrize(
    ("base", "url"),
    [
        (
            "https://generativelanguage.googleapis.com",
            "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent",
        ),
        ("https://example.com/", "https://example.com/v1beta/models/m:generateContent"),
        ("https://example.com/v1", "https://example.com/v1/models/m:generateContent"),
        ("https://example.com/v1beta", "https://example.com/v1beta/models/m:generateContent"),
    ],
)
def test_the_client_asks_under_the_version_its_base_url_names(base: str, url: str) -> None:
    assert gemini.client_url(base, "m") == url


def test_a_conversation_is_sent_as_contents_with_each_result_answering_its_call() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": "no data", "is_error": True},
    ]
    spec = ToolSpec("get_weather", "The weather.", {"type": "object"})
    body = gemini.client_request(
        "m", messages, [spec], ToolChoice("function", "get_weather"), temperature=0.5, max_tokens=64
    )
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Weather in Paris and Oslo?"}]},
        {
            "role": "model",
            "parts": [
                {"functionCall": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}},
                {"functionCall": {"id": "c2", "name": "get_weather", "args": {"city": "Oslo"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": "c1", "name": "get_weather", "response": {"result": "sunny"}}},
                {"functionResponse": {"id": "c2", "name": "get_weather", "response": {"error": "no data"}}},
            ],
        },
    ]
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "get_weather",
                    "description": "The weather.",
                    "parametersJsonSchema": {"type": "object"},
                }
            ]
        }
    ]
    assert body["toolConfig"] == {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}
    }
    assert body["generationConfig"] == {"temperature": 0.5, "maxOutputTokens": 64}
    # Read back by the server half, the same conversation.
    assert gemini.request_messages(body)[1:] == [
        messages[1],
        {**messages[2], "content": None},
        messages[3],
        messages[4],
    ]


@pytest.mark.parametrize(
    ("choice", "config"),
    [
        (AUTO, None),
        (ToolChoice("none"), {"functionCallingConfig": {"mode": "NONE"}}),
        (ToolChoice("required"), {"functionCallingConfig": {"mode": "ANY"}}),
        (
            ToolChoice("auto", allowed=frozenset({"b", "a"})),
            {"functionCallingConfig": {"mode": "AUTO", "allowedFunctionNames": ["a", "b"]}},
        ),
    ],
)
def test_what_the_request_lets_the_model_do_goes_as_function_calling_config(
    choice: ToolChoice, config: dict[str, object] | None
) -> None:
    body = gemini.client_request(
        "m",
        [{"role": "user", "content": "hi"}],
        [ToolSpec("a", "", {})],
        choice,
        temperature=None,
        max_tokens=None,
    )
    assert body.get("toolConfig") == config
    assert gemini.tool_choice_of(body) == (choice if choice.mode != "required" else ToolChoice("required"))


def test_a_reply_is_read_its_thoughts_left_out_and_calls_without_ids_numbered() -> None:
    reply = gemini.read_reply(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"text": "Let me think", "thought": True},
                            {"text": "Checking."},
                            {"functionCall": {"name": "get_weather", "args": {"city": "Lima"}}},
                            {"function_call": {"id": "x9", "name": "get_weather", "args": {"city": "Oslo"}}},
                        ],
                    }
                }
            ],
            "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 3, "totalTokenCount": 15},
        }
    )
    assert reply.content == "Checking."
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_0", "get_weather", '{"city":"Lima"}'),
        ("x9", "get_weather", '{"city":"Oslo"}'),
    ]
    assert (reply.input_tokens, reply.output_tokens) == (12, 3)


def test_a_token_count_no_reply_holds_is_refused() -> None:
    data = {
        "candidates": [{"content": {"parts": [{"text": "hi"}]}}],
        "usageMetadata": {"promptTokenCount": -1},
    }
    with pytest.raises(ReplyValueError, match=r"usage\.promptTokenCount is no token count"):
        gemini.read_reply(data)


def test_a_model_turn_kept_as_one_content_per_chunk_is_read_as_one_turn() -> None:
    # google-genai's chat sessions keep a streamed reply as one content per chunk: its
    # text, then its function call. The API reads them as one turn; so does the endpoint.
    request = {
        "contents": [
            {"role": "user", "parts": [{"text": "What is the weather in Paris?"}]},
            {"role": "model", "parts": [{"text": "Let me "}]},
            {"role": "model", "parts": [{"text": "check."}]},
            {
                "role": "model",
                "parts": [{"functionCall": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}}],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": "c1", "name": "get_weather", "response": {"result": "sunny"}}}
                ],
            },
        ]
    }
    messages = gemini.request_messages(request)
    assert [message["role"] for message in messages] == ["user", "assistant", "tool"]
    assert messages[1]["content"] == "Let me check."
    assert [call["id"] for call in messages[1]["tool_calls"]] == ["c1"]
    assert messages[2]["tool_call_id"] == "c1"
