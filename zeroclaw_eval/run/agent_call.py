"""Calling the agent under test: making it from its factory, running one turn whether
`run_turn` is async or not, and the traceback of its own frames when it raises.

A factory that raises, or makes something without a `run_turn`, is a configuration
error: it would fail every case alike, so it is reported once (exit 2), not as one run
error per case. A synchronous `run_turn` runs in a worker thread, so that
`case_timeout_secs` bounds it too.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zeroclaw_eval.errors import AgentLoadError
from zeroclaw_eval.run.agent import Agent, AgentContext, AgentFactory
from zeroclaw_eval.run.threads import in_thread

_SHAPE = "an agent needs a method `async def run_turn(self, user_input: str) -> str` (or a plain def)"
# Frames of the harness and of the machinery between it and the agent tell a developer
# nothing about their agent; they are left out of the traceback a report keeps.
_HARNESS = Path(__file__).resolve().parents[1]
_MACHINERY = (Path(asyncio.__file__).parent, Path(threading.__file__))


def make_agent(factory: AgentFactory, context: AgentContext) -> Agent:
    """The agent `factory` makes for `context`; `AgentLoadError` when it cannot."""
    name = getattr(factory, "__qualname__", None) or type(factory).__name__
    try:
        agent = factory(context)
    except Exception as exc:
        raise AgentLoadError(
            f"the agent factory {name} raised {type(exc).__name__}: {exc}\n{user_traceback(exc)}"
        ) from None
    if not callable(getattr(agent, "run_turn", None)):
        raise AgentLoadError(
            f"the agent factory {name} returned {type(agent).__name__}, which has no run_turn"
            f" method; {_SHAPE}"
        )
    return agent


async def run_turn(agent: Agent, user_input: str) -> Any:
    """One turn of `agent`: awaited when `run_turn` is async, else run in a worker thread."""
    method: Callable[[str], Any] = agent.run_turn
    if inspect.iscoroutinefunction(method):
        return await method(user_input)
    result = await in_thread(method, user_input)
    # A plain function may still hand back something to await (a coroutine it made).
    return await result if inspect.isawaitable(result) else result


def user_traceback(exc: BaseException) -> str:
    """The traceback of `exc` with the harness's frames left out."""
    frames = [
        frame for frame in traceback.extract_tb(exc.__traceback__) if not _is_machinery(Path(frame.filename))
    ]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames)]
    lines.extend(traceback.format_exception_only(type(exc), exc))
    return "".join(lines).rstrip("\n")


def _is_machinery(path: Path) -> bool:
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        return False
    if resolved == _MACHINERY[1] or _HARNESS in resolved.parents:
        return True
    return _MACHINERY[0] in resolved.parents
