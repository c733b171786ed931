"""`zeroclaw_eval.run.conversation`: where a whole conversation stands in the script, and where it left it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scripts import (
    ANSWER_1,
    CALL_1,
    RESULT_1,
    TWO_TURNS_DONE,
    USER_1,
    USER_2,
)
from zeroclaw_eval.errors import Divergence
from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.run.conversation import next_step
from zeroclaw_eval.run.provider import ModelResponse, ToolCallRequest


def test_next_step_follows_the_script_across_tool_rounds_and_turns(two_turns: Case) -> None:
    trace = two_turns.trace
    first = next_step(trace, [USER_1])
    assert first.content is None
    assert first.tool_calls == (ToolCallRequest("call_1", "echo", '{"message":"hello"}'),)
    assert (first.input_tokens, first.output_tokens) == (20, 10)

    second = next_step(trace, [USER_1, CALL_1, RESULT_1])
    assert second == ModelResponse("The echo tool said: hello", (), 30, 5)

    third = next_step(trace, [USER_1, CALL_1, RESULT_1, ANSWER_1, USER_2])
    assert third.content == "bye"


def test_next_step_skips_system_and_developer_messages(two_turns: Case) -> None:
    messages = [{"role": "system", "content": "be brief"}, USER_1, {"role": "developer", "content": "x"}]
    assert next_step(two_turns.trace, messages).tool_calls[0].id == "call_1"


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        pytest.param(
            [{"role": "user", "content": "Echo goodbye"}],
            'messages[0]: turn 1 expects the user input "Echo hello"',
            id="wrong-user-input",
        ),
        pytest.param(
            [USER_1, CALL_1, RESULT_1, ANSWER_1, {"role": "assistant", "content": "more"}],
            "messages[4]: an assistant message the script does not have",
            id="assistant-message-the-script-lacks",
        ),
        pytest.param(
            [{"role": "assistant", "content": "I start"}, USER_1],
            "messages[0]: an assistant message the script does not have",
            id="assistant-before-any-user",
        ),
        pytest.param([USER_1, CALL_1], "the results of call_1 were not fed back", id="tool-results-missing"),
        pytest.param(
            [USER_1, CALL_1, USER_2],
            "messages[2]: a user message came before the results of call_1",
            id="user-before-tool-results",
        ),
        pytest.param(
            [USER_1, CALL_1, {"role": "tool", "tool_call_id": "call_9", "content": "x"}],
            "messages[2]: a tool result for 'call_9', which no pending call has",
            id="unknown-tool-call-id",
        ),
        pytest.param(
            [USER_1, CALL_1, RESULT_1, {"role": "tool", "tool_call_id": "call_1", "content": "again"}],
            "messages[3]: a tool result for 'call_1', which no pending call has",
            id="tool-result-fed-back-twice",
        ),
        pytest.param(
            [USER_1, CALL_1, RESULT_1, ANSWER_1],
            "turn 1 scripts only 2 step(s); the agent asked for another",
            id="request-beyond-the-scripted-steps",
        ),
        pytest.param(
            [*TWO_TURNS_DONE, {"role": "user", "content": "third"}],
            "messages[6]: the fixture scripts only 2 turn(s)",
            id="turn-beyond-the-script",
        ),
        pytest.param(
            [USER_1, {"role": "function", "name": "echo", "content": "x"}],
            "messages[1]: unexpected role 'function'",
            id="unexpected-role",
        ),
        pytest.param(
            [USER_1, {"role": "assistant", "content": "Sure, hello."}],
            "messages[1]: the script asked for the tool calls [('call_1', 'echo')], the agent sent back []",
            id="text-where-the-script-called-tools",
        ),
        pytest.param(
            [
                USER_1,
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "list_dir"}}],
                },
            ],
            "the script asked for the tool calls [('call_1', 'echo')], the agent sent back"
            " [('call_1', 'list_dir')]",
            id="different-tool-calls",
        ),
        pytest.param(
            [{"role": "system", "content": "x"}], "the conversation has no user message", id="no-user"
        ),
    ],
)
def test_each_divergence_gets_a_clear_message(two_turns: Case, messages: list[Any], expected: str) -> None:
    with pytest.raises(Divergence) as caught:
        next_step(two_turns.trace, messages)
    assert expected in str(caught.value)


def test_tool_calls_where_the_script_answered_with_text_diverge(two_turns: Case) -> None:
    messages: list[Any] = [USER_1, CALL_1, RESULT_1, {**CALL_1, "content": "text"}]
    with pytest.raises(
        Divergence, match=r"messages\[3\]: the script answered with text here, not tool calls"
    ):
        next_step(two_turns.trace, messages)
