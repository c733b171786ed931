"""SIGINT and SIGTERM in `zeroclaw eval run`: never a process that dies where it stands.

While the cases run, the runner itself turns the first signal into a clean stop
(`RunOptions.stop_on_signals`): the running cases are cancelled, each removes its
workspace, and a partial report marked `interrupted` comes back. Around that, the
command ends through an exception instead of dying (SIGTERM's default runs no `finally`,
so a temporary file or folder would be left behind), and while the outputs are written it
holds the signal until every output is written, so no report is left older than another.
"""

from __future__ import annotations

import functools
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from zeroclaw_eval.cli.say import say
from zeroclaw_eval.errors import STOPPED_BY, ExitCode, Halt


class _Stopped(Halt):
    """SIGINT or SIGTERM arrived outside the run of the cases (a `Halt`, so no `except
    Exception` on the way swallows it)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.signal = name


class Stage:
    """How far the command got: whether its outputs are written. (A plain class: this
    module is imported by every `zeroclaw --help`, and a dataclass costs its import time.)"""

    def __init__(self) -> None:
        self.written = False


def _stop(number: int, frame: FrameType | None) -> None:
    raise _Stopped(signal.Signals(number).name)


@contextmanager
def _handling(handler: Any) -> Iterator[None]:
    """`handler` for SIGINT and SIGTERM while inside (main thread only), then the previous ones."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {name: signal.signal(getattr(signal, name), handler) for name in STOPPED_BY}
    try:
        yield
    finally:
        for name, handled in previous.items():
            if handled is not None:
                signal.signal(getattr(signal, name), handled)


@contextmanager
def exit_on_signals() -> Iterator[Stage]:
    """While inside, SIGINT or SIGTERM ends the command at once (where no case runs:
    while loading, or once the outputs are written), with 128 + the signal's number and
    a line saying whether the outputs were written (`Stage.written`, set by the caller)."""
    stage = Stage()
    try:
        with _handling(_stop):
            yield stage
    except _Stopped as stop:
        said = "the outputs were written" if stage.written else "no report was written"
        say(f"Interrupted by {stop.signal}: {said}")
        sys.exit(ExitCode.stopped_by(stop.signal))


def handles_signals(command: Callable[..., Any]) -> Callable[..., Any]:
    """`command` run inside `exit_on_signals`, given its `Stage` as `stage`. The decorator
    closest to `click.command`, so that what the others do before the command (reading a
    baseline, planning the outputs) is covered too."""

    @functools.wraps(command)
    def handled(*args: Any, **kwargs: Any) -> Any:
        with exit_on_signals() as stage:
            return command(*args, stage=stage, **kwargs)

    return handled


@contextmanager
def held_signals() -> Iterator[list[str]]:
    """While inside, SIGINT and SIGTERM are noted in the list yielded, not acted on."""
    held: list[str] = []

    def hold(number: int, frame: FrameType | None) -> None:
        held.append(signal.Signals(number).name)

    with _handling(hold):
        yield held
