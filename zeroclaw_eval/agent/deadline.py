"""A turn's time limit: armed only when the turn waits, and enforced on a turn that
blocks the event loop too.

asyncio can end a coroutine only where it suspends: code that runs without awaiting
anything cannot be interrupted by `asyncio.timeout`, which fires at the next suspension.
A replayed turn of an in-process agent usually never suspends (the script answers and
the built-in tools run at once), and arming a timer for it cost a timer handle pushed on
the loop's heap and cancelled again per turn; in a serial replay the loop never runs, so
the cancelled handles were never even popped. So the turn is started here directly, and
only if it suspends is the rest awaited under the same deadline, counted from the start.

An async agent that blocks (`time.sleep`, a blocking HTTP client, a loop that never
awaits) never suspends at all, and no asyncio timer can end it. Inside
`bounded_blocking()` each step of a turn (the code between two suspensions, run by
`within` itself) also runs under a real-time interval timer: when the deadline passes
mid-step, SIGALRM raises `_TurnOverrun` into whatever code is running, as
pytest-timeout's signal method does, again each second until the step ends, and the
turn then ends in `TimeoutError` like one that timed out waiting. Only the turn's own
steps are covered: a task the agent starts runs outside them, and the code running when
the timer fired might be another case's, which must not be the one to fail. A signal
handler can be set only in the main thread, and the timer is left alone when someone
else uses SIGALRM (pytest-timeout, say, or an agent that installs a handler of its own
mid-run) or on a system without `setitimer` (Windows); there, as on Python 3.10, a
blocking async turn is bounded only where it next suspends (and one that finishes past
its deadline without suspending at all is a timeout still). There is one real-time
timer per process: an agent that sets it itself (`signal.alarm`, a decorator that
times out by SIGALRM) cancels the harness's until the next step. And with several cases
in one event loop (live mode with `--jobs`), those waiting while one blocks may pass
their own limits meanwhile; ending the blocked one at its deadline is what can be done.

A turn that overran is closed under the timer too (its clean-up may block as well, and
shares `GRACE_SECS` past the deadline with any other step run after it), and
an overrun while the turn handles a cancel from outside (SIGINT stopping the run) lets
the cancel go on instead of reporting a timeout.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import types
from collections.abc import Awaitable, Callable, Coroutine, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from zeroclaw_eval.agent import inline
from zeroclaw_eval.errors import Halt, is_interruption, task_cancelling

T = TypeVar("T")

#: Seconds between repeats of `_TurnOverrun` while a step that caught it keeps running.
REPEAT_SECS = 1.0
#: Seconds past the deadline that the steps of a turn's clean-up share (run when asyncio's
#: timeout cancels it, or when an overran turn is closed) before they too are told: an
#: HTTP client closing its connection needs a moment, and an overrun raised into that
#: would leave it half closed.
GRACE_SECS = 1.0

#: The handler installed for a signal, as the C function gives it. `signal.getsignal`
#: looks each one up as a `Handlers` member first, which for a function handler raises
#: and catches a ValueError: ~2 us, twice a step, more than the timer itself costs.
_handler_of: Callable[[int], Any] = getattr(signal, "_signal", signal).getsignal


class _TurnOverrun(Halt):
    """Raised into a turn that ran past its time limit without suspending (a `Halt`, so
    that an agent's `except Exception` lets it through)."""


@dataclass
class _Alarm:
    """The process's one SIGALRM timer, while `bounded_blocking` holds it."""

    owner: int | None = None  # the thread that holds it (the main thread), or nobody
    depth: int = 0  # bounded_blocking blocks open (cases running at once overlap them)
    previous: Any = None  # the SIGALRM handler to put back
    armed: object | None = None  # the step running under the timer, if one is
    fired: bool = False  # the running step has been told it overran


_ALARM = _Alarm()


@contextmanager
def bounded_blocking() -> Iterator[None]:
    """While inside, `within` ends a turn that blocks past its deadline (see the module).
    Blocks may nest and overlap (concurrent cases): the first one installs the SIGALRM
    handler, the last one to end puts back the handler it found. A no-op outside the
    main thread, where SIGALRM is already someone's, or where there is no interval timer."""
    if _ALARM.owner is None:
        previous = _take_alarm()
        if previous is None:
            yield
            return
        _ALARM.owner, _ALARM.previous = threading.get_ident(), previous
    elif _ALARM.owner != threading.get_ident():  # another thread's run: not ours to bound
        yield
        return
    _ALARM.depth += 1
    try:
        yield
    finally:
        _ALARM.depth -= 1
        if _ALARM.depth == 0:
            if _handler_of(signal.SIGALRM) is _on_alarm:  # else the agent took it: its own
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, _ALARM.previous)
            _ALARM.owner, _ALARM.previous, _ALARM.armed, _ALARM.fired = None, None, None, False


def _take_alarm() -> Any:
    """Install the overrun handler and return the handler it replaced; None (nothing
    installed) when SIGALRM cannot or should not be ours."""
    if sys.version_info < (3, 11) or not hasattr(signal, "setitimer"):
        return None  # 3.10: `within` has no steps of its own to arm the timer around
    if threading.current_thread() is not threading.main_thread():
        return None
    if signal.getsignal(signal.SIGALRM) is not signal.SIG_DFL:
        return None  # someone else's handler
    if signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0):
        return None  # someone else's timer is running
    return signal.signal(signal.SIGALRM, _on_alarm)


def _on_alarm(signum: int, frame: types.FrameType | None) -> None:
    if _ALARM.armed is None:  # a signal that arrives after its step ended is dropped
        return
    _ALARM.fired = True
    # Raised only into the turn's own code. Landing in this module's (a step's first or
    # last lines, `within`'s clean-up) it would escape where nothing catches it, and in
    # `agent.inline`'s it could leave an inline turn registered; there the flag alone is
    # enough, as each step checks it when the turn's code returns.
    if frame is None or frame.f_code.co_filename not in _QUIET_FILES:
        raise _TurnOverrun


def steps_bounded() -> bool:
    """Whether a turn's steps run under the interval timer here (inside `bounded_blocking`,
    on the thread that holds it, with the handler still ours): only then can a turn that
    never suspends be ended."""
    return _ALARM.owner == threading.get_ident() and _handler_of(signal.SIGALRM) is _on_alarm


async def within(coroutine: Coroutine[Any, Any, T], seconds: float) -> T:
    """The result of `coroutine`, which must finish within `seconds` of now; raises
    `TimeoutError` (`asyncio.TimeoutError`) at its first suspension past that, or,
    inside `bounded_blocking`, when a step of it blocks past that."""
    if sys.version_info < (3, 11):  # pragma: no cover - Python 3.10 has no timeout_at
        # The turn runs in a task of its own, and asyncio lets a `SystemExit` raised in a
        # task out of the event loop: the turn's outcome comes back boxed.
        done, value = await _waited_for(_boxed(coroutine), seconds)
        if not done:
            raise value
        return value  # type: ignore[no-any-return]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    step = _BoundedStep(deadline, loop.time) if steps_bounded() else None
    try:
        try:
            waiting = coroutine.send(None) if step is None else step(coroutine.send, None)
        except StopIteration as done:  # finished without suspending: no asyncio timer needed
            if loop.time() > deadline:
                # It blocked past its limit and nothing told it (no interval timer here, or
                # the agent took SIGALRM for itself): it did not finish in time all the same.
                raise TimeoutError("the turn blocked past its time limit") from None
            return done.value
        async with asyncio.timeout_at(deadline):
            return await _resumed(coroutine, waiting, step)
    except _TurnOverrun:
        if step is not None:
            step.disarm()
        _close(coroutine, step)
        if task_cancelling():
            # The turn overran while it handled a cancel from outside (the run stopped by
            # SIGINT, say): the cancel goes on, or the run would carry on to the next case.
            raise asyncio.CancelledError from None
        raise TimeoutError("the turn blocked past its time limit") from None


async def wait_for(awaitable: Awaitable[T], seconds: float) -> T:
    """`asyncio.wait_for(awaitable, seconds)`, which before 3.12 may lose a cancel of its
    caller; there `_waited_for`, which never does. For a wait in an agent's turn, where a
    lost cancel (SIGINT stopping the run) lets the turn go on: a service's start-up polled
    to its deadline, then a turn sent, before the run could stop."""
    if sys.version_info >= (3, 12):
        return await asyncio.wait_for(awaitable, seconds)
    return await _waited_for(awaitable, seconds)


async def _waited_for(awaitable: Awaitable[T], seconds: float) -> T:
    """`asyncio.wait_for(awaitable, seconds)` as 3.12 has it: a cancel of the caller always
    goes on. 3.10's and 3.11's return the result instead when the task running `awaitable`
    finished just as the cancel came (python/cpython#86296); on 3.10 a turn, which never
    suspends in a replay, finishes in the first step of its task, before the caller can be
    woken: SIGINT's cancel of the run was all but always lost, and the next case ran."""
    task = asyncio.ensure_future(awaitable)
    try:
        finished, _ = await asyncio.wait((task,), timeout=seconds)
    except asyncio.CancelledError:
        await _cancelled(task)  # what it waits for must not run on past its caller
        raise
    if not finished:
        await _cancelled(task)
        if task.cancelled():
            raise asyncio.TimeoutError from None
    return task.result()  # a result it still gave when told to stop is its result, as wait_for's


async def _cancelled(task: asyncio.Future[Any]) -> None:
    """Cancel `task` and wait for it to end (which a cancel of the caller cuts short)."""
    task.cancel()
    await asyncio.wait((task,))


async def _boxed(coroutine: Coroutine[Any, Any, Any]) -> tuple[bool, Any]:  # pragma: no cover - 3.10
    """(True, the result) of `coroutine`, or (False, what it raised) for an exception of
    its own: only an interruption (a cancel, Ctrl-C) is raised through the task."""
    try:
        return True, await coroutine
    except BaseException as exc:
        if is_interruption(exc):
            raise
        return False, exc


def _close(coroutine: Coroutine[Any, Any, Any], step: _BoundedStep | None) -> None:
    """Close the coroutine of a turn that overran. Its clean-up (`finally`, `except
    GeneratorExit`) runs as a step too, past the deadline already, so a clean-up that
    blocks is told once `GRACE_SECS` past the deadline are spent; whatever it does then,
    the turn has timed out."""
    try:
        if step is None:
            coroutine.close()
        else:
            step(lambda _: coroutine.close(), None)
    except (Exception, _TurnOverrun):
        pass  # it raised, overran again, or would not close (it awaited in its clean-up)


class _BoundedStep:
    """Advances a coroutine one step (`send` or `throw` of a value) under the interval
    timer; a step that overran the deadline ends in `_TurnOverrun`, even when the
    coroutine caught the one raised into it and went on."""

    def __init__(self, deadline: float, now: Callable[[], float]) -> None:
        self._deadline = deadline
        self._now = now

    def __call__(self, advance: Callable[[Any], Any], value: Any) -> Any:
        if _ALARM.armed is not None:  # a step inside a step (a nested run): the outer timer covers it
            return advance(value)
        if _handler_of(signal.SIGALRM) is not _on_alarm:
            return advance(value)  # the agent took SIGALRM for itself: its timer, not ours
        _ALARM.fired = False
        left = self._deadline - self._now()
        if left <= 0:  # a step past the deadline: the clean-up a cancel or a close starts
            left = max(self._deadline + GRACE_SECS - self._now(), 0.001)
        signal.setitimer(signal.ITIMER_REAL, left, REPEAT_SECS)
        _ALARM.armed = self
        try:
            result = advance(value)
        except BaseException as exc:
            if _ALARM.fired and not isinstance(exc, _TurnOverrun):
                # It caught the overrun and finished late, or raised something else of
                # its own (its wrapping of the overrun, say): still too late.
                raise _TurnOverrun from None
            raise
        finally:
            self.disarm()
        if _ALARM.fired:  # it caught the overrun and went on to wait: ended here
            raise _TurnOverrun
        return result

    def disarm(self) -> None:
        """Stop the timer if this step armed it (idempotent)."""
        if _ALARM.armed is self:
            _ALARM.armed = None
            # Once the agent took SIGALRM's handler, the timer is its own if it set one
            # (`signal.alarm` and `setitimer` replace ours); one still repeating every
            # `REPEAT_SECS` is ours, and would go on firing into the agent's handler.
            ours = _handler_of(signal.SIGALRM) is _on_alarm
            if ours or signal.getitimer(signal.ITIMER_REAL)[1] == REPEAT_SECS:
                signal.setitimer(signal.ITIMER_REAL, 0)


@types.coroutine
def _resumed(
    coroutine: Coroutine[Any, Any, T], waiting: Any, step: _BoundedStep | None
) -> Generator[Any, Any, T]:
    """The rest of `coroutine`, suspended on `waiting`: what `yield from` does, from a
    coroutine already started. Each value it yields goes to the task that awaits this, and
    what the task sends or throws back goes to `coroutine` (one bounded step each, when
    `step` is given)."""
    while True:
        try:
            sent = yield waiting
        except GeneratorExit:
            coroutine.close()
            raise
        except BaseException as exc:  # the task's cancellation, most often
            try:
                waiting = coroutine.throw(exc) if step is None else step(coroutine.throw, exc)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
        else:
            try:
                waiting = coroutine.send(sent) if step is None else step(coroutine.send, sent)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]


#: The file name this module's code was compiled under (`__file__` may be spelled
#: otherwise, when its bytecode was compiled from another path).
_OWN_FILE = within.__code__.co_filename
#: Where an overrun is never raised (see `_on_alarm`).
_QUIET_FILES = frozenset({_OWN_FILE, inline.run_now.__code__.co_filename})
