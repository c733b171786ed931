"""`agent.conversation`: where a whole conversation stands in the script, and where it left it."""

from __future__ import annotations

import enum
from typing import Any

import pytest

from tests.support.scripts import (
    ANSWER_1,
    CALL_1,
    RESULT_1,
    TWO_TURNS_DONE,
    USER_1,
    USER_2,
)
from zeroclaw_eval.agent.conversation import check_choice, next_step, step_at
from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.errors import Divergence


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


def test_a_history_may_leave_out_the_closing_answer_but_not_the_calls(two_turns: Case) -> None:
    # Some agents keep only the tool rounds of a finished turn; the calls are what the
    # script needs echoed, so the next turn still finds its place.
    assert next_step(two_turns.trace, [USER_1, CALL_1, RESULT_1, USER_2]).content == "bye"


def test_next_step_skips_system_and_developer_messages(two_turns: Case) -> None:
    messages = [{"role": "system", "content": "be brief"}, USER_1, {"role": "developer", "content": "x"}]
    assert next_step(two_turns.trace, messages).tool_calls[0].id == "call_1"


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        pytest.param(
            [{"role": "user", "content": "Echo goodbye"}],
            'messages[0] (user): turn 1\'s user input is "Echo hello"; the request has "Echo goodbye"',
            id="wrong-user-input",
        ),
        pytest.param(
            [USER_1, CALL_1, RESULT_1, ANSWER_1, {"role": "assistant", "content": "more"}],
            "messages[4] (assistant): an assistant message beyond the script, whose turn 1 has 2 step(s)",
            id="assistant-message-the-script-lacks",
        ),
        pytest.param(
            [{"role": "assistant", "content": "I start"}, USER_1],
            "messages[0] (assistant): an assistant message before any user message",
            id="assistant-before-any-user",
        ),
        pytest.param(
            [USER_1, CALL_1],
            "the request does not carry the results of echo (id call_1)",
            id="tool-results-missing",
        ),
        pytest.param(
            [USER_1, CALL_1, USER_2],
            "messages[2] (user): a user message came before the results of echo (id call_1)",
            id="user-before-tool-results",
        ),
        pytest.param(
            [USER_1, CALL_1, ANSWER_1],
            "messages[2] (assistant): an assistant message came before the results of echo (id call_1)",
            id="assistant-before-tool-results",
        ),
        pytest.param(
            [USER_1, USER_2],
            "messages[1] (user): the next turn begins without turn 1, step 1's tool calls"
            " (echo (id call_1)); echo them back, with their results, before the next user message",
            id="next-turn-without-the-tool-calls",
        ),
        pytest.param(
            [USER_1, CALL_1, {"role": "tool", "tool_call_id": "call_9", "content": "x"}],
            "messages[2] (tool): a result for call_9, which no scripted call awaits;"
            " the script waits for the results of echo (id call_1)",
            id="unknown-tool-call-id",
        ),
        pytest.param(
            [USER_1, CALL_1, RESULT_1, {"role": "tool", "tool_call_id": "call_1", "content": "again"}],
            "messages[3] (tool): a result for call_1, which no scripted call awaits",
            id="tool-result-fed-back-twice",
        ),
        pytest.param(
            [USER_1, CALL_1, RESULT_1, ANSWER_1],
            "turn 1 scripts 2 step(s), all served; the request asks for another",
            id="request-beyond-the-scripted-steps",
        ),
        pytest.param(
            [*TWO_TURNS_DONE, {"role": "user", "content": "third"}],
            "messages[6] (user): a user message beyond the script, which has 2 turn(s)",
            id="turn-beyond-the-script",
        ),
        pytest.param(
            [USER_1, {"role": "function", "name": "echo", "content": "x"}],
            'messages[1] (function): a message with "function"; expected user, assistant, tool or system',
            id="unexpected-role",
        ),
        pytest.param(
            [USER_1, {"role": "assistant", "content": "Sure, hello."}],
            "messages[1] (assistant): turn 1, step 1 of the script calls echo (id call_1);"
            " the request echoes back none",
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
            "turn 1, step 1 of the script calls echo (id call_1);"
            " the request echoes back list_dir (id call_1)",
            id="different-tool-calls",
        ),
        pytest.param(
            [{"role": "system", "content": "x"}],
            'the request carries no user message; turn 1\'s user input is "Echo hello"',
            id="no-user",
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
        Divergence, match=r"messages\[3\] \(assistant\): turn 1, step 2 of the script answers with text"
    ):
        next_step(two_turns.trace, messages)


class Role(str, enum.Enum):
    """Roles as an agent of this process may write them: equal to their text."""

    USER = "user"
    ASSISTANT = "assistant"


def test_a_divergence_names_the_role_as_the_agent_wrote_it(two_turns: Case) -> None:
    messages: list[Any] = [
        {**USER_1, "role": Role.USER},
        {**CALL_1, "role": Role.ASSISTANT, "tool_calls": [{"id": "zz", "function": {"name": "echo"}}]},
    ]
    with pytest.raises(Divergence) as caught:
        next_step(two_turns.trace, messages)
    assert str(caught.value).startswith(
        f"messages[1] ({Role.ASSISTANT}): turn 1, step 1 of the script calls echo"
    )


TWO_CALLS = ModelResponse(
    content=None,
    tool_calls=(ToolCallRequest("c1", "echo", "{}"), ToolCallRequest("c2", "file_read", "{}")),
)
TEXT = ModelResponse(content="done")


@pytest.mark.parametrize(
    ("step", "choice"),
    [
        (TWO_CALLS, ToolChoice()),
        (TEXT, ToolChoice()),
        (TEXT, ToolChoice("none")),
        (TWO_CALLS, ToolChoice("required")),
        (TWO_CALLS, ToolChoice("required", allowed=frozenset({"echo", "file_read"}))),
        (
            ModelResponse(content=None, tool_calls=TWO_CALLS.tool_calls[:1]),
            ToolChoice("function", "echo", parallel=False),
        ),
    ],
)
def test_a_step_the_request_allows_passes_check_choice(step: ModelResponse, choice: ToolChoice) -> None:
    check_choice(step, choice)


@pytest.mark.parametrize(
    ("step", "choice", "expected"),
    [
        (TWO_CALLS, ToolChoice("none"), 'calls echo, file_read, but the request\'s tool_choice is "none"'),
        (
            TEXT,
            ToolChoice("required"),
            'answers with text, but the request\'s tool_choice is "required": the model must call a tool',
        ),
        (TEXT, ToolChoice("function", "echo"), "the model must call echo"),
        (
            TWO_CALLS,
            ToolChoice("function", "echo"),
            "calls file_read, but the request's tool_choice forces echo",
        ),
        (
            TWO_CALLS,
            ToolChoice(allowed=frozenset({"echo"})),
            "calls file_read, but the request allows the model only echo",
        ),
        (
            TWO_CALLS,
            ToolChoice(parallel=False),
            "calls 2 tools in one step (echo, file_read), but the request's parallel_tool_calls is false",
        ),
    ],
)
def test_a_step_the_request_forbids_diverges_saying_why(
    step: ModelResponse, choice: ToolChoice, expected: str
) -> None:
    with pytest.raises(Divergence) as raised:
        check_choice(step, choice)
    assert expected in str(raised.value)


# The templates two frameworks wrap the user's input in: smolagents (in content parts) and CrewAI.
WRAPPED = [
    {"role": "user", "content": [{"type": "text", "text": "New task:\nEcho hello"}]},
    {"role": "user", "content": "\nCurrent Task: Echo hello\n\nThis is the expected criteria: be short."},
]


@pytest.mark.parametrize("user", WRAPPED, ids=["smolagents", "crewai"])
def test_a_wrapped_input_passes_under_contains_and_says_how_under_exact(two_turns: Case, user: Any) -> None:
    trace = two_turns.trace
    assert step_at(trace, [user], match="contains")[1].tool_calls[0].id == "call_1"
    with pytest.raises(Divergence) as refused:
        step_at(trace, [user])
    assert 'turn 1\'s user input is "Echo hello"' in str(refused.value)
    assert 'set user_input_match = "contains"' in str(refused.value)
    assert refused.value.pointer == "/turns/0/user_input"


@pytest.mark.parametrize(
    "text",
    ["New task:\nEcho goodbye", "New task:\nEcho hell", "Echo  hello", "echo hello", ""],
    ids=["other-input", "cut", "respaced", "recased", "empty"],
)
def test_contains_still_wants_the_whole_input(two_turns: Case, text: str) -> None:
    with pytest.raises(Divergence) as refused:
        step_at(two_turns.trace, [{"role": "user", "content": text}], match="contains")
    assert 'which does not contain it (user_input_match is "contains")' in str(refused.value)


def test_an_unwrapped_input_that_differs_gets_no_advice_to_loosen_the_match(two_turns: Case) -> None:
    with pytest.raises(Divergence) as refused:
        step_at(two_turns.trace, [{"role": "user", "content": "Echo goodbye"}])
    assert "user_input_match" not in str(refused.value)


def test_contains_holds_each_turn_to_its_own_input(two_turns: Case) -> None:
    # The second turn's message repeats the first input, not its own: another turn's input.
    second = {"role": "user", "content": "New task:\nEcho hello"}
    with pytest.raises(Divergence) as refused:
        step_at(two_turns.trace, [USER_1, CALL_1, RESULT_1, ANSWER_1, second], match="contains")
    assert "turn 2's user input" in str(refused.value)
