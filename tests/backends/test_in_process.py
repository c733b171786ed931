"""`zeroclaw_eval.backends.in_process`: the official `openai` SDK answered by a provider
in-process, what the harness refuses raised by the SDK as its own error, never retried."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import openai
import pytest

from tests.support.builders import scripted_fixture, text_step, tool_call, tools_step
from zeroclaw_eval import anthropic_http_client, openai_http_client
from zeroclaw_eval.agent.replay import ReplayProvider
from zeroclaw_eval.backends.in_process import ANTHROPIC_BASE_URL, BASE_URL
from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, ToolChoice, ToolSpec
from zeroclaw_eval.cases.model import LlmTrace

TRACE = LlmTrace.model_validate(
    scripted_fixture(
        [
            (
                "Echo hi",
                [tools_step(tool_call("echo", {"message": "hi"}, "c1"), tokens=(9, 3)), text_step("hi")],
            )
        ],
        {"tools_used": ["echo"]},
    )
)
ECHO = {
    "type": "function",
    "function": {"name": "echo", "description": "Echo.", "parameters": {"type": "object"}},
}
# The stream helper parses arguments of strict tools only.
ECHO_STRICT: Any = {
    "type": "function",
    "function": {
        "name": "echo",
        "description": "Echo.",
        "parameters": {
            "type": "object",
            "properties": {"message": {"type": "string"}},
            "required": ["message"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}
LONG = "A scripted answer long enough to arrive in several pieces of a stream."
LONG_ANSWER = LlmTrace.model_validate(
    scripted_fixture([("Tell me", [text_step(LONG, tokens=(30, 5))])], {"response_contains": ["pieces"]})
)


class Counting:
    """A provider that counts the requests reaching it."""

    def __init__(self, inner: ReplayProvider) -> None:
        self.inner = inner
        self.requests: list[tuple[list[Message], list[str]]] = []
        self.choices: list[ToolChoice] = []

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        self.requests.append((list(messages), [spec.name for spec in tools]))
        self.choices.append(choice)
        return await self.inner.complete(messages, tools, choice)


def client_for(provider: Counting) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key="replay", base_url=BASE_URL, http_client=openai_http_client(provider))


def scripted() -> Counting:
    replay = ReplayProvider(TRACE, ["echo"])
    replay.begin_turn(0)
    return Counting(replay)


def test_the_sdk_gets_the_scripted_step_with_its_calls_and_usage() -> None:
    provider = scripted()

    async def ask() -> Any:
        return await client_for(provider).chat.completions.create(
            model="any",
            messages=[{"role": "user", "content": "Echo hi"}],
            tools=[ECHO],  # type: ignore[list-item]
        )

    reply = asyncio.run(ask())
    (call,) = reply.choices[0].message.tool_calls
    assert (call.id, call.function.name, call.function.arguments) == ("c1", "echo", '{"message":"hi"}')
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (9, 3)
    assert provider.requests == [([{"role": "user", "content": "Echo hi"}], ["echo"])]


def test_a_request_that_leaves_the_script_is_a_bad_request_the_sdk_does_not_retry() -> None:
    provider = scripted()

    async def ask() -> Any:
        return await client_for(provider).chat.completions.create(
            model="any", messages=[{"role": "user", "content": "something else"}]
        )

    with pytest.raises(openai.BadRequestError) as raised:
        asyncio.run(ask())
    assert 'turn 1\'s user input is "Echo hi"; the request has "something else"' in str(raised.value)
    assert len(provider.requests) == 1


def test_other_routes_are_not_found() -> None:
    async def ask() -> Any:
        return await client_for(scripted()).models.list()

    with pytest.raises(openai.NotFoundError):
        asyncio.run(ask())


def test_a_streamed_chat_reply_accumulates_to_the_scripted_step() -> None:
    provider = scripted()

    async def ask() -> Any:
        client = client_for(provider)
        async with client.chat.completions.stream(
            model="any", messages=[{"role": "user", "content": "Echo hi"}], tools=[ECHO_STRICT]
        ) as stream:
            return await stream.get_final_completion()

    reply = asyncio.run(ask())
    (call,) = reply.choices[0].message.tool_calls
    assert (call.id, call.function.name, call.function.arguments) == ("c1", "echo", '{"message":"hi"}')
    assert reply.choices[0].finish_reason == "tool_calls"
    assert provider.requests == [([{"role": "user", "content": "Echo hi"}], ["echo"])]


def test_streamed_text_arrives_in_pieces_and_usage_when_asked() -> None:
    replay = ReplayProvider(LONG_ANSWER, [])
    replay.begin_turn(0)

    async def ask() -> list[Any]:
        stream = await client_for(Counting(replay)).chat.completions.create(
            model="any",
            messages=[{"role": "user", "content": "Tell me"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        return [chunk async for chunk in stream]

    chunks = asyncio.run(ask())
    pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(pieces) > 1  # a client that keeps only the last delta gets it wrong
    assert "".join(pieces) == LONG
    assert chunks[-1].choices == []
    assert (chunks[-1].usage.prompt_tokens, chunks[-1].usage.completion_tokens) == (30, 5)


def test_the_responses_api_plain_and_streamed_follows_the_script() -> None:
    provider = scripted()
    tool = {"type": "function", "name": "echo", "description": "Echo.", "parameters": {"type": "object"}}

    async def converse() -> tuple[Any, Any]:
        client = client_for(provider)
        first = await client.responses.create(model="any", input="Echo hi", tools=[tool])  # type: ignore[list-item]
        (call,) = [item for item in first.output if item.type == "function_call"]
        follow_up: list[Any] = [{"type": "function_call_output", "call_id": call.call_id, "output": "hi"}]
        async with client.responses.stream(
            model="any",
            input=follow_up,
            previous_response_id=first.id,
            tools=[tool],  # type: ignore[list-item]
        ) as stream:
            second = await stream.get_final_response()
        return first, second

    first, second = asyncio.run(converse())
    (call,) = first.output
    assert (call.call_id, call.name, call.arguments) == ("c1", "echo", '{"message":"hi"}')
    assert (first.usage.input_tokens, first.usage.output_tokens) == (9, 3)
    assert second.output_text == "hi"
    # The second request continued the first: the script saw the whole conversation.
    assert [m["role"] for m in provider.requests[1][0]] == ["user", "assistant", "tool"]


def test_a_body_over_the_one_limit_is_refused_with_413_before_the_provider_sees_it() -> None:
    # The in-process client has no HTTP server to refuse it from its Content-Length: the
    # endpoint's one body limit applies to the body in hand.
    from zeroclaw_eval.wire.limits import MAX_BODY

    provider = scripted()

    async def ask() -> Any:
        huge = "x" * (MAX_BODY + 1)
        return await client_for(provider).chat.completions.create(
            model="m", messages=[{"role": "user", "content": huge}]
        )

    with pytest.raises(openai.APIStatusError) as raised:
        asyncio.run(ask())
    assert raised.value.status_code == 413
    assert "the limit is" in str(raised.value)
    assert raised.value.type == "request_too_large"  # as the HTTP fronts answer it
    assert provider.requests == []


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"tool_choice": "none"}, 'the script calls echo, but the request\'s tool_choice is "none"'),
        (
            {"tool_choice": {"type": "function", "function": {"name": "file_read"}}},
            "the request's tool_choice forces file_read",
        ),
    ],
)
def test_a_request_that_forbids_the_scripted_step_is_refused(options: dict[str, Any], expected: str) -> None:
    # An agent that tells the model not to call a tool while the script calls one would pass
    # against a replay that ignored tool_choice and fail against a real model.
    provider = scripted()

    async def ask() -> Any:
        return await client_for(provider).chat.completions.create(
            model="any",
            messages=[{"role": "user", "content": "Echo hi"}],
            tools=[ECHO],  # type: ignore[list-item]
            **options,
        )

    with pytest.raises(openai.BadRequestError) as raised:
        asyncio.run(ask())
    assert expected in str(raised.value)


def test_the_choice_a_request_makes_reaches_the_provider() -> None:
    provider = scripted()

    async def ask() -> Any:
        return await client_for(provider).responses.create(
            model="any",
            input="Echo hi",
            tools=[{"type": "function", "name": "echo", "parameters": {"type": "object"}, "strict": False}],
            tool_choice="required",
            parallel_tool_calls=False,
        )

    reply = asyncio.run(ask())
    assert [item.type for item in reply.output] == ["function_call"]
    assert provider.choices == [ToolChoice("required", parallel=False)]


ECHO_ANTHROPIC: Any = {"name": "echo", "description": "Echo.", "input_schema": {"type": "object"}}


def anthropic_client(provider: Counting) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        api_key="replay", base_url=ANTHROPIC_BASE_URL, http_client=anthropic_http_client(provider)
    )


def test_the_anthropic_sdk_follows_the_script_plain_then_streamed() -> None:
    provider = scripted()

    async def ask() -> tuple[Any, Any]:
        client = anthropic_client(provider)
        messages: list[Any] = [{"role": "user", "content": "Echo hi"}]
        first = await client.messages.create(
            model="any", max_tokens=100, system="Be brief.", messages=messages, tools=[ECHO_ANTHROPIC]
        )
        messages.append({"role": "assistant", "content": [block.model_dump() for block in first.content]})
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "hi"}]}
        )
        async with client.messages.stream(
            model="any", max_tokens=100, system="Be brief.", messages=messages, tools=[ECHO_ANTHROPIC]
        ) as stream:
            second = await stream.get_final_message()
        return first, second

    first, second = asyncio.run(ask())
    (call,) = first.content
    assert (call.type, call.id, call.name, call.input) == ("tool_use", "c1", "echo", {"message": "hi"})
    assert (first.stop_reason, first.usage.input_tokens, first.usage.output_tokens) == ("tool_use", 9, 3)
    assert [block.text for block in second.content] == ["hi"]
    assert second.stop_reason == "end_turn"
    # The script saw the system prompt and the result as chat messages.
    assert provider.requests[1][0] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Echo hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "echo", "arguments": '{"message":"hi"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "hi"},
    ]


def test_a_refused_anthropic_request_is_the_sdks_bad_request_with_the_reason() -> None:
    provider = scripted()

    async def ask() -> Any:
        return await anthropic_client(provider).messages.create(
            model="any",
            max_tokens=100,
            messages=[{"role": "user", "content": "Echo hi"}],
            tools=[ECHO_ANTHROPIC],
            tool_choice={"type": "none"},
        )

    with pytest.raises(anthropic.BadRequestError) as raised:
        asyncio.run(ask())
    error: Any = raised.value.body
    assert error["error"]["type"] == "invalid_request_error"
    assert 'the script calls echo, but the request\'s tool_choice is "none"' in error["error"]["message"]


def test_an_anthropic_request_without_max_tokens_is_the_sdks_bad_request_naming_it() -> None:
    # The real API refuses it (400 "max_tokens: Field required"); the typed `create`
    # always sends it, so the request goes out raw, as a hand-written client would send it.
    provider = scripted()

    async def ask() -> Any:
        body = {
            "model": "any",
            "messages": [{"role": "user", "content": "Echo hi"}],
            "tools": [ECHO_ANTHROPIC],
        }
        return await anthropic_client(provider).post(
            "/v1/messages", cast_to=anthropic.types.Message, body=body
        )

    with pytest.raises(anthropic.BadRequestError) as raised:
        asyncio.run(ask())
    error: Any = raised.value.body
    assert error["error"]["type"] == "invalid_request_error"
    assert error["error"]["message"].startswith("max_tokens: Field required")
    assert provider.requests == []  # refused before the script is asked


def test_google_genai_follows_the_script_plain_then_streamed() -> None:
    # The SDK's own client, its HTTP layer swapped: a request streamed under `?alt=sse`
    # streams, and the script sees the system instruction and the result as chat messages.
    from google import genai
    from google.genai import types

    from zeroclaw_eval import gemini_http_client
    from zeroclaw_eval.backends.in_process import GEMINI_BASE_URL

    provider = scripted()
    echo = types.Tool(function_declarations=[types.FunctionDeclaration(name="echo", description="Echo.")])
    config = types.GenerateContentConfig(
        system_instruction="Be brief.",
        tools=[echo],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )

    async def ask() -> tuple[Any, str]:
        options = types.HttpOptions(base_url=GEMINI_BASE_URL, httpx_async_client=gemini_http_client(provider))
        client = genai.Client(api_key="replay", http_options=options)
        contents: list[Any] = [types.Content(role="user", parts=[types.Part(text="Echo hi")])]
        first = await client.aio.models.generate_content(model="any", contents=contents, config=config)
        (call,) = first.function_calls or []
        contents += [
            types.Content(role="model", parts=[types.Part(function_call=call)]),
            types.Content(
                role="user", parts=[types.Part.from_function_response(name="echo", response={"result": "hi"})]
            ),
        ]
        pieces = [
            chunk.text or ""
            async for chunk in await client.aio.models.generate_content_stream(
                model="any", contents=contents, config=config
            )
        ]
        return call, "".join(pieces)

    call, second = asyncio.run(ask())
    assert (call.id, call.name, call.args) == ("c1", "echo", {"message": "hi"})
    assert second == "hi"
    assert provider.requests[1][0] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Echo hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "echo", "arguments": '{"message":"hi"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "hi"},
    ]
