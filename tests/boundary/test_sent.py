"""`zeroclaw_eval.boundary.sent`: reading what an agent sends, never raising on what it is."""

from __future__ import annotations

from typing import Any

import pytest

from zeroclaw_eval.boundary.sent import FedBack, fed_back, message_text, roles_and_system_prompt

CALLS = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": '{"message":"x"}'}},
        {"id": "c2", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}},
    ],
}


def test_the_results_after_the_last_assistant_message_are_fed_back() -> None:
    messages: list[Any] = [
        {"role": "user", "content": "go"},
        CALLS,
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
        {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "a.txt"}]},
        {"role": "tool", "tool_call_id": "c9", "content": "answers no call"},
    ]
    assert fed_back(messages) == [
        FedBack("c1", "echo", '{"message":"x"}', "x"),
        FedBack("c2", "list_dir", "{}", "a.txt"),
    ]


def test_results_before_a_new_user_message_belong_to_a_turn_that_is_over() -> None:
    messages: list[Any] = [
        CALLS,
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
        {"role": "user", "content": "next"},
    ]
    assert fed_back(messages) == []


def test_fields_of_the_wrong_type_are_skipped_not_raised_on() -> None:
    odd: list[Any] = [
        {"role": "assistant", "tool_calls": [{"id": ["c1"], "function": {"name": 7}}, "junk", {"id": "c2"}]},
        {"role": "tool", "tool_call_id": ["c1"], "content": "x"},
        {"role": "tool", "tool_call_id": "c2", "content": {"nested": 1}},
        "not a message",
    ]
    assert fed_back(odd) == [FedBack("c2", "", "", '{"nested": 1}')]
    assert roles_and_system_prompt(odd)[0] == ["assistant", "tool", "tool", "?"]
    assert roles_and_system_prompt(
        [{"role": "system", "content": 3}, {"role": "developer", "content": "be brief"}]
    ) == (["system", "developer"], "be brief")
    assert message_text([{"type": "image_url"}]) is None


@pytest.mark.parametrize("listed", [5, "c1", {"id": "c1"}, None])
def test_tool_calls_that_are_no_list_answer_no_result_and_raise_nothing(listed: Any) -> None:
    # What the request got wrong is the conversation check's to say ("tool_calls must be a
    # list"), not a TypeError raised into the agent as if it were its own.
    messages: list[Any] = [
        {"role": "assistant", "tool_calls": listed},
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
    ]
    assert fed_back(messages) == []


def test_tool_calls_given_as_a_tuple_are_read_as_a_list() -> None:
    messages: list[Any] = [{**CALLS, "tool_calls": tuple(CALLS["tool_calls"])}]
    messages.append({"role": "tool", "tool_call_id": "c1", "content": "x"})
    assert fed_back(messages) == [FedBack("c1", "echo", '{"message":"x"}', "x")]
