"""Stopping a run on SIGINT or SIGTERM: the running cases are cancelled, so each one
stops its agent and removes its workspace, instead of the process dying where it stands.

Asked for by the CLI (`RunOptions.stop_on_signals`); a library caller keeps Python's own
behaviour (SIGINT is a `KeyboardInterrupt`), as `asyncio.run` has it from 3.11 on
(`run_main`, on 3.10 too).
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import types
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from zeroclaw_eval.errors import STOPPED_BY

T = TypeVar("T")


@dataclass
class Interruption:
    """The signal that stopped the run (`SIGINT` or `SIGTERM`), once one has."""

    signal: str | None = None


@contextmanager
def cancel_on_signals(cancel: Callable[[], object]) -> Iterator[Interruption]:
    """While inside, the first SIGINT or SIGTERM calls `cancel` and is noted in the
    `Interruption` yielded. Later ones are ignored: the clean-up the first one started
    must finish, or the workspaces it removes would be left behind.

    Only in the main thread of a loop that takes signal handlers (not Windows' loop);
    elsewhere nothing is installed. The handlers found on entry are put back on exit.
    """
    loop = asyncio.get_running_loop()
    caught = Interruption()

    def on_signal(name: str) -> None:
        if caught.signal is None:
            caught.signal = name
            cancel()

    installed: list[tuple[int, Any]] = []
    if threading.current_thread() is threading.main_thread():
        for name in STOPPED_BY:
            number = getattr(signal, name)
            previous = signal.getsignal(number)
            try:
                loop.add_signal_handler(number, on_signal, name)
            except (NotImplementedError, RuntimeError, ValueError):
                continue
            installed.append((number, previous))
    try:
        yield caught
    finally:
        for number, previous in installed:
            loop.remove_signal_handler(number)
            # remove_signal_handler leaves the default behind; restore the caller's.
            if previous is not None:
                signal.signal(number, previous)


def run_main(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, with Ctrl-C handled as 3.11's `asyncio.run` handles it, on
    3.10 too: the first SIGINT cancels `main` (whose `finally` blocks then run in the
    loop: the workers closed and reaped, the workspaces removed), and `KeyboardInterrupt`
    is raised once it has ended; a second one is a `KeyboardInterrupt` where it lands."""
    if sys.version_info >= (3, 11):
        return asyncio.run(main)
    return _run_cancelled_by_sigint(main)  # pragma: no cover - 3.10


def _run_cancelled_by_sigint(main: Coroutine[Any, Any, T]) -> T:  # pragma: no cover - 3.10
    """3.11's SIGINT handling of `asyncio.run`, written out for 3.10. 3.10's raises the
    first Ctrl-C where it lands, out of the loop most often, and only `asyncio.run`'s own
    clean-up then cancels `main`: a second Ctrl-C ends that clean-up too, and the loop is
    closed with `main` still suspended (its workers' pipes open, the workers unreaped)
    until the garbage collector closes it, with no loop left to finish it on."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        return asyncio.run(main)  # not the main thread, or the caller's own handler: 3.11's leaves both alone
    running: list[asyncio.Task[T]] = []
    interrupted = False

    def on_sigint(signum: int, frame: types.FrameType | None) -> None:
        nonlocal interrupted
        if interrupted or not running or running[0].done():
            raise KeyboardInterrupt
        interrupted = True
        running[0].cancel()
        # The signal does not wake the loop's select() by itself (Python retries the call).
        running[0].get_loop().call_soon_threadsafe(lambda: None)

    async def tracked() -> T:
        task = asyncio.current_task()
        assert task is not None
        running.append(task)
        return await main

    signal.signal(signal.SIGINT, on_sigint)
    try:
        return asyncio.run(tracked())
    except asyncio.CancelledError:
        if interrupted:
            raise KeyboardInterrupt from None
        raise
    finally:
        if signal.getsignal(signal.SIGINT) is on_sigint:  # else someone else's now: theirs
            signal.signal(signal.SIGINT, signal.default_int_handler)
