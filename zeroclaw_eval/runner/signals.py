"""Stopping a run on SIGINT or SIGTERM: the running cases are cancelled, so each one
stops its agent and removes its workspace, instead of the process dying where it stands.

Asked for by the CLI (`RunOptions.stop_on_signals`); a library caller keeps Python's own
behaviour (SIGINT is a `KeyboardInterrupt`).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from zeroclaw_eval.errors import STOPPED_BY


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
