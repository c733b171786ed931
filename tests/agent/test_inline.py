"""A synchronous agent with `inline_turns = True`: its turns run on the event loop's
thread where nothing they call waits, and are checked exactly as a thread's are."""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support.agents import InlineSyncLoop, SyncLoop
from tests.support.builders import (
    admit_case,
    admit_with_project_tools,
    run_replay,
    scripted_fixture,
    text_step,
    tool_call,
    tools_step,
    write_fixture,
)
from zeroclaw_eval import ProjectTool
from zeroclaw_eval.agent.loop import AgentContext
from zeroclaw_eval.agent.settings import CaseSettings
from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, ToolChoice, ToolSpec
from zeroclaw_eval.report.model import CaseReport
from zeroclaw_eval.runner import RunOptions, run_suite
from zeroclaw_eval.runner.case import case_run

#: The thread a turn runs on, in each mode.
ON_THE_LOOP, IN_A_THREAD = threading.main_thread().name, "zeroclaw-run_turn"
# A turn runs inline only where its SIGALRM step timer can end it, which needs 3.11's
# asyncio (`agent.deadline`); on 3.10 every synchronous turn runs in a thread.
pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="inline turns need the 3.11 step timer")


def echo_case(tmp_path: Path, tool: str = "echo", **extra: Any) -> dict[str, Any]:
    """Two turns; the first calls `tool` twice, then answers with its result."""
    first = [
        tools_step(tool_call(tool, {"message": "amber"}, "c1"), tool_call(tool, {"message": "basil"}, "c2")),
        text_step("amber and basil"),
    ]
    expects = {"tools_used": [tool], "tool_results_contain": [{"tool": tool, "needle": "basil"}]}
    return scripted_fixture([("first", first), ("second", [text_step("done")])], expects, **extra)


def making(kind: type[SyncLoop]) -> tuple[Callable[[AgentContext], SyncLoop], list[SyncLoop]]:
    """A factory of `kind`, and the list of the agents it made."""
    made: list[SyncLoop] = []

    def factory(context: AgentContext) -> SyncLoop:
        made.append(kind(context))
        return made[-1]

    return factory, made


def replayed(tmp_path: Path, agent: type[SyncLoop], **options: Any) -> tuple[CaseReport, SyncLoop]:
    factory, made = making(agent)
    report = run_replay(
        admit_case(tmp_path, echo_case(tmp_path, tools=["echo"])), agent_factory=factory, **options
    )
    return report, made[0]


def recorded(report: CaseReport) -> tuple[Any, ...]:
    """What a run recorded, without its timings."""
    assert report.record is not None
    record = report.record
    steps = [(s.turn, s.content, s.tool_calls, s.sent_roles, s.offered_tools) for s in record.steps]
    calls = [(c.turn, c.call_id, c.name, c.arguments, c.result, c.success) for c in record.calls]
    turns = [(t.index, t.user_input, t.response) for t in record.turns]
    return steps, calls, turns, [(g.check_id, g.passed, g.detail) for g in report.grades]


def test_an_inline_agent_runs_on_the_loops_thread_and_is_recorded_as_in_a_thread(tmp_path: Path) -> None:
    inline, inline_agent = replayed(tmp_path, InlineSyncLoop)
    threaded, threaded_agent = replayed(tmp_path, SyncLoop)
    assert inline.error is None
    assert inline.passed
    assert inline_agent.threads == [ON_THE_LOOP] * 2
    assert threaded_agent.threads == [IN_A_THREAD] * 2
    assert recorded(inline) == recorded(threaded)


@pytest.mark.parametrize("allowed", [1, "yes", False, None])
def test_only_inline_turns_true_runs_a_turn_on_the_loop(tmp_path: Path, allowed: object) -> None:
    kind = type("Variant", (SyncLoop,), {"inline_turns": allowed})
    report, agent = replayed(tmp_path, kind)
    assert report.passed
    assert agent.threads == [IN_A_THREAD] * 2


def test_an_inline_agent_feeding_the_model_a_changed_result_fails_as_in_a_thread(tmp_path: Path) -> None:
    messages = []
    for base in (InlineSyncLoop, SyncLoop):
        kind = type("Changing", (base,), {"sent": lambda self, content: content + " (edited)"})
        report, agent = replayed(tmp_path, kind)
        assert report.error is not None
        assert not report.passed
        messages.append((report.error.message, report.error.field.pointer))
        assert agent.threads[0] == (ON_THE_LOOP if base is InlineSyncLoop else IN_A_THREAD)
    assert messages[0] == messages[1]
    assert "is not what the tool returned" in messages[0][0]


def test_a_case_with_a_project_tool_runs_the_inline_agent_in_its_thread(tmp_path: Path) -> None:
    # A project's tool may block or await, which a turn on the loop's thread could not wait for.
    lookup = ProjectTool("lookup", "Echo the message.", lambda message: message)
    factory, made = making(InlineSyncLoop)

    case = admit_with_project_tools(tmp_path, echo_case(tmp_path, "lookup", tools=["lookup"]))
    report = run_replay(case, agent_factory=factory, tools=(lookup,))
    assert report.error is None
    assert report.passed
    assert made[0].threads == [IN_A_THREAD] * 2


def test_a_case_with_a_double_of_a_project_tool_runs_inline(tmp_path: Path) -> None:
    # A double answers in place of the project's code, at once.
    lookup = ProjectTool("lookup", "Echo the message.", lambda message: message)
    doubles = {
        "lookup": [
            {"when": {"message": "amber"}, "result": "amber"},
            {"when": {"message": "basil"}, "result": "basil"},
        ]
    }
    factory, made = making(InlineSyncLoop)

    data = echo_case(tmp_path, "lookup", tools=["lookup"], tool_doubles=doubles)
    report = run_replay(admit_with_project_tools(tmp_path, data), agent_factory=factory, tools=(lookup,))
    assert report.error is None
    assert report.passed
    assert made[0].threads == [ON_THE_LOOP] * 2


class _Waiting:
    """A live provider: answers after a real wait on the event loop."""

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        await asyncio.sleep(0.001)
        return ModelResponse("live answer", ())


def test_a_live_case_runs_the_inline_agent_in_its_thread(tmp_path: Path) -> None:
    factory, made = making(InlineSyncLoop)

    case = admit_case(tmp_path, scripted_fixture([("first", [])], {"response_contains": ["live"]}))

    async def live_run() -> Any:
        async with case_run(case, CaseSettings(agent_factory=factory), _Waiting()) as done:
            return done

    done = asyncio.run(live_run())
    assert done.error is None
    assert done.record.final_response == "live answer"
    assert made[0].threads == [IN_A_THREAD]


class _Spinning(InlineSyncLoop):
    """Never returns until the test is over (its loop would hold the event loop)."""

    stop = threading.Event()

    def run_turn(self, user_input: str) -> str:
        self.threads.append(threading.current_thread().name)
        while not self.stop.is_set():
            pass
        return "too late"


def test_an_inline_turn_that_never_returns_is_ended_at_the_case_timeout(tmp_path: Path) -> None:
    factory, made = making(_Spinning)

    case = admit_case(tmp_path, scripted_fixture([("first", [])], {"response_contains": ["late"]}))
    started = time.perf_counter()
    try:
        report = run_replay(case, agent_factory=factory, case_timeout_secs=0.2)
    finally:
        _Spinning.stop.set()  # ends a spinning thread, should the turn have run in one
    assert time.perf_counter() - started < 3
    assert made[0].threads == [ON_THE_LOOP]
    assert report.error is not None
    assert report.error.message.startswith("turn 1 timed out after 0.2s (case_timeout_secs)")


class _CallingFromAPool(InlineSyncLoop):
    """Asks the model from a thread of its own, as a framework running calls in a pool does."""

    def run_turn(self, user_input: str) -> str:
        self.messages.append({"role": "user", "content": user_input})
        specs = self.context.tools.specs()
        with ThreadPoolExecutor(1) as pool:
            ask = pool.submit(lambda: self.context.sync(self.context.provider.complete(self.messages, specs)))
            return ask.result().content or ""


def test_context_sync_from_another_thread_of_an_inline_turn_is_refused_at_once(tmp_path: Path) -> None:
    case = admit_case(
        tmp_path, scripted_fixture([("first", [text_step("hello")])], {"response_contains": ["hello"]})
    )
    started = time.perf_counter()
    report = run_replay(case, agent_factory=_CallingFromAPool, case_timeout_secs=10)
    # Refused, not left waiting for a loop that runs the very turn waiting for it.
    assert time.perf_counter() - started < 5
    assert report.error is not None
    assert "context.sync() was called from a thread other than the turn's own" in report.error.message
    assert "remove inline_turns from the agent" in report.error.message


class _Sleeping(InlineSyncLoop):
    """Passes a call that waits on the loop to `context.sync` (after one that does not)."""

    seconds = 0.01

    def run_turn(self, user_input: str) -> str:
        self.context.sync(asyncio.sleep(0))  # a bare yield: the loop's turn, nothing to wait for
        self.context.sync(asyncio.sleep(self.seconds))
        return "slept"


def test_an_inline_call_that_waits_on_the_loop_is_refused(tmp_path: Path) -> None:
    case = admit_case(tmp_path, scripted_fixture([("first", [])], {"response_contains": ["slept"]}))
    report = run_replay(case, agent_factory=_Sleeping)
    assert report.error is not None
    assert "an inline turn's context.sync() call waited on the event loop" in report.error.message
    # The same agent with nothing to wait for runs through.
    awake = type("Awake", (_Sleeping,), {"seconds": 0})
    assert run_replay(case, agent_factory=awake).error is None


def test_without_the_turn_timer_an_inline_agent_runs_in_its_thread(tmp_path: Path) -> None:
    # SIGALRM is someone else's (pytest-timeout's, say): nothing could end a turn on the
    # loop's thread that never returns, so it runs where a timeout can leave it behind.
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: None)
    try:
        report, agent = replayed(tmp_path, InlineSyncLoop)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert report.passed
    assert agent.threads == [IN_A_THREAD] * 2


class _TakingTheAlarm(InlineSyncLoop):
    """Installs a SIGALRM handler of its own in its first turn."""

    def run_turn(self, user_input: str) -> str:
        if not self.threads:
            signal.signal(signal.SIGALRM, lambda signum, frame: None)
        return super().run_turn(user_input)


def test_once_the_agent_takes_sigalrm_its_next_turns_run_in_a_thread(tmp_path: Path) -> None:
    previous = signal.getsignal(signal.SIGALRM)
    try:
        report, agent = replayed(tmp_path, _TakingTheAlarm)
        # The harness's repeating timer, armed for the first turn, is stopped with it: left
        # running, it would fire into the agent's handler every second from then on.
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert report.passed
    assert agent.threads == [ON_THE_LOOP, IN_A_THREAD]


class _RunningItsOwnLoop(InlineSyncLoop):
    """Runs an event loop of its own in its turn, as some synchronous wrappers do."""

    def run_turn(self, user_input: str) -> str:
        waiting = asyncio.sleep(0, result="own loop")
        try:
            return asyncio.run(waiting)
        finally:
            waiting.close()  # refused to run inline: closed, not left "never awaited"


def test_an_inline_agent_running_its_own_event_loop_is_told_to_drop_inline_turns(tmp_path: Path) -> None:
    case = admit_case(tmp_path, scripted_fixture([("first", [])], {"response_contains": ["own loop"]}))
    report = run_replay(case, agent_factory=_RunningItsOwnLoop)
    assert report.error is not None
    assert "asyncio.run() cannot be called from a running event loop" in report.error.message
    assert "the turn runs inline, on the harness's event loop; remove inline_turns" in report.error.message
    # In a thread of its own, the same agent runs its loop.
    threaded = type("Threaded", (_RunningItsOwnLoop,), {"inline_turns": False})
    assert run_replay(case, agent_factory=threaded).passed


class _SwallowingRefusals(InlineSyncLoop):
    """Makes a call the harness refuses inline, swallows the error and answers as
    scripted: `how` is a call from a thread of its own, or one that waits on the loop."""

    how = "pool"

    def run_turn(self, user_input: str) -> str:
        try:
            if self.how == "pool":
                with ThreadPoolExecutor(1) as pool:
                    pool.submit(lambda: self.context.sync(self.context.provider.complete([], []))).result()
            else:
                self.context.sync(asyncio.sleep(0.01))
        except Exception:
            pass  # what a framework's retry-and-ignore does
        return super().run_turn(user_input)


@pytest.mark.parametrize("how", ["pool", "waiting"])
def test_a_refused_call_fails_the_case_even_when_the_agent_swallows_it(tmp_path: Path, how: str) -> None:
    kind = type("Variant", (_SwallowingRefusals,), {"how": how})
    report, agent = replayed(tmp_path, kind)
    assert agent.threads[0] == ON_THE_LOOP
    assert report.error is not None
    assert not report.passed
    said = "from a thread other than the turn's own" if how == "pool" else "waited on the event loop"
    assert said in report.error.message
    assert report.error.message.startswith("turn 1: ")


class _GaveUp(BaseException):
    """An exception class of an agent's own that is no `Exception`."""


class _GivingUpOnARefusal(InlineSyncLoop):
    """Makes a call the harness refuses inline, and gives up with an exception class of
    its own."""

    def run_turn(self, user_input: str) -> str:
        self.threads.append(threading.current_thread().name)
        try:
            self.context.sync(asyncio.sleep(0.01))
        except Exception as exc:
            raise _GaveUp("the model is gone") from exc
        return "unreached"


def test_a_refused_call_still_names_the_failure_when_the_agent_raises_its_own_base_exception(
    tmp_path: Path,
) -> None:
    report, agent = replayed(tmp_path, _GivingUpOnARefusal)
    assert agent.threads == [ON_THE_LOOP]
    assert report.error is not None
    assert "waited on the event loop" in report.error.message
    assert "_GaveUp" not in report.error.message


class _SlowWithItsOwnTimer(InlineSyncLoop):
    """Switches the interval timer off (as a library's own time limit may), then takes
    longer than the case allows."""

    def run_turn(self, user_input: str) -> str:
        signal.setitimer(signal.ITIMER_REAL, 0)
        time.sleep(0.5)
        return super().run_turn(user_input)


def test_an_inline_turn_past_its_limit_times_out_even_when_no_timer_told_it(tmp_path: Path) -> None:
    report, agent = replayed(tmp_path, _SlowWithItsOwnTimer, case_timeout_secs=0.2)
    assert agent.threads == [ON_THE_LOOP]
    assert report.error is not None
    assert report.error.message.startswith("turn 1 timed out after 0.2s (case_timeout_secs)")


class _CancelledInside(InlineSyncLoop):
    """Hands `context.sync` a coroutine that is cancelled inside, and carries on."""

    def run_turn(self, user_input: str) -> str:
        async def cancelled() -> None:
            raise asyncio.CancelledError

        try:
            self.context.sync(cancelled())
        except Exception:  # concurrent.futures.CancelledError, as from a thread
            pass
        return super().run_turn(user_input)


def test_a_cancellation_inside_an_inline_call_reaches_the_agent_as_from_a_thread(tmp_path: Path) -> None:
    inline, agent = replayed(tmp_path, _CancelledInside)
    threaded, _ = replayed(tmp_path, type("Threaded", (_CancelledInside,), {"inline_turns": False}))
    assert agent.threads[0] == ON_THE_LOOP
    assert inline.passed
    assert threaded.passed


def test_cases_overlapping_in_one_process_run_the_inline_agent_in_its_thread(tmp_path: Path) -> None:
    # `--jobs 2` in one process (a thread alive: no workers forked): a turn on the loop's
    # thread would hold the other case, and its calls, until it ended.
    lookup = ProjectTool("lookup", "Echo the message.", lambda message: message)
    suite = tmp_path / "suite"
    write_fixture(suite, "a.json", echo_case(tmp_path, tools=["echo"]))
    write_fixture(suite, "b.json", echo_case(tmp_path, "lookup", tools=["lookup"]))
    factory, made = making(InlineSyncLoop)

    alive = threading.Event()
    keeper = threading.Thread(target=alive.wait, daemon=True)
    keeper.start()
    try:
        report = run_suite(suite, RunOptions(agent_factory=factory, tools=(lookup,), jobs=2))
    finally:
        alive.set()
    assert [case.status for case in report.cases] == ["passed", "passed"]
    assert [agent.threads for agent in made] == [[IN_A_THREAD] * 2] * 2
