"""`zeroclaw_eval.agent.loop`: the reference loop asks, dispatches, feeds results back and stops."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tests.support.builders import admit_case, run_replay, scripted_fixture, text_step, tool_call, tools_step
from zeroclaw_eval.agent.loop import Agent, AgentContext, ReferenceAgent
from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, Provider, ToolChoice, ToolSpec


class SpyProvider:
    """Forwards to another provider and keeps a copy of every request's messages."""

    def __init__(self, inner: Provider, log: list[list[Message]]) -> None:
        self._inner = inner
        self._log = log

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        self._log.append(copy.deepcopy(messages))
        return await self._inner.complete(messages, tools, choice)


def spying_reference_agent(log: list[list[Message]]) -> Any:
    """An agent factory: the reference agent, talking through a `SpyProvider`."""

    def factory(context: AgentContext) -> Agent:
        spy = SpyProvider(context.provider, log)
        return ReferenceAgent(AgentContext(spy, context.tools, context.max_tool_iterations))

    return factory


def test_reference_agent_dispatches_several_calls_chains_steps_and_feeds_results_back(tmp_path: Path) -> None:
    data = scripted_fixture(
        [
            (
                "echo three things",
                [
                    tools_step(
                        tool_call("echo", {"message": "one"}, "c1"),
                        tool_call("echo", {"message": "two"}, "c2"),
                        tokens=(10, 2),
                    ),
                    tools_step(tool_call("echo", {"message": "three"}, "c3"), tokens=(20, 3)),
                    text_step("done: one two three", tokens=(30, 4)),
                ],
            )
        ],
        {
            "exact_tool_calls": 3,
            "tool_arguments_contain": [{"tool": "echo", "needle": "three", "call_index": 2}],
            "tool_results_contain": [{"tool": "echo", "needle": "two", "call_index": 1}],
            "budget": {"max_total_tokens": 69, "max_llm_calls": 3},
        },
    )
    log: list[list[Message]] = []
    report = run_replay(admit_case(tmp_path, data), agent_factory=spying_reference_agent(log))
    assert report.error is None
    assert report.passed, [g.detail for g in report.failed_grades]
    record = report.record
    assert record is not None
    assert [(c.call_id, c.name, c.arguments, c.result, c.success) for c in record.calls] == [
        ("c1", "echo", {"message": "one"}, "one", True),
        ("c2", "echo", {"message": "two"}, "two", True),
        ("c3", "echo", {"message": "three"}, "three", True),
    ]
    assert record.final_response == "done: one two three"
    assert record.llm_calls == 3
    assert (record.input_tokens, record.output_tokens) == (60, 9)
    assert len(log) == 3  # stopped at the text answer

    assert log[0] == [{"role": "user", "content": "echo three things"}]
    second = log[1]
    assistant = [m for m in second if m["role"] == "assistant"]
    assert [c["id"] for c in assistant[0]["tool_calls"]] == ["c1", "c2"]
    tool_messages = [(m["tool_call_id"], m["content"]) for m in second if m["role"] == "tool"]
    assert tool_messages == [("c1", "one"), ("c2", "two")]
    third_tools = [(m["tool_call_id"], m["content"]) for m in log[2] if m["role"] == "tool"]
    assert third_tools == [("c1", "one"), ("c2", "two"), ("c3", "three")]


def test_failed_tool_calls_are_fed_back_and_the_loop_goes_on(tmp_path: Path) -> None:
    data = scripted_fixture(
        [
            (
                "try things",
                [
                    tools_step(
                        tool_call("no_such_tool", {"x": 1}, "u1"),
                        tool_call("echo", '{"message": "broken', "m1"),
                    ),
                    text_step("I could not do that"),
                ],
            )
        ],
        {"all_tools_succeeded": False, "exact_tool_calls": 2, "tools_used": ["no_such_tool"]},
    )
    log: list[list[Message]] = []
    report = run_replay(admit_case(tmp_path, data), agent_factory=spying_reference_agent(log))
    assert report.error is None
    assert report.passed, [g.detail for g in report.failed_grades]
    assert report.record is not None
    assert [c.success for c in report.record.calls] == [False, False]
    assert report.record.calls[1].arguments == '{"message": "broken'
    fed_back = {m["tool_call_id"]: m["content"] for m in log[1] if m["role"] == "tool"}
    assert "unknown tool" in fed_back["u1"]
    assert "malformed" in fed_back["m1"]


def test_multi_turn_history_is_kept_across_turns(tmp_path: Path) -> None:
    data = scripted_fixture(
        [
            (
                "my name is zeroclaw_user",
                [tools_step(tool_call("echo", {"message": "name"}, "c1")), text_step("Noted.")],
            ),
            ("what is my name?", [text_step("You are zeroclaw_user.")]),
        ],
        {"response_contains": ["zeroclaw_user"]},
    )
    log: list[list[Message]] = []
    report = run_replay(admit_case(tmp_path, data), agent_factory=spying_reference_agent(log))
    assert report.passed
    assert report.record is not None
    assert [(t.index, t.user_input, t.response) for t in report.record.turns] == [
        (0, "my name is zeroclaw_user", "Noted."),
        (1, "what is my name?", "You are zeroclaw_user."),
    ]
    assert [step.turn for step in report.record.steps] == [0, 0, 1]
    assert [c.turn for c in report.record.calls] == [0]
    turn_two = log[2]
    assert turn_two[0] == {"role": "user", "content": "my name is zeroclaw_user"}
    assert {"role": "assistant", "content": "Noted."} in turn_two
    assert any(m["role"] == "tool" and m["content"] == "name" for m in turn_two)
    assert turn_two[-1] == {"role": "user", "content": "what is my name?"}


def _rounds(count: int) -> list[dict[str, Any]]:
    return [tools_step(tool_call("echo", {"message": f"round {i}"}, f"c{i}")) for i in range(count)]


def test_iteration_cap_is_a_run_error_naming_the_turn(tmp_path: Path) -> None:
    data = scripted_fixture(
        [("warm up", [text_step("ready")]), ("loop", [*_rounds(3), text_step("finally")])],
        {"max_tool_calls": 5},
    )
    report = run_replay(admit_case(tmp_path, data), max_tool_iterations=2)
    assert report.error is not None
    assert "turn 2" in report.error.message
    assert "cap" in report.error.message
    assert report.error.field.pointer == "/turns/1"
    assert report.error.field.line is not None
    assert not report.passed
    assert report.record is not None
    assert len(report.record.calls) == 2  # no tool round past the cap ran


def test_tool_rounds_up_to_the_cap_are_allowed(tmp_path: Path) -> None:
    data = scripted_fixture([("loop", [*_rounds(2), text_step("finally")])], {"exact_tool_calls": 2})
    report = run_replay(admit_case(tmp_path, data), max_tool_iterations=2)
    assert report.error is None
    assert report.passed
