"""Unit tests for the replay provider, the reference agent loop and `runner.run_case` isolation."""

from __future__ import annotations

import asyncio
import copy
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.builders import admit_case, text_step, tool_call, tools_step
from zeroclaw_eval.errors import RunError
from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.fixtures.model import LlmTrace
from zeroclaw_eval.report.model import CaseReport
from zeroclaw_eval.run.agent import Agent, AgentContext, ReferenceAgent
from zeroclaw_eval.run.provider import Message, ModelResponse, Provider, ToolCallRequest, ToolSpec
from zeroclaw_eval.run.replay import ReplayProvider
from zeroclaw_eval.runner import RunOptions, run_case


def fixture(
    turns: list[tuple[str, list[dict[str, Any]]]], expects: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    """A fixture from (user_input, steps) pairs."""
    return {
        "model_name": "unit",
        **extra,
        "turns": [{"user_input": user, "steps": steps} for user, steps in turns],
        "expects": expects,
    }


def run(case: Case, **options: Any) -> CaseReport:
    """Run one case to its report."""
    return asyncio.run(run_case(case, RunOptions(**options)))


def trace_of(data: dict[str, Any]) -> LlmTrace:
    return LlmTrace.model_validate(data)


class SpyProvider:
    """Forwards to another provider and keeps a copy of every request's messages."""

    def __init__(self, inner: Provider, log: list[list[Message]]) -> None:
        self._inner = inner
        self._log = log

    async def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        self._log.append(copy.deepcopy(messages))
        return await self._inner.complete(messages, tools)


def spying_reference_agent(log: list[list[Message]]) -> Any:
    """An agent factory: the reference agent, talking through a `SpyProvider`."""

    def factory(context: AgentContext) -> Agent:
        spy = SpyProvider(context.provider, log)
        return ReferenceAgent(AgentContext(spy, context.tools, context.max_tool_iterations))

    return factory


# --- ReplayProvider ---------------------------------------------------------------------


TWO_TURNS = fixture(
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
    data = fixture(
        [("go", [tools_step(tool_call("echo", '{"message": "unterminated', "c1")), text_step("ok")])],
        {"response_contains": ["ok"]},
    )
    provider = ReplayProvider(trace_of(data))
    provider.begin_turn(0)
    response = asyncio.run(provider.complete([], []))
    assert response.tool_calls[0].arguments == '{"message": "unterminated'


def test_replay_gives_every_call_an_id() -> None:
    data = fixture(
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


# --- the reference agent, run through run_case ----------------------------------------------


def test_reference_agent_dispatches_several_calls_chains_steps_and_feeds_results_back(tmp_path: Path) -> None:
    data = fixture(
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
    report = run(admit_case(tmp_path, data), agent_factory=spying_reference_agent(log))
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
    data = fixture(
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
    report = run(admit_case(tmp_path, data), agent_factory=spying_reference_agent(log))
    assert report.error is None
    assert report.passed, [g.detail for g in report.failed_grades]
    assert report.record is not None
    assert [c.success for c in report.record.calls] == [False, False]
    assert report.record.calls[1].arguments == '{"message": "broken'
    fed_back = {m["tool_call_id"]: m["content"] for m in log[1] if m["role"] == "tool"}
    assert "unknown tool" in fed_back["u1"]
    assert "malformed" in fed_back["m1"]


def test_multi_turn_history_is_kept_across_turns(tmp_path: Path) -> None:
    data = fixture(
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
    report = run(admit_case(tmp_path, data), agent_factory=spying_reference_agent(log))
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
    data = fixture(
        [("warm up", [text_step("ready")]), ("loop", [*_rounds(3), text_step("finally")])],
        {"max_tool_calls": 5},
    )
    report = run(admit_case(tmp_path, data), max_tool_iterations=2)
    assert report.error is not None
    assert "turn 2" in report.error.message
    assert "cap" in report.error.message
    assert report.error.field.pointer == "/turns/1"
    assert report.error.field.line is not None
    assert not report.passed
    assert report.record is not None
    assert len(report.record.calls) == 2  # no tool round past the cap ran


def test_tool_rounds_up_to_the_cap_are_allowed(tmp_path: Path) -> None:
    data = fixture([("loop", [*_rounds(2), text_step("finally")])], {"exact_tool_calls": 2})
    report = run(admit_case(tmp_path, data), max_tool_iterations=2)
    assert report.error is None
    assert report.passed


def test_script_with_unconsumed_steps_is_a_run_error(tmp_path: Path) -> None:
    data = fixture(
        [("one", [text_step("ok")]), ("two", [text_step("early"), text_step("never asked")])],
        {"response_contains": ["early"]},
    )
    report = run(admit_case(tmp_path, data))
    assert report.error is not None
    assert "turn 2" in report.error.message
    assert report.error.field.pointer == "/turns/1/steps/1"
    assert not report.passed
    assert report.partial  # the grades come from the partial record


def test_script_too_short_is_a_run_error(tmp_path: Path) -> None:
    data = fixture(
        [("one", [tools_step(tool_call("echo", {"message": "x"}, "c1"))])],
        {"exact_tool_calls": 1},
    )
    report = run(admit_case(tmp_path, data))
    assert report.error is not None
    assert "turn 1" in report.error.message
    assert report.error.field.pointer == "/turns/0/steps"
    assert not report.passed


# --- custom agents ------------------------------------------------------------------------


class DirectAgent:
    """Not the reference loop: asks once, runs what was asked plus a call of its own."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        ask = [{"role": "user", "content": user_input}]
        response = await self.context.provider.complete(ask, self.context.tools.specs())
        for request in response.tool_calls:
            await self.context.tools.call(request.name, request.arguments, request.id)
        await self.context.tools.call("echo", {"message": "custom agent call"}, "mine-1")
        final = await self.context.provider.complete(ask, [])
        return (final.content or "").upper()


def test_custom_agent_factory_is_recorded_through_the_harness_toolbox(tmp_path: Path) -> None:
    data = fixture(
        [("go", [tools_step(tool_call("echo", {"message": "scripted"}, "s1")), text_step("custom done")])],
        {
            "exact_tool_calls": 2,
            "tool_arguments_contain": [{"tool": "echo", "needle": "custom agent call", "call_index": 1}],
            "tool_results_contain": [{"tool": "echo", "needle": "scripted", "call_index": 0}],
            "response_contains": ["CUSTOM DONE"],
            "budget": {"max_llm_calls": 2},
        },
    )
    report = run(admit_case(tmp_path, data), agent_factory=DirectAgent)
    assert report.error is None
    assert report.passed, [g.detail for g in report.failed_grades]
    assert report.record is not None
    assert [(c.call_id, c.result) for c in report.record.calls] == [
        ("s1", "scripted"),
        ("mine-1", "custom agent call"),
    ]
    assert report.record.final_response == "CUSTOM DONE"  # as the agent returned it


class RaisingAgent:
    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        await self.context.tools.call("echo", {"message": "before the crash"}, "r1")
        raise ValueError("agent exploded")


def test_agent_that_raises_is_a_run_error_not_a_crash(tmp_path: Path) -> None:
    data = fixture([("go", [])], {"exact_tool_calls": 1})
    report = run(admit_case(tmp_path, data), agent_factory=RaisingAgent)
    assert report.error is not None
    assert "ValueError" in report.error.message
    assert "agent exploded" in report.error.message
    assert report.error.field.pointer == "/turns/0"
    assert report.status == "error"
    assert report.record is not None
    assert len(report.record.calls) == 1  # the partial record is kept


def test_agent_factory_that_raises_is_a_run_error(tmp_path: Path) -> None:
    def broken_factory(context: AgentContext) -> Agent:
        raise RuntimeError("cannot build")

    report = run(
        admit_case(tmp_path, fixture([("go", [text_step("x")])], {"response_contains": ["x"]})),
        agent_factory=broken_factory,
    )
    assert report.error is not None
    assert "cannot build" in report.error.message
    assert not report.passed


class SwallowingAgent:
    """Asks for more steps than scripted and hides the provider's error."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        first = await self.context.provider.complete([], [])
        try:
            await self.context.provider.complete([], [])
        except Exception:
            pass
        return first.content or ""


def test_divergence_swallowed_by_the_agent_is_still_a_run_error(tmp_path: Path) -> None:
    data = fixture([("go", [text_step("only step")])], {"response_contains": ["only"]})
    report = run(admit_case(tmp_path, data), agent_factory=SwallowingAgent)
    assert report.error is not None
    assert "turn 1" in report.error.message
    assert report.error.field.pointer == "/turns/0/steps"


class NonTextAgent:
    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> Any:
        await self.context.provider.complete([], [])
        return {"not": "text"}


def test_agent_returning_something_else_than_text_is_a_run_error(tmp_path: Path) -> None:
    data = fixture([("go", [text_step("x")])], {"response_contains": ["x"]})
    report = run(admit_case(tmp_path, data), agent_factory=NonTextAgent)
    assert report.error is not None
    assert report.error.field.pointer == "/turns/0"


class SlowAgent:
    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        await asyncio.sleep(5)
        return "too late"


def test_turn_timeout_is_a_run_error(tmp_path: Path) -> None:
    data = fixture([("first", [])], {"response_contains": ["late"]})
    started = time.perf_counter()
    report = run(admit_case(tmp_path, data), agent_factory=SlowAgent, case_timeout_secs=0.05)
    assert time.perf_counter() - started < 4  # the turn was cut short, not awaited
    assert report.error is not None
    assert "timed out" in report.error.message
    assert "turn 1" in report.error.message
    assert report.error.field.pointer == "/turns/0"
    assert not report.passed


# --- isolation ------------------------------------------------------------------------------


class WorkspaceWatcher:
    """An agent factory that notes which temp folders exist while each case runs."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.seen: list[list[str]] = []
        self.agents: list[ReferenceAgent] = []

    def __call__(self, context: AgentContext) -> Agent:
        self.seen.append(sorted(os.listdir(self.base)))
        agent = ReferenceAgent(context)
        self.agents.append(agent)
        return agent


def test_each_case_gets_a_fresh_workspace_that_is_removed_afterwards(
    tmp_path: Path, private_tmp: Path
) -> None:
    fixtures_dir = tmp_path / "fixtures"
    fixtures_dir.mkdir()
    writer = admit_case(
        fixtures_dir,
        fixture(
            [
                (
                    "write a file",
                    [
                        tools_step(
                            tool_call("file_write", {"path": "leak.txt", "content": "from case A"}, "w1")
                        ),
                        text_step("written"),
                    ],
                )
            ],
            {"workspace": {"file_contains": {"leak.txt": ["case A"]}}},
            tools=["file_write"],
        ),
        name="a.json",
    )
    reader = admit_case(
        fixtures_dir,
        fixture(
            [("list", [tools_step(tool_call("list_dir", {}, "l1")), text_step("listed")])],
            {"workspace": {"file_absent": ["leak.txt"], "file_exists": ["seed.txt"]}},
            tools=["list_dir"],
            setup={"workspace_files": {"seed.txt": "seeded"}},
        ),
        name="b.json",
    )
    watcher = WorkspaceWatcher(private_tmp)
    first = run(writer, agent_factory=watcher)
    assert os.listdir(private_tmp) == []  # removed after the case
    second = run(reader, agent_factory=watcher)
    assert os.listdir(private_tmp) == []
    assert first.passed, [g.detail for g in first.failed_grades]
    assert second.passed, [g.detail for g in second.failed_grades]
    assert second.record is not None
    assert second.record.calls[0].result == "seed.txt"  # nothing of case A is visible
    # One workspace existed while each case ran, and not the same one.
    assert len(watcher.seen[0]) == 1
    assert len(watcher.seen[1]) == 1
    assert watcher.seen[0] != watcher.seen[1]
    # A fresh agent per case: the second one never saw the first case's conversation.
    assert watcher.agents[0] is not watcher.agents[1]
    assert watcher.agents[1].messages[0] == {"role": "user", "content": "list"}


def test_workspace_is_removed_even_when_the_run_errors(tmp_path: Path, private_tmp: Path) -> None:
    data = fixture([("go", [])], {"exact_tool_calls": 1}, tools=["file_read"])
    report = run(admit_case(tmp_path, data), agent_factory=RaisingAgent)
    assert report.error is not None
    assert os.listdir(private_tmp) == []


def test_a_case_that_needs_no_workspace_creates_none(tmp_path: Path, private_tmp: Path) -> None:
    data = fixture(
        [("echo", [tools_step(tool_call("echo", {"message": "hi"}, "c1")), text_step("hi")])],
        {"tool_results_contain": [{"tool": "echo", "needle": "hi"}]},
    )
    watcher = WorkspaceWatcher(private_tmp)
    report = run(admit_case(tmp_path, data), agent_factory=watcher)
    assert report.passed
    assert watcher.seen == [[]]
    assert os.listdir(private_tmp) == []


def test_setup_files_are_seeded_before_the_first_turn(tmp_path: Path, private_tmp: Path) -> None:
    data = fixture(
        [("read it", [tools_step(tool_call("file_read", {"path": "docs/in.txt"}, "r1")), text_step("read")])],
        {
            "tool_results_contain": [{"tool": "file_read", "needle": "seeded 東京"}],
            "all_tools_succeeded": True,
        },
        tools=["file_read"],
        setup={"workspace_files": {"docs/in.txt": "seeded 東京"}},
    )
    report = run(admit_case(tmp_path, data))
    assert report.passed, [g.detail for g in report.failed_grades]
    assert os.listdir(private_tmp) == []


def test_failed_grade_is_located_in_the_fixture(tmp_path: Path) -> None:
    data = fixture([("hi", [text_step("hello")])], {"response_contains": ["hello", "absent"]})
    case = admit_case(tmp_path, data)
    report = run(case)
    failed = report.failed_grades
    assert [g.check_id for g in failed] == ["response_contains[1]"]
    lines = case.text.splitlines()
    line, col = failed[0].field.line, failed[0].field.col
    assert line is not None
    assert col is not None
    assert lines[line - 1][col - 1 :].startswith('"absent"')


def test_duration_is_recorded(tmp_path: Path) -> None:
    data = fixture([("hi", [text_step("hello")])], {"budget": {"max_duration_ms": 60000}})
    report = run(admit_case(tmp_path, data))
    assert report.passed
    assert report.record is not None
    assert report.record.duration_ms > 0
    assert report.duration_ms == report.record.duration_ms
