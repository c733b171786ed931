"""A turn's time limit, armed only when the turn waits.

asyncio can end a coroutine only where it suspends: code that runs without awaiting
anything cannot be interrupted by `asyncio.timeout`, which fires at the next suspension.
A replayed turn of an in-process agent usually never suspends (the script answers and
the built-in tools run at once), and arming a timer for it cost a timer handle pushed on
the loop's heap and cancelled again per turn; in a serial replay the loop never runs, so
the cancelled handles were never even popped. So the turn is started here directly, and
only if it suspends is the rest awaited under the same deadline, counted from the start.
"""

from __future__ import annotations

import asyncio
import sys
import types
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")


async def within(coroutine: Coroutine[Any, Any, T], seconds: float) -> T:
    """The result of `coroutine`, which must finish within `seconds` of now; raises
    `TimeoutError` (`asyncio.TimeoutError`) at its first suspension past that."""
    if sys.version_info < (3, 11):  # pragma: no cover - Python 3.10 has no timeout_at
        return await asyncio.wait_for(coroutine, seconds)
    deadline = asyncio.get_running_loop().time() + seconds
    try:
        waiting = coroutine.send(None)
    except StopIteration as done:  # finished without suspending: no limit could apply
        return done.value
    async with asyncio.timeout_at(deadline):
        return await _resumed(coroutine, waiting)


@types.coroutine
def _resumed(coroutine: Coroutine[Any, Any, T], waiting: Any) -> Generator[Any, Any, T]:
    """The rest of `coroutine`, suspended on `waiting`: what `yield from` does, from a
    coroutine already started. Each value it yields goes to the task that awaits this, and
    what the task sends or throws back goes to `coroutine`."""
    while True:
        try:
            sent = yield waiting
        except GeneratorExit:
            coroutine.close()
            raise
        except BaseException as exc:  # the task's cancellation, most often
            try:
                waiting = coroutine.throw(exc)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
        else:
            try:
                waiting = coroutine.send(sent)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
