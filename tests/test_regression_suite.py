"""The project's own suites: every gated case passes in replay and can fail.

A case "can fail" when graded against an empty run (setup applied, nothing else: no
response, no calls, no tokens) at least one of its checks fails; a case that an empty
run satisfies certifies nothing and cannot be part of the gate. The check is the one
`zeroclaw eval vacuity` runs (`zeroclaw_eval.grading.vacuity`).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from tests.support.builders import admitted
from zeroclaw_eval.agent.loop import AgentContext, AgentFactory, ReferenceAgent
from zeroclaw_eval.boundary.provider import Message, ModelResponse
from zeroclaw_eval.grading.vacuity import find_vacuous
from zeroclaw_eval.report.model import CaseError
from zeroclaw_eval.runner import RunOptions, run_case

EVALS = Path(__file__).resolve().parent.parent / "evals"
SUITE = EVALS / "regression"
FIXTURES = sorted(SUITE.glob("*.json"))
# Capability cases are expected to fail today and live cases need a real provider:
# neither is gated, but both must be valid, non-vacuous fixtures.
OTHER_FIXTURES = sorted([*(EVALS / "capability").glob("*.json"), *(EVALS / "live").glob("*.json")])


def test_suite_is_not_empty() -> None:
    assert len(FIXTURES) >= 30


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_case_passes_in_replay(path: Path) -> None:
    report = asyncio.run(run_case(admitted(path)))
    failures = [f"{g.check_id}: {g.detail}" for g in report.failed_grades]
    assert report.error is None, report.error
    assert failures == []


@pytest.mark.parametrize("path", [*FIXTURES, *OTHER_FIXTURES], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_fails_against_an_empty_run(path: Path) -> None:
    vacuous = find_vacuous(admitted(path))
    assert vacuous is None, f"{path.name}: every check passes vacuously: {vacuous.check_ids}"


@pytest.mark.parametrize("suite", ["capability", "live"])
def test_the_ungated_suites_hold_a_few_cases(suite: str) -> None:
    assert 3 <= len(list((EVALS / suite).glob("*.json"))) <= 6


def test_live_cases_script_no_steps() -> None:
    live = [p for p in OTHER_FIXTURES if p.parent.name == "live"]
    scripted = [p.name for p in live if any(turn.steps for turn in admitted(p).trace.turns)]
    assert scripted == []


@pytest.mark.parametrize("path", [*FIXTURES, *OTHER_FIXTURES], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_model_name_matches_file_name(path: Path) -> None:
    assert admitted(path).trace.model_name == path.stem.replace("_", "-")


class ForgetfulAgent:
    """Runs every tool the model asks for, but never feeds a result back: each request
    carries only the user's input (the agent a gate that ignores requests certified)."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        ask: list[Message] = [{"role": "user", "content": user_input}]
        for _ in range(self.context.max_tool_iterations + 1):
            reply = await self.context.provider.complete(ask, self.context.tools.specs())
            if not reply.tool_calls:
                return reply.content or ""
            for call in reply.tool_calls:
                await self.context.tools.call(call.name, call.arguments, call.id)
        return ""


class ResultlessAgent(ReferenceAgent):
    """The reference loop, but it echoes each tool call back without its result."""

    async def _dispatch(self, response: ModelResponse) -> None:
        await super()._dispatch(response)
        self.messages = [message for message in self.messages if message.get("role") != "tool"]


class AmnesiacAgent(ReferenceAgent):
    """The reference loop, but each turn starts a fresh conversation: earlier turns are lost."""

    async def run_turn(self, user_input: str) -> str:
        self.messages = []
        return await super().run_turn(user_input)


class SilentAgent:
    """Asks the model with nothing at all, as `provider.complete([], [])` does."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        return (await self.context.provider.complete([], [])).content or ""


def _scripts_a_tool_call(path: Path) -> bool:
    trace = admitted(path).trace
    return any(step.response.tool_calls for turn in trace.turns for step in turn.steps or ())


TOOL_CALLING = [path for path in FIXTURES if _scripts_a_tool_call(path)]


def _run_error(path: Path, agent: AgentFactory) -> CaseError:
    """The run error of `path` run through `agent`, which must end in one."""
    report = asyncio.run(run_case(admitted(path), RunOptions(agent_factory=agent)))
    assert report.status == "error"
    assert report.error is not None
    return report.error


@pytest.mark.parametrize(
    ("agent", "words"),
    [
        (ForgetfulAgent, "the request carries the conversation only up to"),
        (ResultlessAgent, "does not carry the results of"),
    ],
    ids=["never-echoes-calls", "echoes-calls-without-results"],
)
@pytest.mark.parametrize("path", TOOL_CALLING, ids=[p.name for p in TOOL_CALLING])
def test_an_agent_that_never_feeds_a_result_back_fails_with_a_run_error_at_the_step(
    path: Path, agent: AgentFactory, words: str
) -> None:
    error = _run_error(path, agent)
    assert re.fullmatch(r"/turns/\d+/steps/\d+", error.field.pointer), error
    assert words in error.message


MULTI_TURN = [path for path in FIXTURES if len(admitted(path).trace.turns) > 1]


def test_the_suite_has_multi_turn_cases() -> None:
    assert len(MULTI_TURN) >= 3


@pytest.mark.parametrize("path", MULTI_TURN, ids=[p.name for p in MULTI_TURN])
def test_an_agent_that_forgets_earlier_turns_fails_at_the_second_turn(path: Path) -> None:
    error = _run_error(path, AmnesiacAgent)
    assert error.field.pointer == "/turns/1/steps/0"
    assert "turn 1's user input is" in error.message


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_an_agent_that_sends_nothing_fails_every_case(path: Path) -> None:
    error = _run_error(path, SilentAgent)
    assert error.field.pointer == "/turns/0/steps/0"
    assert "the request carries no user message" in error.message
