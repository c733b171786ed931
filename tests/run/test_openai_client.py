"""`zeroclaw_eval.run.openai_client`: the official `openai` SDK answered by a provider
in-process, what the harness refuses raised by the SDK as its own error, never retried."""

from __future__ import annotations

import asyncio
from typing import Any

import openai
import pytest

from tests.builders import scripted_fixture, text_step, tool_call, tools_step
from zeroclaw_eval import openai_http_client
from zeroclaw_eval.fixtures.model import LlmTrace
from zeroclaw_eval.run.openai_client import BASE_URL
from zeroclaw_eval.run.provider import Message, ModelResponse, ToolSpec
from zeroclaw_eval.run.replay import ReplayProvider

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


class Counting:
    """A provider that counts the requests reaching it."""

    def __init__(self, inner: ReplayProvider) -> None:
        self.inner = inner
        self.requests: list[tuple[list[Message], list[str]]] = []

    async def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        self.requests.append((list(messages), [spec.name for spec in tools]))
        return await self.inner.complete(messages, tools)


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


def test_a_streaming_request_is_refused_before_it_reaches_the_provider() -> None:
    # The answer is one JSON body; an SDK waiting for server-sent events would choke on it
    # with an error that says nothing of streaming.
    provider = scripted()

    async def ask() -> Any:
        return await client_for(provider).chat.completions.create(
            model="any", messages=[{"role": "user", "content": "Echo hi"}], stream=True
        )

    with pytest.raises(openai.BadRequestError, match="streaming is not supported here"):
        asyncio.run(ask())
    assert provider.requests == []
