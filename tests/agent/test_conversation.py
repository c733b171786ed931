"""`agent.conversation`: where a whole conversation stands in the script, and where it left it."""

from __future__ import annotations

import enum
from typing import Any

import pytest

from tests.support.builders import scripted_fixture, tool_call, tools_step
from tests.support.scripts import (
    ANSWER_1,
    CALL_1,
    RESULT_1,
    TWO_TURNS_DONE,
    USER_1,
    USER_2,
    text_step,
)
from zeroclaw_eval.agent.conversation import (
    Follower,
    Position,
    check_request,
    follow,
    next_step,
    script_of,
    step_at,
)
from zeroclaw_eval.agent.permitted import check_choice
from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest, ToolChoice
from zeroclaw_eval.boundary.text_echo import structured
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.cases.model import LlmTrace
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


def test_per_turn_a_request_that_carries_its_own_turn_alone_follows_the_script(two_turns: Case) -> None:
    trace = two_turns.trace
    script = script_of(trace)
    follower = Follower(trace, script, per_turn=True)
    assert follower.follow([USER_1], 0) == Position(0, 0)
    assert follower.follow([USER_1, CALL_1, RESULT_1], 0) == Position(0, 1)
    # The second turn afresh: no first turn before it, which a whole history must carry.
    assert follower.follow([{"role": "system", "content": "x"}, USER_2], 1) == Position(1, 0)
    with pytest.raises(Divergence, match="turn 1's user input is"):
        check_request(Follower(trace, script), [USER_2], Position(1, 0))
    # Each turn is still its own: the first turn's input is not the second's.
    with pytest.raises(Divergence, match="turn 2's user input is"):
        Follower(trace, script, per_turn=True).follow([USER_1], 1)


def test_serve_finds_the_turn_a_request_of_one_turn_follows(two_turns: Case) -> None:
    # The second turn's message quotes the first's input: the last turn that fits is the one.
    quoted = {"role": "user", "content": "Earlier: Echo hello\nNow: Now say bye"}
    position, step = step_at(two_turns.trace, [quoted], match="contains", per_turn=True)
    assert (position, step.content) == (Position(1, 0), "bye")


def _smolagents_turns() -> LlmTrace:
    final = tools_step(tool_call("final_answer", {"answer": "hello"}, "call_f"))
    fixture = scripted_fixture(
        [
            ("Echo hello", [tools_step(tool_call("echo", {"message": "hello"}, "call_1")), final]),
            ("Bye", [text_step("bye")]),
        ],
        {"min_tool_calls": 1},
    )
    return LlmTrace.model_validate(fixture)


TEXT_TURN_1 = [
    {"role": "user", "content": "New task:\nEcho hello"},
    {
        "role": "assistant",
        "content": "Calling tools:\n[{'id': 'call_1', 'function': {'name': 'echo', 'arguments': "
        + "{'message': 'hello'}}}]",
    },
    {"role": "user", "content": "Observation:\nhello"},
    {
        "role": "assistant",
        "content": "Calling tools:\n[{'id': 'call_f', 'function': {'name': 'final_answer', 'arguments': "
        + "{'answer': 'hello'}}}]",
    },
]


def test_the_last_results_of_a_turn_read_from_text_may_carry_the_next_input() -> None:
    trace = _smolagents_turns()
    carried = {"role": "user", "content": "Observation:\nhello\nNew task:\nBye"}
    assert follow(trace, script_of(trace), structured([*TEXT_TURN_1, carried]), "contains") == Position(1, 0)
    stale = {"role": "user", "content": "Observation:\nhello\nNew task:\nEcho hello"}
    with pytest.raises(Divergence, match='turn 2\'s user input is "Bye"') as refused:
        follow(trace, script_of(trace), structured([*TEXT_TURN_1, stale]), "contains")
    assert refused.value.pointer == "/turns/1/user_input"
