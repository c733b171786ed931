"""Calling the agent under test: making it from its factory, running one turn whether
`run_turn` is async or not, and the traceback of its own frames when it raises.

A factory that raises, or makes something without a `run_turn`, is a configuration
error: it would fail every case alike, so it is reported once (exit 2), not as one run
error per case. A synchronous `run_turn` runs in a worker thread, so that
`case_timeout_secs` bounds it too (or inline, on the loop's thread under the turn's
interval timer, where the agent and the case allow it: `agent.inline`).
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zeroclaw_eval._support.threads import in_thread
from zeroclaw_eval.agent.inline import INLINE_ATTRIBUTE, inline_turn, run_inline
from zeroclaw_eval.agent.loop import Agent, AgentContext, AgentFactory, SyncAgent
from zeroclaw_eval.errors import AgentLoadError, exception_words, is_interruption

_SHAPE = "an agent needs a method `async def run_turn(self, user_input: str) -> str` (or a plain def)"
# Frames of the harness and of the machinery between it and the agent tell a developer
# nothing about their agent; they are left out of the traceback a report keeps.
_HARNESS = Path(__file__).resolve().parents[1]
_MACHINERY = (Path(asyncio.__file__).parent, Path(threading.__file__))


def make_agent(factory: AgentFactory, context: AgentContext) -> Agent | SyncAgent:
    """The agent `factory` makes for `context`; `AgentLoadError` when it cannot."""
    name = getattr(factory, "__qualname__", None) or type(factory).__name__
    try:
        agent = factory(context)
    except BaseException as exc:  # `sys.exit` or an exception class of its own included
        if is_interruption(exc):
            raise
        raise AgentLoadError(raised(f"the agent factory {name}", exc)) from None
    if not callable(agent_attribute(agent, "run_turn")):
        raise AgentLoadError(
            f"the agent factory {name} returned {type(agent).__name__}, which has no run_turn"
            f" method; {_SHAPE}"
        )
    return agent


def agent_attribute(agent: object, name: str) -> Any:
    """`agent`'s attribute `name`, or None. An agent whose `__getattr__` raises for a name
    it does not have (rather than `AttributeError`) has no such attribute either: the
    harness asks for optional ones (`aclose`, `inline_turns`), and the agent's slip must
    not crash the run."""
    try:
        return getattr(agent, name, None)
    except BaseException as exc:
        if is_interruption(exc):
            raise
        return None


def allows_inline(agent: object) -> bool:
    """Whether `agent` set `inline_turns = True` (exactly True: a truthy accident is not
    a promise about its threads)."""
    return agent_attribute(agent, INLINE_ATTRIBUTE) is True


async def run_turn(
    agent: Agent | SyncAgent, user_input: str, *, inline: asyncio.AbstractEventLoop | None = None
) -> Any:
    """One turn of `agent`: awaited when `run_turn` is async, else run in a worker thread,
    or with `inline` (the running loop, where the agent and the case allow it, which the
    caller decides: `agent.inline`) on this thread."""
    method: Callable[[str], Any] = agent.run_turn
    if _is_async(method):
        return await method(user_input)
    if inline is not None:
        with inline_turn(inline) as turn:
            result = run_inline(method, user_input, turn)
    else:
        result = await in_thread(method, user_input)
    # A plain function may still hand back something to await (a coroutine it made).
    return await result if inspect.isawaitable(result) else result


#: Whether each `run_turn` function met so far is async: asked at every turn, and
#: `inspect` answers by unwrapping and reading flags (a microsecond a turn); a function's
#: answer never changes. Bounded, should a program make agent classes without end.
_ASYNC: dict[Any, bool] = {}


def _is_async(method: Callable[..., Any]) -> bool:
    key = getattr(method, "__func__", method)  # a bound method: its class's function
    try:
        found = _ASYNC.get(key)
    except TypeError:  # a callable object that cannot be hashed: asked every time
        return inspect.iscoroutinefunction(method)
    if found is None:
        found = inspect.iscoroutinefunction(method)
        if len(_ASYNC) >= 256:
            _ASYNC.clear()
        _ASYNC[key] = found
    return found


def user_traceback(exc: BaseException) -> str | None:
    """The traceback of `exc`, and of the exceptions it chains, with the harness's frames
    left out (a wrapped error's cause is often the line a developer needs); None when no
    frame is the user's, as then it would only repeat the message."""
    summary = traceback.TracebackException.from_exception(exc)
    if not _prune(summary, set()):
        return None
    return "".join(summary.format()).rstrip("\n")


def raised(what: str, exc: BaseException) -> str:
    """`what` raised `exc`: the one-line account, then the user's frames when there are any."""
    found = user_traceback(exc)
    line = f"{what} raised {exception_words(exc)}"
    return line if found is None else f"{line}\n{found}"


def _prune(summary: traceback.TracebackException, seen: set[int]) -> bool:
    """Leave the harness's frames out of `summary` and what it chains; whether any of the
    user's frames are left."""
    if id(summary) in seen:  # chains can loop back on themselves
        return False
    seen.add(id(summary))
    kept = [frame for frame in summary.stack if not _is_machinery(Path(frame.filename))]
    summary.stack = traceback.StackSummary.from_list(kept)
    found = bool(kept)
    linked = [summary.__cause__, summary.__context__, *(getattr(summary, "exceptions", None) or ())]
    for other in linked:
        if other is not None:
            found = _prune(other, seen) or found
    return found


def _is_machinery(path: Path) -> bool:
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        return False
    if resolved == _MACHINERY[1] or _HARNESS in resolved.parents:
        return True
    return _MACHINERY[0] in resolved.parents
