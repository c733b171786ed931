"""`zeroclaw_eval.agent.replay`: each turn's scripted steps, served in order, to requests that
carry the conversation so far and offer the tools the step calls."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.support.builders import scripted_fixture, text_step, tool_call, tools_step
from zeroclaw_eval.agent.replay import ReplayProvider
from zeroclaw_eval.boundary.provider import Message, ModelResponse, ToolCallRequest, ToolSpec
from zeroclaw_eval.cases.model import LlmTrace
from zeroclaw_eval.errors import RunError
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS

ECHO = BUILTIN_TOOLS["echo"].spec


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
FIRST: Message = {"role": "user", "content": "first"}
ECHOED: Message = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "echo", "arguments": '{"message":"東京","n":1}'},
        }
    ],
}
RESULT: Message = {"role": "tool", "tool_call_id": "c1", "content": "東京"}


def _echoed(arguments: str | None) -> Message:
    """ECHOED, with the call's arguments echoed as `arguments` (None: left out)."""
    function = {"name": "echo"} if arguments is None else {"name": "echo", "arguments": arguments}
    return {**ECHOED, "tool_calls": [{"id": "c1", "type": "function", "function": function}]}


@pytest.mark.parametrize(
    "arguments",
    [
        '{"message":"東京","n":1}',
        '{"n": 1.0, "message": "\\u6771\\u4eac"}',
        '  {"message": "東京", "n": 1}\n',
    ],
    ids=["as-sent", "same-json-written-otherwise", "whitespace"],
)
def test_echoed_arguments_equal_as_json_to_the_scripted_ones_are_the_call(arguments: str) -> None:
    provider = ReplayProvider(trace_of(TWO_TURNS), ["echo"])
    provider.begin_turn(0)
    ask(provider, [FIRST])
    assert ask(provider, [FIRST, _echoed(arguments), RESULT]).content == "answer one"


ANSWER: Message = {"role": "assistant", "content": "answer one"}
SECOND: Message = {"role": "user", "content": "second"}


def ask(
    provider: ReplayProvider, messages: list[Message], tools: list[ToolSpec] | None = None
) -> ModelResponse:
    return asyncio.run(provider.complete(messages, [ECHO] if tools is None else tools))


def test_replay_serves_each_turn_its_own_steps_in_order() -> None:
    provider = ReplayProvider(trace_of(TWO_TURNS), ["echo"])
    provider.begin_turn(0)
    first = ask(provider, [FIRST])
    second = ask(provider, [FIRST, ECHOED, RESULT])
    assert provider.finish_turn() is None
    provider.begin_turn(1)
    third = ask(provider, [FIRST, ECHOED, RESULT, ANSWER, SECOND])
    assert provider.finish_turn() is None
    assert first.tool_calls == (ToolCallRequest("c1", "echo", '{"message":"東京","n":1}'),)
    assert (first.input_tokens, first.output_tokens) == (3, 4)
    assert second.content == "answer one"
    assert second.tool_calls == ()
    assert third.content == "answer two"


def test_system_messages_may_stand_anywhere() -> None:
    provider = ReplayProvider(trace_of(TWO_TURNS), ["echo"])
    provider.begin_turn(0)
    system = {"role": "system", "content": "Be brief."}
    ask(provider, [system, FIRST])
    assert ask(provider, [system, FIRST, ECHOED, {"role": "developer", "content": "x"}, RESULT]).content


@pytest.mark.parametrize(
    ("served", "messages", "words"),
    [
        (0, [], 'the request carries no user message; turn 1\'s user input is "first"'),
        (
            0,
            [{"role": "user", "content": "other"}],
            'messages[0] (user): turn 1\'s user input is "first"; the request has "other"',
        ),
        (
            1,
            [FIRST],
            "the request carries the conversation only up to turn 1, step 1; step 2 needs the tool"
            " calls of step 1 (echo (id c1)) echoed back and a result for each",
        ),
        (1, [FIRST, ECHOED], "the request does not carry the results of echo (id c1)"),
        (
            1,
            [FIRST, _echoed("{}"), RESULT],
            "messages[1] (assistant): turn 1, step 1 of the script calls echo (id c1) with the arguments"
            ' "{\\"message\\":\\"東京\\",\\"n\\":1}"; the request echoes that call back with "{}", as if the'
            " model had asked for them",
        ),
        (
            1,
            [FIRST, _echoed('{"message": "京都", "n": 1}'), RESULT],
            "messages[1] (assistant): turn 1, step 1 of the script calls echo (id c1) with the arguments"
            ' "{\\"message\\":\\"東京\\",\\"n\\":1}"; the request echoes that call back with'
            ' "{\\"message\\": \\"京都\\", \\"n\\": 1}", as if the model had asked for them',
        ),
        (
            1,
            [FIRST, _echoed(None), RESULT],
            "messages[1] (assistant): turn 1, step 1 of the script calls echo (id c1) with the arguments"
            ' "{\\"message\\":\\"東京\\",\\"n\\":1}"; the request echoes that call back with no arguments,'
            " as if the model had asked for them",
        ),
    ],
    ids=[
        "no-user-input",
        "another-user-input",
        "no-echo-no-result",
        "no-result",
        "echoed-empty-arguments",
        "echoed-other-arguments",
        "echoed-no-arguments",
    ],
)
def test_a_request_that_leaves_the_script_is_a_run_error_at_the_step(
    served: int, messages: list[Message], words: str
) -> None:
    provider = ReplayProvider(trace_of(TWO_TURNS), ["echo"])
    provider.begin_turn(0)
    if served:
        ask(provider, [FIRST])
    with pytest.raises(RunError) as raised:
        ask(provider, messages)
    assert raised.value.message == f"turn 1, step {served + 1}: {words}"
    assert raised.value.pointer == f"/turns/0/steps/{served}"
    # The divergence is kept, so a turn whose agent swallowed the exception still errors.
    assert provider.finish_turn() is raised.value


def test_a_request_must_offer_each_tool_of_the_case_the_step_calls() -> None:
    provider = ReplayProvider(trace_of(TWO_TURNS), ["echo"])
    provider.begin_turn(0)
    with pytest.raises(RunError) as raised:
        ask(provider, [FIRST], tools=[])
    assert raised.value.message == (
        "turn 1, step 1: the script calls echo, but the request offers the model no tool named echo"
        " (it offers: none); pass on the tools the harness gives the agent"
    )
    assert raised.value.pointer == "/turns/0/steps/0"


def test_a_scripted_call_to_a_tool_the_case_is_not_offered_needs_no_spec() -> None:
    # The fixture scripts a model that calls a tool nobody offered (a hallucination): the
    # agent cannot offer what it was never given.
    data = scripted_fixture(
        [("go", [tools_step(tool_call("web_search", {"q": "x"}, "w1")), text_step("ok")])],
        {"tools_used": ["web_search"]},
    )
    provider = ReplayProvider(trace_of(data), ["echo"])
    provider.begin_turn(0)
    assert ask(provider, [{"role": "user", "content": "go"}]).tool_calls[0].name == "web_search"


def test_replay_passes_raw_argument_text_through() -> None:
    data = scripted_fixture(
        [("go", [tools_step(tool_call("echo", '{"message": "unterminated', "c1")), text_step("ok")])],
        {"response_contains": ["ok"]},
    )
    provider = ReplayProvider(trace_of(data))
    provider.begin_turn(0)
    response = ask(provider, [{"role": "user", "content": "go"}])
    assert response.tool_calls[0].arguments == '{"message": "unterminated'


def test_replay_gives_every_call_an_id() -> None:
    data = scripted_fixture(
        [("go", [tools_step(tool_call("echo", {}, ""), tool_call("echo", {}, "")), text_step("ok")])],
        {"response_contains": ["ok"]},
    )
    provider = ReplayProvider(trace_of(data))
    provider.begin_turn(0)
    ids = [call.id for call in ask(provider, [{"role": "user", "content": "go"}]).tool_calls]
    assert all(ids)
    assert len(set(ids)) == 2


def test_replay_asking_for_more_steps_than_scripted_is_a_run_error_naming_the_turn() -> None:
    provider = ReplayProvider(trace_of(TWO_TURNS))
    provider.begin_turn(1)
    conversation = [FIRST, ECHOED, RESULT, ANSWER, SECOND]
    ask(provider, conversation)
    with pytest.raises(RunError) as raised:
        ask(provider, [*conversation, {"role": "assistant", "content": "answer two"}])
    assert "turn 2" in raised.value.message
    assert raised.value.pointer == "/turns/1/steps"
    assert provider.finish_turn() is raised.value


def test_replay_leaving_steps_unconsumed_is_a_run_error_naming_the_turn() -> None:
    provider = ReplayProvider(trace_of(TWO_TURNS))
    provider.begin_turn(0)
    ask(provider, [FIRST])
    error = provider.finish_turn()
    assert error is not None
    assert "turn 1" in error.message
    assert "unconsumed" in error.message
    assert error.pointer == "/turns/0/steps/1"
