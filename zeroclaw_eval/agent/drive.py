"""Driving one case: each turn's user input through a fresh agent, between the recorded
boundaries, within the time limit; what went wrong is returned as a `RunError`.

A failure inside the case (a divergence from the script, an agent that raises or calls
`sys.exit`, a timeout, a call the live sandbox denied) is data, never an exception out
of here. The one exception is an agent factory that cannot make an agent
(`AgentLoadError`): no failure of one case, but a configuration that fails them all.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from zeroclaw_eval.agent.call import agent_attribute, allows_inline, make_agent, run_turn, user_traceback
from zeroclaw_eval.agent.conversation import input_match_of
from zeroclaw_eval.agent.deadline import steps_bounded, within
from zeroclaw_eval.agent.loop import Agent, AgentContext, AgentFactory, SyncAgent
from zeroclaw_eval.agent.replay import OWN_TOOLS_HINT, ReplayProvider
from zeroclaw_eval.agent.results import ResultsChecked
from zeroclaw_eval.agent.settings import CaseSettings
from zeroclaw_eval.agent.simulated_user import UserModel
from zeroclaw_eval.boundary.provider import Provider
from zeroclaw_eval.boundary.record import RecordingProvider, RunRecord, TurnRecord
from zeroclaw_eval.boundary.sent import SentHistory
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.cases.model import ECHO_TOOL
from zeroclaw_eval.errors import EvalError, RunError, exception_words, is_interruption, task_cancelling
from zeroclaw_eval.tools.builtin import offered_names
from zeroclaw_eval.tools.doubles import with_doubles
from zeroclaw_eval.tools.sandbox import case_toolbox, denial_error
from zeroclaw_eval.tools.toolbox import ToolBox, served_as
from zeroclaw_eval.tools.workspace import Workspace

#: How long an agent's `aclose()` may take before the run goes on without it.
CLOSE_TIMEOUT_SECS = 15.0


async def drive(
    case: Case,
    record: RunRecord,
    workspace: Workspace | None,
    settings: CaseSettings,
    live: Provider | None = None,
    *,
    alone: bool = False,
    traceparent: str | None = None,
    user: UserModel | None = None,
) -> RunError | None:
    """Run every turn of `case` into `record`, as `settings` say; the run error that
    stopped it, if any. In live mode `user` (the case's simulated user) goes on with
    more turns once the scripted ones are played.

    Without `live` the case's scripted steps are replayed; with it, the case runs against
    that provider inside the live sandbox (the settings' live allowlist, supervised). A
    case may call the tools of the run it lists (and `echo` where it names it); its doubles answer in place
    of those it doubles. An agent command (`settings.agent_cmd`, which needs `workspace`
    as its working folder) runs its own tools: the tool box only records what it reports,
    and the case's `tools` are what each request must offer. Raises `AgentLoadError` when
    the factory cannot make an agent.

    `alone` says no other case runs in this event loop meanwhile: only then may a
    synchronous agent that allows it run its turns on the loop's thread (`agent.inline`),
    which holds every other case of the loop until the turn ends.
    """
    external = settings.agent_cmd is not None
    if external and case.trace.tool_doubles and not settings.mcp:
        return RunError(
            "tool_doubles cannot answer an agent command's tool calls: it runs its own tools, so"
            " the harness cannot stand in for them. Serve the doubled tools over MCP ([eval].mcp),"
            " or, for an imported case, import it again with --live-tools to replay against the"
            " agent's real tools",
            "/tool_doubles",
        )
    if external and settings.mcp:
        # The agent runs its own tools, and takes those the harness serves over MCP: the
        # built-in and project tools the case lists, the doubled ones, and `echo` where the
        # case names it (as for an agent of this process).
        available = with_doubles(settings.toolset, case.trace.tool_doubles, any_name=True)
        names = offered_names(case.trace, case.trace.tools, builtin_tools=settings.builtin_tools)
        served = {name: available[name] for name in names if name in available}
        toolbox = ToolBox(served, record, workspace)
        offered = [ECHO_TOOL, *case.trace.tools]
    elif external:
        toolbox = ToolBox({}, record, workspace)
        offered = [ECHO_TOOL, *case.trace.tools]
    else:
        toolbox = case_toolbox(
            case.trace,
            record,
            workspace,
            available=with_doubles(settings.toolset, case.trace.tool_doubles, any_name=settings.mcp),
            live_allowed=None if live is None else settings.live_allowed or frozenset(),
            builtin_tools=settings.builtin_tools,
        )
        offered = [spec.name for spec in toolbox.specs()]
    if settings.mcp:
        offered += _prefixed(case, toolbox)
    hints = {"offer_hint": OWN_TOOLS_HINT} if external else {}
    # Each request is read once, by the recorder, for every check behind it.
    history = SentHistory()
    match = input_match_of(case.trace, settings.user_input_match)
    script = None
    if live is None:
        script = ReplayProvider(
            case.trace, offered, history=history, match=match, per_turn=settings.per_turn, **hints
        )
    provider: Provider = live if live is not None else script  # type: ignore[assignment]
    # The results an agent of this process sends back are checked against its tools'.
    checked = None if external else ResultsChecked(provider, record, history, scripted=live is None)
    recording = RecordingProvider(checked or provider, record, history)
    started = time.perf_counter()
    made: list[Agent | SyncAgent] = []
    loop = asyncio.get_running_loop()
    mcp = settings.mcp_tools if settings.mcp else None
    try:
        url = mcp.begin(case, toolbox, loop) if mcp is not None else None
        context = AgentContext(
            recording, toolbox, settings.max_tool_iterations, loop, mcp_url=url, traceparent=traceparent
        )
        made.append(make_agent(_factory(case, workspace, settings), context))
        watched = _Watched(script, checked)
        # Where nothing a turn calls waits on the loop, a synchronous agent that allows it
        # runs its turns on the loop's thread (`agent.inline`).
        allowed = alone and allows_inline(made[0]) and script is not None and not external and mcp is None
        inline = loop if allowed and toolbox.instant else None
        error = await _turns(
            case, made[0], record, recording, toolbox, watched, settings.case_timeout_secs, inline, user
        )
    finally:
        # The boundaries close first: what the agent does while it winds down (an agent
        # command's last requests) cannot reach a record about to be graded.
        recording.close()
        toolbox.close()
        if mcp is not None:
            mcp.end(toolbox)
        for agent in made:
            await _close(agent)
        record.duration_ms = (time.perf_counter() - started) * 1000
    if error is None and recording.late:
        last = len(case.trace.turns) - 1
        return RunError(
            f"the agent asked the model {recording.late} more time(s) after its last answer (the first"
            f" time, {recording.first_late}); the script has no step for that (turn {last + 1} ended"
            " with its answer): a call the agent makes in the background after it answered is"
            " one no case can grade",
            f"/turns/{last}/steps",
        )
    # An agent command that failed once it had answered (`CommandAgent.closing_error`).
    closing = agent_attribute(made[0], "closing_error") if made else None
    if error is None and isinstance(closing, RunError):
        closing.pointer = closing.pointer or f"/turns/{len(case.trace.turns) - 1}"
        return closing
    return error


def _prefixed(case: Case, toolbox: ToolBox) -> list[str]:
    """The names the script calls tools served over MCP by, as a client that prefixes
    them with the server's name offers them (`served_as`): a request must offer each one
    a step calls, as it must a tool's own name. (Left out, a prefixed call would count
    as a call of a tool the fixture scripts on purpose unoffered, and pass unoffered.)"""
    served = [spec.name for spec in toolbox.specs()]
    return sorted(
        {
            call.name
            for turn in case.trace.turns
            for step in turn.steps or ()
            for call in step.response.tool_calls
            if call.name not in served and any(served_as(call.name, tool) for tool in served)
        }
    )


async def _turns(
    case: Case,
    agent: Agent | SyncAgent,
    record: RunRecord,
    recording: RecordingProvider,
    toolbox: ToolBox,
    watched: _Watched,
    case_timeout_secs: float,
    inline: asyncio.AbstractEventLoop | None = None,
    user: UserModel | None = None,
) -> RunError | None:
    """Run each turn in order, then (live, with a simulated `user`) each the user model
    writes; the run error that stopped them, if any. With `inline` (the running loop), a
    synchronous agent that allows it runs each turn on the loop's thread when the turn's
    time limit can end it there."""
    script = watched.script
    index = 0
    while True:
        if index < len(case.trace.turns):
            user_input = case.trace.turns[index].user_input
        elif user is None:
            return None
        else:
            try:
                said = await within(user.next_input(record), case_timeout_secs)
            except asyncio.TimeoutError:
                return RunError(
                    f"the simulated user's model wrote no turn {index + 1} in {case_timeout_secs:g}s"
                    " (case_timeout_secs)",
                    "/simulated_user",
                )
            except EvalError as exc:  # its provider failed: a run error of the case, as the agent's
                return RunError(f"the simulated user's model failed: {exc}", "/simulated_user")
            if said is None:
                return None
            user_input = said
        if script is not None:
            script.begin_turn(index)
        recording.turn = toolbox.turn = index
        turn_record = TurnRecord(index, user_input)
        record.turns.append(turn_record)
        try:
            on_loop = inline if inline is not None and steps_bounded() else None
            answer = await within(run_turn(agent, user_input, inline=on_loop), case_timeout_secs)
        except asyncio.TimeoutError:
            said, pointer = _timed_out_doing(index, record, toolbox, scripted=script is not None)
            timed_out = RunError(
                f"turn {index + 1} timed out after {case_timeout_secs:g}s (case_timeout_secs){said}",
                pointer,
                _diagnostics(agent),
            )
            return _noting_refusal(timed_out, agent)
        except BaseException as exc:
            if is_interruption(exc):  # the run is stopping: not this agent's failure
                raise
            if task_cancelling():
                # The agent caught the run's cancel and raised something else of its own
                # (a wrapper, `sys.exit`): the cancel goes on, or Ctrl-C would only end
                # this case and the run would carry on to the next.
                raise asyncio.CancelledError from exc
            # sys.exit() inside an agent ends its turn, not the whole run; so does an
            # exception class of the agent's own that is no `Exception`.
            # A divergence the script or the result check saw, or a denied approval,
            # explains the exception better than the agent's own wrapping of it.
            return watched.divergence() or _denied(index, toolbox) or _agent_error(index, exc)
        if not isinstance(answer, str):
            return RunError(
                f"turn {index + 1}: the agent's run_turn returned {type(answer).__name__},"
                " not the answer text (str)",
                f"/turns/{index}",
            )
        turn_record.response = answer
        denied = watched.divergence() or _denied(index, toolbox)  # one the agent swallowed
        if denied is not None:
            return denied
        leftover = script.finish_turn() if script is not None else None
        if leftover is not None:
            return _noting_refusal(leftover, agent)
        index += 1


def _timed_out_doing(index: int, record: RunRecord, toolbox: ToolBox, *, scripted: bool) -> tuple[str, str]:
    """What turn `index` was doing when its time ran out, in words to follow the timeout,
    and the field to point at: the last step served (in replay), else the turn."""
    steps = [step for step in record.steps if step.turn == index]
    if not steps:
        return "; the agent asked the model nothing in that turn", f"/turns/{index}"
    number = len(steps)
    pointer = f"/turns/{index}/steps/{number - 1}" if scripted else f"/turns/{index}"
    served = f"the last step served was step {number}"
    running = ", ".join(f"{name} (call {call_id})" if call_id else name for name, call_id in toolbox.running)
    if running:
        return f"; {served}, and the tool call {running} was still running", pointer
    calls = ", ".join(f"{call['name']} (call {call['id']})" for call in steps[-1].tool_calls)
    if calls:
        return f"; {served}, which called {calls}: no request sent the result back", pointer
    return f"; {served}, the answer, but the agent never returned it", pointer


def _factory(case: Case, workspace: Workspace | None, settings: CaseSettings) -> AgentFactory:
    """The factory of this case's agent: the settings' own, or the agent command's (run in
    the case workspace, which the caller makes for it)."""
    if settings.agent_cmd is None:
        return settings.agent_factory
    if workspace is None:  # `runner.case.case_run` makes one for every agent command
        raise RuntimeError("an agent command runs in the case workspace: drive it with one")
    return settings.agent_cmd.factory(case, workspace.root)


class _Watched:
    """What watches a case's requests: the script it replays (None in live mode), the
    check of the results sent back (None for an agent command)."""

    def __init__(self, script: ReplayProvider | None, checked: ResultsChecked | None) -> None:
        self.script = script
        self.checked = checked

    def divergence(self) -> RunError | None:
        """The first request either refused, kept even if the agent swallowed the error."""
        if self.checked is not None and self.checked.divergence is not None:
            return self.checked.divergence
        return self.script.divergence if self.script is not None else None


def _denied(index: int, toolbox: ToolBox) -> RunError | None:
    """The run error of the first call the sandbox denied, or the case does not script."""
    if toolbox.denials:
        return denial_error(index, toolbox.denials[0])
    if toolbox.refusals:
        message, pointer = toolbox.refusals[0]
        return RunError(f"turn {index + 1}: {message}", pointer)
    return None


async def _close(agent: object) -> None:
    """Let an agent that holds resources (a process, a server) release them: its
    `aclose()` is awaited when the case ends, however it ended, for at most
    `CLOSE_TIMEOUT_SECS`."""
    close = agent_attribute(agent, "aclose")
    if callable(close):
        try:
            # As a turn is: not under `wait_for`, which runs it in a task of its own (before
            # 3.12), where a `sys.exit` escapes the event loop instead of coming back here.
            await within(_awaited(close), CLOSE_TIMEOUT_SECS)
        except BaseException as exc:  # its failure to close is no failure of the case
            if is_interruption(exc):
                raise


async def _awaited(call: Any) -> None:
    """`await call()`, as a coroutine whatever awaitable the call returns (`within` steps
    a coroutine; an agent's `aclose` may hand back a future)."""
    await call()


def _noting_refusal(error: RunError, agent: object) -> RunError:
    """`error`, adding what the endpoint refused an agent command, if it refused anything:
    the agent's client may have taken the refusal quietly (a stream that just ends) and
    gone on without the step, which then looks like a step it never asked for."""
    refused = agent_attribute(agent, "refused")
    if not isinstance(refused, str):
        return error
    return RunError(f"{error.message} ({refused})", error.pointer, error.traceback)


def _diagnostics(agent: object) -> str | None:
    """What an agent can say about itself after a timeout (an agent command: its stderr)."""
    report = agent_attribute(agent, "diagnostics")
    try:
        found = report() if callable(report) else None
    except BaseException as exc:  # an agent's own `diagnostics` that fails says nothing
        if is_interruption(exc):
            raise
        return None
    return found if isinstance(found, str) else None


def _agent_error(index: int, exc: BaseException) -> RunError:
    """The run error of a turn whose agent raised, with the agent's own frames."""
    if isinstance(exc, RunError):  # the harness's words already explain it (an iteration cap)
        return RunError(f"turn {index + 1}: {exc}", f"/turns/{index}", exc.traceback)
    if isinstance(exc, EvalError):
        return RunError(f"turn {index + 1}: {exc}", f"/turns/{index}")
    message = f"turn {index + 1}: the agent raised {exception_words(exc)}"
    return RunError(message, f"/turns/{index}", user_traceback(exc))
