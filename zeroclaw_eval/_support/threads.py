"""Blocking code off the event loop: a plain function run in a daemon thread.

Not `asyncio.to_thread`: a call that outlives its time limit (a blocked agent turn, a
hung tool) may leave its thread running, and the default executor would make the whole
run wait for it at exit; a daemon thread is simply abandoned.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from threading import Thread
from typing import Any


def in_thread(function: Callable[..., Any], *arguments: Any) -> asyncio.Future[Any]:
    """`function(*arguments)` in a daemon thread, as a future of the running loop."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def work() -> None:
        try:
            outcome: tuple[Any, BaseException | None] = (function(*arguments), None)
        except StopIteration as exc:
            # A future refuses StopIteration (it would end a generator in the wrong place).
            error = RuntimeError(f"{getattr(function, '__qualname__', 'the call')} raised StopIteration")
            error.__cause__ = exc
            outcome = (None, error)
        except BaseException as exc:
            outcome = (None, exc)
        try:
            loop.call_soon_threadsafe(_settle, future, *outcome)
        except RuntimeError:  # the run is over (the call timed out): nobody waits any more
            pass

    name = f"zeroclaw-{getattr(function, '__name__', 'call')}"
    Thread(target=work, name=name, daemon=True).start()
    return future


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():  # the caller stopped waiting (a timeout): nobody wants this any more
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
