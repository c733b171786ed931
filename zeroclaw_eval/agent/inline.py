"""Synchronous turns run on the event loop's own thread, for agents that allow it.

A synchronous `run_turn` normally runs in a thread of its own, and each `context.sync`
call crosses to the event loop and back: a replayed case costs about three times what
the same loop written async does (docs/benchmarks.md), most of it threads waking each
other. An agent that sets `inline_turns = True` lets the harness run its turns on the
event loop's thread instead, where `context.sync` runs the call to its end at once, as
an awaited call that never suspends would be.

That is sound only where nothing the turn calls waits on the event loop, so a turn runs
inline only when all of these hold (otherwise in its thread, as before; the attribute
permits, it does not demand):

- replay (a live provider waits on the network), with the agent in this process;
- every tool of the case answers at once: the built-in ones and doubles (a project's
  tool may block or await; an MCP server answers over the loop);
- the turn's time limit can interrupt it: inside `deadline.bounded_blocking`, on the
  main thread, with SIGALRM the harness's (Python 3.11 and later, not Windows).

And the agent keeps its side: it calls `context.sync` only from `run_turn`'s own thread
and runs no event loop of its own. A call from another thread is refused at once (it
would wait for a loop busy running the very turn that waits for it) and one that still
suspends is refused too; either fails the case with a run error that says to remove
`inline_turns`. Everything the harness checks is the same either way: the calls go
through the same recorded provider and tool box.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from zeroclaw_eval.errors import RunError, is_interruption

T = TypeVar("T")

#: The agent attribute that allows its synchronous turns to run inline.
INLINE_ATTRIBUTE = "inline_turns"


class InlineTurn:
    """An inline turn running now: its thread, and the first call of it the harness
    refused, which fails the turn even if the agent swallowed the exception."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()
        self.refused: RunError | None = None

    def refuse(self, message: str) -> RunError:
        """The error of a refused call, kept (the first one) for the turn to end in."""
        error = RunError(
            f"{message}; remove {INLINE_ATTRIBUTE} from the agent (its turns then run in a thread)"
        )
        if self.refused is None:
            self.refused = error
        return error


#: Each event loop running an inline turn now.
_RUNNING: dict[asyncio.AbstractEventLoop, InlineTurn] = {}


@contextmanager
def inline_turn(loop: asyncio.AbstractEventLoop) -> Iterator[InlineTurn]:
    """While inside, a `context.sync` call of `loop` runs inline on this thread. (The
    turn's overrun is never raised into this module's frames, so the registry is always
    cleared: `deadline._on_alarm`.)"""
    turn = _RUNNING[loop] = InlineTurn()
    try:
        yield turn
    finally:
        _RUNNING.pop(loop, None)


def run_inline(method: Callable[[str], Any], user_input: str, turn: InlineTurn) -> Any:
    """`method(user_input)`, a synchronous turn, here on the loop's thread. A call of it
    the harness refused fails the turn, whatever the agent did with the exception. An
    agent that runs an event loop of its own meets the harness's (asyncio refuses to
    start or run a loop inside a running one): its error says what to do about it."""
    try:
        result = method(user_input)
    except BaseException as exc:
        if is_interruption(exc):  # an overrun, a Ctrl-C or a cancel goes on as it is
            raise
        if turn.refused is not None:
            raise turn.refused from None
        if not isinstance(exc, RuntimeError) or "event loop" not in str(exc):
            raise
        raise RuntimeError(
            f"{exc} (the turn runs inline, on the harness's event loop; remove {INLINE_ATTRIBUTE}"
            " from an agent that runs an event loop of its own)"
        ) from exc
    if turn.refused is not None:
        raise turn.refused
    return result


def running_inline(loop: asyncio.AbstractEventLoop | None) -> InlineTurn | None:
    """The inline turn running on `loop`, None when none is."""
    return None if loop is None else _RUNNING.get(loop)


def run_now(turn: InlineTurn, awaitable: Coroutine[Any, Any, T]) -> T:
    """The result of `awaitable`, run to its end here: a `context.sync` call of an inline
    turn. It must not suspend (nothing can resume it while this thread is busy). A
    cancellation it raises comes out as `concurrent.futures.CancelledError`, as it does
    from a call made from a thread."""
    if not asyncio.iscoroutine(awaitable):
        raise TypeError(f"context.sync() takes a coroutine (a call of provider or tools), not {awaitable!r}")
    while True:
        try:
            waiting = awaitable.send(None)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
        except asyncio.CancelledError as exc:
            raise concurrent.futures.CancelledError() from exc
        # A bare yield (`asyncio.sleep(0)`, a library's checkpoint) only offers the loop a
        # turn: going on is what the loop would do. Anything else is a future to wait for.
        if waiting is not None:
            break
    awaitable.close()
    raise turn.refuse(
        "an inline turn's context.sync() call waited on the event loop, which is busy running that turn"
    )


def refuse_from_other_thread(turn: InlineTurn, awaitable: Coroutine[Any, Any, Any]) -> None:
    """Refuse a `context.sync` call made from a thread of the agent's own during an inline
    turn: the loop it would wait for is running the turn that waits for it."""
    awaitable.close()  # never to run: closing it spares a "never awaited" warning
    raise turn.refuse(
        "context.sync() was called from a thread other than the turn's own while the turn runs"
        " inline; call it from run_turn's thread"
    )
