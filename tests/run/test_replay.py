"""`zeroclaw_eval.run.replay`: each turn's scripted steps, served in order."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.builders import scripted_fixture, text_step, tool_call, tools_step
from zeroclaw_eval.errors import RunError
from zeroclaw_eval.fixtures.model import LlmTrace
from zeroclaw_eval.run.provider import ModelResponse, ToolCallRequest
from zeroclaw_eval.run.replay import ReplayProvider


def trace_of(data: dict[str, Any]) -> LlmTrace:
    return LlmTrace.model_validate(data)


TWO_TURNS = scripted_fixture(
    [
        (
            "first",
            [
                tools_step(tool_call("echo", {"message": "東京", "n": 1}, "c1"), tokens=(3, 4)),
                text_step("answer one"),
            ],
        ),
        ("second", [text_step("answer two")]),
    ],
    {"response_contains": ["two"]},
)


def test_replay_serves_each_turn_its_own_steps_in_order() -> None:
    provider = ReplayProvider(trace_of(TWO_TURNS))

    async def scenario() -> list[ModelResponse]:
        served = []
        provider.begin_turn(0)
        served.append(await provider.complete([], []))
        served.append(await provider.complete([], []))
        assert provider.finish_turn() is None
        provider.begin_turn(1)
        served.append(await provider.complete([], []))
        assert provider.finish_turn() is None
        return served

    first, second, third = asyncio.run(scenario())
    assert first.tool_calls == (ToolCallRequest("c1", "echo", '{"message":"東京","n":1}'),)
    assert (first.input_tokens, first.output_tokens) == (3, 4)
    assert second.content == "answer one"
    assert second.tool_calls == ()
    assert third.content == "answer two"


def test_replay_passes_raw_argument_text_through() -> None:
    data = scripted_fixture(
        [("go", [tools_step(tool_call("echo", '{"message": "unterminated', "c1")), text_step("ok")])],
        {"response_contains": ["ok"]},
    )
    provider = ReplayProvider(trace_of(data))
    provider.begin_turn(0)
    response = asyncio.run(provider.complete([], []))
    assert response.tool_calls[0].arguments == '{"message": "unterminated'


def test_replay_gives_every_call_an_id() -> None:
    data = scripted_fixture(
        [("go", [tools_step(tool_call("echo", {}, ""), tool_call("echo", {}, "")), text_step("ok")])],
        {"response_contains": ["ok"]},
    )
    provider = ReplayProvider(trace_of(data))
    provider.begin_turn(0)
    ids = [call.id for call in asyncio.run(provider.complete([], [])).tool_calls]
    assert all(ids)
    assert len(set(ids)) == 2


def test_replay_asking_for_more_steps_than_scripted_is_a_run_error_naming_the_turn() -> None:
    provider = ReplayProvider(trace_of(TWO_TURNS))

    async def scenario() -> None:
        provider.begin_turn(1)
        await provider.complete([], [])
        await provider.complete([], [])

    with pytest.raises(RunError) as raised:
        asyncio.run(scenario())
    assert "turn 2" in raised.value.message
    assert raised.value.pointer == "/turns/1/steps"
    # The divergence is kept, so a turn that swallowed the exception still errors.
    assert provider.finish_turn() is raised.value


def test_replay_leaving_steps_unconsumed_is_a_run_error_naming_the_turn() -> None:
    provider = ReplayProvider(trace_of(TWO_TURNS))
    provider.begin_turn(0)
    asyncio.run(provider.complete([], []))
    error = provider.finish_turn()
    assert error is not None
    assert "turn 1" in error.message
    assert "unconsumed" in error.message
    assert error.pointer == "/turns/0/steps/1"
