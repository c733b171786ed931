"""`zeroclaw_eval.agent.drive`: a case's turns through an agent; whatever goes wrong is a run
error, never a crash."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.support.agents import RaisingAgent, SyncLoop
from tests.support.builders import (
    admit_case,
    admit_with_project_tools,
    run_replay,
    said_suite,
    scripted_fixture,
    text_step,
    tool_call,
    tools_step,
    write_fixture,
)
from zeroclaw_eval import ProjectTool
from zeroclaw_eval.agent.loop import Agent, AgentContext, ReferenceAgent
from zeroclaw_eval.boundary.provider import Message
from zeroclaw_eval.errors import AgentLoadError, SystemProblem
from zeroclaw_eval.report.model import CaseReport
from zeroclaw_eval.runner import RunOptions, run_case, run_suite


def test_script_with_unconsumed_steps_is_a_run_error(tmp_path: Path) -> None:
    data = scripted_fixture(
        [("one", [text_step("ok")]), ("two", [text_step("early"), text_step("never asked")])],
        {"response_contains": ["early"]},
    )
    report = run_replay(admit_case(tmp_path, data))
    assert report.error is not None
    assert "turn 2" in report.error.message
    assert report.error.field.pointer == "/turns/1/steps/1"
    assert not report.passed
    assert report.partial  # the grades come from the partial record


def test_script_too_short_is_a_run_error(tmp_path: Path) -> None:
    data = scripted_fixture(
        [("one", [tools_step(tool_call("echo", {"message": "x"}, "c1"))])],
        {"exact_tool_calls": 1},
    )
    report = run_replay(admit_case(tmp_path, data))
    assert report.error is not None
    assert "turn 1" in report.error.message
    assert report.error.field.pointer == "/turns/0/steps"
    assert not report.passed


class DirectAgent:
    """Not the reference loop: asks once, runs what was asked plus a call of its own."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        conversation: list[Message] = [{"role": "user", "content": user_input}]
        response = await self.context.provider.complete(conversation, self.context.tools.specs())
        calls = [request.as_openai() for request in response.tool_calls]
        conversation.append({"role": "assistant", "content": None, "tool_calls": calls})
        for request in response.tool_calls:
            outcome = await self.context.tools.call(request.name, request.arguments, request.id)
            conversation.append({"role": "tool", "tool_call_id": request.id, "content": outcome.content})
        await self.context.tools.call("echo", {"message": "custom agent call"}, "mine-1")
        final = await self.context.provider.complete(conversation, [])
        return (final.content or "").upper()


def test_custom_agent_factory_is_recorded_through_the_harness_toolbox(tmp_path: Path) -> None:
    data = scripted_fixture(
        [("go", [tools_step(tool_call("echo", {"message": "scripted"}, "s1")), text_step("custom done")])],
        {
            "exact_tool_calls": 2,
            "tool_arguments_contain": [{"tool": "echo", "needle": "custom agent call", "call_index": 1}],
            "tool_results_contain": [{"tool": "echo", "needle": "scripted", "call_index": 0}],
            "response_contains": ["CUSTOM DONE"],
            "budget": {"max_llm_calls": 2},
        },
    )
    report = run_replay(admit_case(tmp_path, data), agent_factory=DirectAgent)
    assert report.error is None
    assert report.passed, [g.detail for g in report.failed_grades]
    assert report.record is not None
    assert [(c.call_id, c.result) for c in report.record.calls] == [
        ("s1", "scripted"),
        ("mine-1", "custom agent call"),
    ]
    assert report.record.final_response == "CUSTOM DONE"  # as the agent returned it


def test_agent_that_raises_is_a_run_error_not_a_crash(tmp_path: Path) -> None:
    data = scripted_fixture([("go", [])], {"exact_tool_calls": 1})
    report = run_replay(admit_case(tmp_path, data), agent_factory=RaisingAgent)
    assert report.error is not None
    assert "ValueError" in report.error.message
    assert "agent exploded" in report.error.message
    assert report.error.field.pointer == "/turns/0"
    assert report.status == "error"
    assert report.record is not None
    assert len(report.record.calls) == 1  # the partial record is kept


def test_the_run_error_of_a_raising_agent_keeps_the_agents_own_frames(tmp_path: Path) -> None:
    data = scripted_fixture([("go", [])], {"exact_tool_calls": 1})
    error = run_replay(admit_case(tmp_path, data), agent_factory=RaisingAgent).error
    assert error is not None
    assert error.traceback is not None
    lines = error.traceback.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-1] == "ValueError: agent exploded"
    assert any("tests/support/agents.py" in line and "in run_turn" in line for line in lines)
    assert 'raise ValueError("agent exploded")' in error.traceback
    assert "zeroclaw_eval" not in error.traceback
    assert "asyncio" not in error.traceback


def test_a_synchronous_run_turn_runs_in_a_worker_thread(tmp_path: Path) -> None:
    made: list[SyncLoop] = []

    def factory(context: AgentContext) -> SyncLoop:
        made.append(SyncLoop(context))
        return made[-1]

    data = scripted_fixture([("hi", [text_step("hello")]), ("again", [])], {"response_contains": ["x"]})
    data["turns"][1]["steps"] = [text_step("hello again")]
    report = run_replay(admit_case(tmp_path, data), agent_factory=factory)
    assert report.error is None
    assert report.record is not None
    assert [turn.response for turn in report.record.turns] == ["hello", "hello again"]
    assert made[0].threads == ["zeroclaw-run_turn"] * 2  # a worker thread, not the event loop's


class BlockingAgent:
    #: Set when the test is over: the thread left blocked must not outlive it, as a
    #: thread still running makes later tests' worker processes unforkable.
    released = threading.Event()

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    def run_turn(self, user_input: str) -> str:
        self.released.wait(3)  # blocks its thread, not the harness
        return "too late"


def test_a_blocking_synchronous_agent_is_bounded_by_the_case_timeout(tmp_path: Path) -> None:
    data = scripted_fixture([("first", [])], {"response_contains": ["late"]})
    started = time.perf_counter()
    try:
        report = run_replay(admit_case(tmp_path, data), agent_factory=BlockingAgent, case_timeout_secs=0.1)
        # The run ends at the timeout: it neither waits for the blocked thread nor at exit.
        assert time.perf_counter() - started < 2
    finally:
        BlockingAgent.released.set()
    assert report.error is not None
    assert (
        report.error.message
        == "turn 1 timed out after 0.1s (case_timeout_secs); the agent asked the model nothing in that turn"
    )


class SleepingAsyncAgent:
    """An async agent that blocks the event loop: a blocking call, never an await."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        time.sleep(30)
        return "too late"


class SpinningAsyncAgent(SleepingAsyncAgent):
    """Blocks the loop in pure Python: nothing to be interrupted but the bytecode."""

    async def run_turn(self, user_input: str) -> str:
        while True:
            pass


class SwallowingAsyncAgent(SleepingAsyncAgent):
    """Catches the first overrun (an `except BaseException` of its own), and answers."""

    async def run_turn(self, user_input: str) -> str:
        try:
            time.sleep(30)
        except BaseException:
            pass
        return "answered after the limit"


class LateWaitingAsyncAgent(SwallowingAsyncAgent):
    """Blocks past the limit, swallows the overrun, then awaits something slow."""

    async def run_turn(self, user_input: str) -> str:
        await super().run_turn(user_input)
        await asyncio.sleep(30)
        return "never"


@pytest.mark.skipif(sys.version_info < (3, 11) or not hasattr(signal, "setitimer"), reason="SIGALRM timer")
@pytest.mark.parametrize(
    "agent", [SleepingAsyncAgent, SpinningAsyncAgent, SwallowingAsyncAgent, LateWaitingAsyncAgent]
)
def test_an_async_agent_that_blocks_the_loop_is_bounded_by_the_case_timeout(
    tmp_path: Path, agent: type
) -> None:
    data = scripted_fixture([("first", [text_step("too late")])], {"response_contains": ["late"]})
    started = time.perf_counter()
    report = run_replay(admit_case(tmp_path, data), agent_factory=agent, case_timeout_secs=0.2)
    assert time.perf_counter() - started < 5  # not the 30 s it blocks for
    assert report.error is not None
    assert (
        report.error.message
        == "turn 1 timed out after 0.2s (case_timeout_secs); the agent asked the model nothing in that turn"
    )
    assert report.error.field.pointer == "/turns/0"
    # Nothing of the timer is left behind for the caller.
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


@pytest.mark.skipif(sys.version_info < (3, 11) or not hasattr(signal, "setitimer"), reason="SIGALRM timer")
def test_the_next_case_runs_unbothered_after_a_blocked_one(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write_fixture(
        suite, "a_blocked.json", scripted_fixture([("first", [text_step("x")])], {"response_contains": ["x"]})
    )
    write_fixture(
        suite,
        "b_fine.json",
        scripted_fixture([("first", [text_step("fine")])], {"response_contains": ["fine"]}),
    )

    class BlocksOnce(SleepingAsyncAgent):
        async def run_turn(self, user_input: str) -> str:
            if not blocked:  # the first case's turn
                blocked.append(True)
                time.sleep(30)
            return await ReferenceAgent(self.context).run_turn(user_input)

    blocked: list[bool] = []
    report = run_suite(suite, RunOptions(agent_factory=BlocksOnce, case_timeout_secs=0.2))
    assert [case.error is not None for case in report.cases] == [True, False]
    assert report.cases[1].passed


def test_sync_from_the_event_loop_itself_says_to_await(tmp_path: Path) -> None:
    class Confused:
        def __init__(self, context: AgentContext) -> None:
            self.context = context

        async def run_turn(self, user_input: str) -> str:
            reply = self.context.sync(self.context.provider.complete([], []))
            return reply.content or ""

    data = scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]})
    report = run_replay(admit_case(tmp_path, data), agent_factory=Confused)
    assert report.error is not None
    assert "sync() is for a synchronous run_turn; an async one awaits the call" in report.error.message


def test_an_agent_factory_that_raises_is_a_configuration_error_with_its_frames(tmp_path: Path) -> None:
    def broken_factory(context: AgentContext) -> Agent:
        raise RuntimeError("cannot build")

    case = admit_case(tmp_path, scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]}))
    with pytest.raises(AgentLoadError) as raised:
        run_replay(case, agent_factory=broken_factory)
    message = str(raised.value)
    assert message.startswith("the agent factory ")
    assert "broken_factory raised RuntimeError: cannot build\nTraceback (most recent call last):" in message
    assert 'raise RuntimeError("cannot build")' in message
    assert "zeroclaw_eval" not in message  # the harness's frames are left out
    assert raised.value.exit_code == 2


@pytest.mark.parametrize("made", [object(), None, "text"])
def test_a_factory_that_makes_no_agent_is_a_configuration_error(tmp_path: Path, made: object) -> None:
    case = admit_case(tmp_path, scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]}))
    with pytest.raises(AgentLoadError, match="which has no run_turn method; an agent needs a method"):
        run_replay(case, agent_factory=lambda context: made)


class SwallowingAgent:
    """Asks for more steps than scripted and hides the provider's error."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        conversation: list[Message] = [{"role": "user", "content": user_input}]
        first = await self.context.provider.complete(conversation, [])
        conversation.append({"role": "assistant", "content": first.content})
        try:
            await self.context.provider.complete(conversation, [])
        except Exception:
            pass
        return first.content or ""


def test_divergence_swallowed_by_the_agent_is_still_a_run_error(tmp_path: Path) -> None:
    data = scripted_fixture([("go", [text_step("only step")])], {"response_contains": ["only"]})
    report = run_replay(admit_case(tmp_path, data), agent_factory=SwallowingAgent)
    assert report.error is not None
    assert "turn 1" in report.error.message
    assert report.error.field.pointer == "/turns/0/steps"


class NonTextAgent:
    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> Any:
        await self.context.provider.complete([{"role": "user", "content": user_input}], [])
        return {"not": "text"}


def test_agent_returning_something_else_than_text_is_a_run_error(tmp_path: Path) -> None:
    data = scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]})
    report = run_replay(admit_case(tmp_path, data), agent_factory=NonTextAgent)
    assert report.error is not None
    assert report.error.field.pointer == "/turns/0"


class SlowAgent:
    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        await asyncio.sleep(5)
        return "too late"


class SlowAndSpeechless(ReferenceAgent):
    """Takes longer than the case allows, and its `diagnostics` raises."""

    async def run_turn(self, user_input: str) -> str:
        await asyncio.sleep(5)
        return ""

    def diagnostics(self) -> str:
        raise RuntimeError("nothing to say")


def test_a_timeout_of_an_agent_whose_diagnostics_raise_is_still_a_timeout(tmp_path: Path) -> None:
    data = scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]})
    report = run_replay(admit_case(tmp_path, data), agent_factory=SlowAndSpeechless, case_timeout_secs=0.1)
    assert report.error is not None
    assert report.error.message.startswith("turn 1 timed out after 0.1s")
    assert report.error.traceback is None  # what the agent could not say is left out


def test_turn_timeout_is_a_run_error(tmp_path: Path) -> None:
    data = scripted_fixture([("first", [])], {"response_contains": ["late"]})
    started = time.perf_counter()
    report = run_replay(admit_case(tmp_path, data), agent_factory=SlowAgent, case_timeout_secs=0.05)
    assert time.perf_counter() - started < 4  # the turn was cut short, not awaited
    assert report.error is not None
    assert "timed out" in report.error.message
    assert "turn 1" in report.error.message
    assert report.error.field.pointer == "/turns/0"
    assert not report.passed


def test_duration_is_recorded(tmp_path: Path) -> None:
    data = scripted_fixture([("hi", [text_step("hello")])], {"budget": {"max_duration_ms": 60000}})
    report = run_replay(admit_case(tmp_path, data))
    assert report.passed
    assert report.record is not None
    assert report.record.duration_ms > 0
    assert report.duration_ms == report.record.duration_ms


class StoppingAgent:
    """A synchronous agent whose turn ends in StopIteration (a `next()` on an empty iterator)."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    def run_turn(self, user_input: str) -> str:
        return str(next(iter([])))


def test_stop_iteration_from_a_synchronous_agent_is_its_error_not_a_hang(tmp_path: Path) -> None:
    # A future refuses StopIteration: unconverted, the turn would never settle and end as
    # a timeout that blames the clock.
    data = scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]})
    report = run_replay(admit_case(tmp_path, data), agent_factory=StoppingAgent, case_timeout_secs=5)
    assert report.error is not None
    assert report.error.message == (
        "turn 1: the agent raised RuntimeError: StoppingAgent.run_turn raised StopIteration"
    )
    assert report.error.traceback is not None
    assert "return str(next(iter([])))" in report.error.traceback


class ExitingAgent:
    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        raise SystemExit(3)


class SyncExitingAgent:
    def __init__(self, context: AgentContext) -> None:
        self.context = context

    def run_turn(self, user_input: str) -> str:
        sys.exit("giving up")


@pytest.mark.parametrize(
    ("factory", "words"),
    [(ExitingAgent, "SystemExit: 3"), (SyncExitingAgent, "SystemExit: giving up")],
)
def test_an_agent_calling_sys_exit_fails_its_case_not_the_run(
    tmp_path: Path, factory: Any, words: str
) -> None:
    data = scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]})
    report = run_replay(admit_case(tmp_path, data), agent_factory=factory)
    assert report.error is not None
    assert report.error.message == f"turn 1: the agent raised {words}"


class GaveUp(BaseException):
    """An exception class of an agent's own that is no `Exception` (as some frameworks'
    aborts are)."""


class GivingUpAgent:
    """Raises `GaveUp` from its turn; `on_thread` names the thread the turn ran on."""

    on_thread = ""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        raise GaveUp("no way forward")


class SyncGivingUpAgent(GivingUpAgent):
    def run_turn(self, user_input: str) -> str:  # type: ignore[override]
        SyncGivingUpAgent.on_thread = threading.current_thread().name
        raise GaveUp("no way forward")


class InlineGivingUpAgent(SyncGivingUpAgent):
    inline_turns = True


class CancellingItselfAgent(GivingUpAgent):
    """Lets out a `CancelledError` of its own (a cancelled task of its, awaited), while
    nobody cancelled the turn."""

    async def run_turn(self, user_input: str) -> str:
        raise asyncio.CancelledError()


@pytest.mark.parametrize(
    ("factory", "words", "thread"),
    [
        (GivingUpAgent, "GaveUp: no way forward", ""),
        (SyncGivingUpAgent, "GaveUp: no way forward", "zeroclaw-"),
        pytest.param(
            InlineGivingUpAgent,
            "GaveUp: no way forward",
            "MainThread",
            marks=pytest.mark.skipif(sys.version_info < (3, 11), reason="inline needs 3.11's step timer"),
        ),
        pytest.param(
            CancellingItselfAgent,
            "CancelledError",
            "",
            marks=pytest.mark.skipif(
                sys.version_info < (3, 11), reason="3.10 cannot tell whose cancel it is"
            ),
        ),
    ],
)
def test_an_agents_own_base_exception_fails_its_case_not_the_run(
    tmp_path: Path, factory: type[GivingUpAgent], words: str, thread: str
) -> None:
    SyncGivingUpAgent.on_thread = ""
    data = scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]})
    report = run_replay(admit_case(tmp_path, data), agent_factory=factory)
    assert report.error is not None
    assert report.error.message == f"turn 1: the agent raised {words}"
    assert report.error.field.pointer == "/turns/0"
    assert SyncGivingUpAgent.on_thread.startswith(thread)


class TimedOutByPytest(GivingUpAgent):
    """Ends its turn as pytest-timeout's signal method ends a test: `pytest.fail`."""

    async def run_turn(self, user_input: str) -> str:
        pytest.fail("Timeout >1.0s")


def test_pytests_own_outcomes_raised_inside_a_case_end_the_test(tmp_path: Path) -> None:
    # Not the agent's failure: the test that runs the harness failed (a timeout, say).
    data = scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]})
    with pytest.raises(pytest.fail.Exception, match="Timeout"):
        run_replay(admit_case(tmp_path, data), agent_factory=TimedOutByPytest)


def test_a_factory_raising_its_own_base_exception_is_a_configuration_error(tmp_path: Path) -> None:
    def giving_up(context: AgentContext) -> Agent:
        raise GaveUp("no model configured")

    case = admit_case(tmp_path, scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]}))
    with pytest.raises(AgentLoadError, match="giving_up raised GaveUp: no model configured"):
        run_replay(case, agent_factory=giving_up)


class Peculiar(ReferenceAgent):
    """The reference loop, with a `__getattr__` that raises for every name it lacks (not
    `AttributeError`)."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} here")


class ClosingBadly(ReferenceAgent):
    """The reference loop, with an `aclose` that raises an exception class of its own."""

    async def aclose(self) -> None:
        raise GaveUp("could not close")


class ExitingOnClose(ReferenceAgent):
    """The reference loop, with an `aclose` that calls `sys.exit(0)`."""

    async def aclose(self) -> None:
        sys.exit(0)


@pytest.mark.parametrize("factory", [Peculiar, ClosingBadly, ExitingOnClose])
def test_an_agents_odd_attributes_or_close_do_not_crash_the_run(tmp_path: Path, factory: Any) -> None:
    # The harness asks for optional attributes (`inline_turns`, `aclose`, `refused`) and
    # closes the agent: neither the agent's `__getattr__` nor its `aclose` may crash the run.
    data = scripted_fixture([("go", [text_step("all fine")])], {"response_contains": ["fine"]})
    report = run_replay(admit_case(tmp_path, data), agent_factory=factory)
    assert report.error is None
    assert report.passed


class ClosesWithAFuture(ReferenceAgent):
    """The reference loop, whose `aclose` is a plain method handing back a future."""

    closed: ClassVar[list[str]] = []

    def aclose(self) -> asyncio.Future[None]:
        future = asyncio.get_running_loop().create_future()

        def finish() -> None:
            self.closed.append("done")
            future.set_result(None)

        asyncio.get_running_loop().call_later(0.01, finish)
        return future


def test_an_aclose_that_returns_a_future_is_awaited(tmp_path: Path) -> None:
    data = scripted_fixture([("go", [text_step("all fine")])], {"response_contains": ["fine"]})
    assert run_replay(admit_case(tmp_path, data), agent_factory=ClosesWithAFuture).passed
    assert ClosesWithAFuture.closed == ["done"]


class ExitsFromATaskOfItsOwn(ReferenceAgent):
    """The reference loop, which also has the event loop call `sys.exit(0)` later."""

    async def run_turn(self, user_input: str) -> str:
        asyncio.get_running_loop().call_soon(sys.exit, 0)
        return await super().run_turn(user_input)


def test_sys_exit_outside_the_turns_fails_the_run_whatever_its_status(tmp_path: Path) -> None:
    # asyncio lets a SystemExit raised in a callback or a task out of the event loop; a
    # status of 0 there must not become the run's.
    suite = tmp_path / "suite"
    write_fixture(suite, "a.json", scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]}))
    with pytest.raises(SystemProblem, match=r"called sys.exit\(0\) outside its turns"):
        run_suite(suite, RunOptions(agent_factory=ExitsFromATaskOfItsOwn))


class LingeringAgent:
    """Blocks past the case's time limit, then still tries the provider and the tools."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context
        self.release = threading.Event()
        self.done = threading.Event()
        self.refusals: list[str] = []

    def run_turn(self, user_input: str) -> str:
        self.release.wait(5)
        tries: list[Callable[[], Coroutine[Any, Any, Any]]] = [
            lambda: self.context.provider.complete([{"role": "user", "content": user_input}], []),
            lambda: self.context.tools.call("echo", {"message": "late"}, "late-1"),
        ]
        for attempt in tries:
            try:
                self.context.sync(attempt())
            except RuntimeError as exc:
                self.refusals.append(str(exc))
        self.done.set()
        return "late"


def test_a_turn_left_running_past_its_timeout_cannot_add_to_the_graded_record(tmp_path: Path) -> None:
    case = admit_case(tmp_path, scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]}))
    made: list[LingeringAgent] = []

    def factory(context: AgentContext) -> LingeringAgent:
        made.append(LingeringAgent(context))
        return made[-1]

    async def run_then_release() -> CaseReport:
        report = await run_case(case, RunOptions(agent_factory=factory, case_timeout_secs=0.05))
        made[0].release.set()  # the case is graded; the abandoned thread wakes up
        await asyncio.to_thread(made[0].done.wait, 5)
        return report

    report = asyncio.run(run_then_release())
    assert report.record is not None
    assert (report.record.steps, report.record.calls) == ([], [])
    assert made[0].refusals == [
        "this case is over: its provider takes no more requests",
        "this case is over: its tools take no more calls",
    ]


class WrappingAgent:
    """Wraps a failure of its own code in another exception, as frameworks do."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        try:
            return self.parse("not a number")
        except ValueError as exc:
            raise RuntimeError("the turn failed") from exc

    def parse(self, text: str) -> str:
        return str(int(text))


def test_the_traceback_of_a_wrapped_error_keeps_its_cause(tmp_path: Path) -> None:
    data = scripted_fixture([("go", [text_step("x")])], {"response_contains": ["x"]})
    report = run_replay(admit_case(tmp_path, data), agent_factory=WrappingAgent)
    assert report.error is not None
    traceback = report.error.traceback
    assert traceback is not None
    assert "return str(int(text))" in traceback  # the cause's frame, where the bug is
    assert "ValueError: invalid literal for int() with base 10: 'not a number'" in traceback
    assert "The above exception was the direct cause of the following exception:" in traceback
    assert traceback.rstrip().endswith("RuntimeError: the turn failed")
    assert "zeroclaw_eval" not in traceback


@pytest.mark.skipif(sys.version_info < (3, 11) or not hasattr(signal, "setitimer"), reason="SIGALRM timer")
def test_sigint_while_a_turn_blocks_in_its_clean_up_still_stops_the_run(tmp_path: Path) -> None:
    class FlushesWhenCancelled(ReferenceAgent):
        async def run_turn(self, user_input: str) -> str:
            if user_input == "first":
                asyncio.get_running_loop().call_later(0.1, os.kill, os.getpid(), signal.SIGINT)
                try:
                    await asyncio.sleep(30)
                finally:
                    time.sleep(30)  # a blocking flush while it is cancelled, past the limit
            return await super().run_turn(user_input)

    suite = said_suite(tmp_path / "suite", ["first", "later", "later", "later"])
    started = time.monotonic()
    options = RunOptions(agent_factory=FlushesWhenCancelled, case_timeout_secs=0.5, stop_on_signals=True)
    report = run_suite(suite, options)
    assert time.monotonic() - started < 10
    # Stopped where it stood: the case that overran is not a timeout, and no later case ran.
    assert report.interrupted == "SIGINT"
    assert (report.cases, report.not_run) == ([], 4)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10 cannot tell a cancel from the agent's own")
@pytest.mark.parametrize("wrapper", [SystemExit, RuntimeError])
def test_sigint_still_stops_the_run_when_the_agent_wraps_the_cancel(
    tmp_path: Path, wrapper: type[BaseException]
) -> None:
    class WrapsTheCancel(ReferenceAgent):
        async def run_turn(self, user_input: str) -> str:
            if user_input == "first":
                asyncio.get_running_loop().call_later(0.1, os.kill, os.getpid(), signal.SIGINT)
                try:
                    await asyncio.sleep(30)
                except BaseException as exc:  # a framework's catch-all, re-raised as its own
                    raise wrapper("wrapped") from exc
            return await super().run_turn(user_input)

    suite = said_suite(tmp_path / "suite", ["first", "later", "later", "later"])
    report = run_suite(suite, RunOptions(agent_factory=WrapsTheCancel, stop_on_signals=True))
    assert report.interrupted == "SIGINT"
    assert (report.cases, report.not_run) == ([], 4)  # not one case more


ECHO_THEN_ANSWER = scripted_fixture(
    [("go", [tools_step(tool_call("echo", {"message": "x"}, "c1")), text_step("done")])],
    {"exact_tool_calls": 1},
)


class StopsAtTheTool:
    """Runs the scripted call and answers with its output, never asking the model again
    (a framework's return-direct tool)."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        response = await self.context.provider.complete(
            [{"role": "user", "content": user_input}], self.context.tools.specs()
        )
        (call,) = response.tool_calls
        return (await self.context.tools.call(call.name, call.arguments, call.id)).content


def test_a_step_left_unserved_after_a_call_says_whose_result_never_came(tmp_path: Path) -> None:
    report = run_replay(admit_case(tmp_path, ECHO_THEN_ANSWER), agent_factory=StopsAtTheTool)
    assert report.error is not None
    assert report.error.field.pointer == "/turns/0/steps/1"
    assert report.error.message == (
        "turn 1: the agent finished the turn with 1 scripted step(s) unconsumed (first: step 2);"
        " echo's result (call c1) never reached the model, which step 2 needs"
    )


class WaitsAfterTheTool(StopsAtTheTool):
    """Runs the call, then hangs instead of asking the model for the next step."""

    async def run_turn(self, user_input: str) -> str:
        await super().run_turn(user_input)
        await asyncio.sleep(30)
        return "never"


def test_a_timeout_names_the_last_step_served_and_its_calls(tmp_path: Path) -> None:
    report = run_replay(
        admit_case(tmp_path, ECHO_THEN_ANSWER), agent_factory=WaitsAfterTheTool, case_timeout_secs=0.2
    )
    assert report.error is not None
    assert report.error.field.pointer == "/turns/0/steps/0"
    assert report.error.message == (
        "turn 1 timed out after 0.2s (case_timeout_secs); the last step served was step 1, which"
        " called echo (call c1): no request sent the result back"
    )


def test_a_timeout_names_the_tool_call_still_running(tmp_path: Path) -> None:
    async def lookup(id: int) -> str:
        await asyncio.sleep(30)
        return "found"

    fixture = scripted_fixture(
        [("Look it up", [tools_step(tool_call("lookup_order", {"id": 7}, "c9")), text_step("found")])],
        {"tools_used": ["lookup_order"]},
        tools=["lookup_order"],
    )
    loaded = admit_with_project_tools(tmp_path, fixture)
    tool = ProjectTool("lookup_order", "Look an order up.", lookup)
    report = run_replay(loaded, tools=(tool,), case_timeout_secs=0.2)
    assert report.error is not None
    assert report.error.message == (
        "turn 1 timed out after 0.2s (case_timeout_secs); the last step served was step 1, and the"
        " tool call lookup_order (call c9) was still running"
    )


def test_each_turn_is_run_as_its_run_turn_is_async_or_not_whatever_ran_before() -> None:
    # Whether a run_turn is async is remembered per function: agents of both kinds, in
    # turn, and a run_turn that is an object no table can hold, are each run their way.
    from types import SimpleNamespace

    from zeroclaw_eval.agent.call import run_turn

    class Async:
        async def run_turn(self, text: str) -> str:
            return "async " + text

    class Sync:
        def run_turn(self, text: str) -> str:
            return "sync " + text

    class Unhashable:
        __hash__ = None  # type: ignore[assignment]

        def __call__(self, text: str) -> str:
            return "object " + text

    held = SimpleNamespace(run_turn=Unhashable())

    async def turns() -> list[Any]:
        agents: list[Any] = [Async(), Sync(), Async(), Sync(), held, held]
        return [await run_turn(agent, "x") for agent in agents]

    assert asyncio.run(turns()) == ["async x", "sync x", "async x", "sync x", "object x", "object x"]
