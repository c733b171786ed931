"""`agent.deadline`: a turn's time limit, armed only when the turn waits, and enforced on a
turn that blocks the event loop inside `bounded_blocking`."""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import time
from typing import Any

import pytest

from zeroclaw_eval.agent.deadline import GRACE_SECS, bounded_blocking, within

pytestmark = pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="3.10 has no asyncio.timeout_at: a turn runs in a task of its own, under no step timer",
)


def test_a_turn_that_never_waits_returns_its_answer_and_arms_no_timer() -> None:
    async def answers() -> str:
        return "done"

    async def main() -> tuple[str, int]:
        answer = await within(answers(), 5.0)
        # What the fast path exists for: no timer handle left on the loop's heap.
        return answer, len(asyncio.get_running_loop()._scheduled)  # type: ignore[attr-defined]

    assert asyncio.run(main()) == ("done", 0)


def test_a_turn_that_waits_gets_what_it_awaited() -> None:
    async def waits() -> str:
        await asyncio.sleep(0)
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(future.set_result, "later")
        return await future + "!"

    assert asyncio.run(within(waits(), 5.0)) == "later!"


def test_a_turn_that_waits_past_the_limit_times_out_and_is_cancelled() -> None:
    cleaned: list[bool] = []

    async def hangs() -> str:
        try:
            await asyncio.sleep(30)
        finally:
            cleaned.append(True)
        return "never"

    started = time.monotonic()
    with pytest.raises(asyncio.TimeoutError):
        asyncio.run(within(hangs(), 0.05))
    assert time.monotonic() - started < 5
    assert cleaned == [True]


def test_the_limit_counts_from_the_start_not_from_the_first_wait() -> None:
    async def busy_then_waits() -> str:
        end = time.monotonic() + 0.2
        while time.monotonic() < end:  # nothing can interrupt this part
            pass
        await asyncio.sleep(0.2)
        return "late"

    # 0.3 s from the start has passed 0.1 s into the wait: counted from the wait, the
    # turn would have finished in time.
    with pytest.raises(asyncio.TimeoutError):
        asyncio.run(within(busy_then_waits(), 0.3))


def test_errors_come_out_as_they_were_raised_before_and_after_a_wait() -> None:
    async def fails_at_once() -> str:
        raise ValueError("at once")

    async def fails_later() -> str:
        await asyncio.sleep(0)
        raise KeyError("later")

    with pytest.raises(ValueError, match="at once"):
        asyncio.run(within(fails_at_once(), 5.0))
    with pytest.raises(KeyError, match="later"):
        asyncio.run(within(fails_later(), 5.0))


def test_cancelling_the_task_cancels_the_turn() -> None:
    cancelled: list[bool] = []

    async def waits() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return "never"

    async def main() -> None:
        task = asyncio.ensure_future(within(waits(), 60.0))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert cancelled == [True]


def test_a_turn_may_catch_the_timeout_and_still_answer() -> None:
    # What an agent does with the cancellation is its own: one that swallows it and
    # answers has answered (as with asyncio.timeout, which then raises nothing).
    async def stubborn() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            return "answered anyway"
        return "never"

    assert asyncio.run(within(stubborn(), 0.05)) == "answered anyway"


needs_timer = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no interval timer (Windows)")


async def _blocks() -> str:
    time.sleep(30)
    return "never"


@needs_timer
def test_inside_bounded_blocking_a_turn_that_blocks_the_loop_times_out() -> None:
    started = time.monotonic()
    with bounded_blocking(), pytest.raises(asyncio.TimeoutError):
        asyncio.run(within(_blocks(), 0.1))
    assert time.monotonic() - started < 5
    # The handler found is back, and no timer is left to fire later.
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@needs_timer
def test_a_step_that_ends_in_time_leaves_no_timer_running() -> None:
    async def quick() -> str:
        await asyncio.sleep(0)
        return "quick"

    async def main() -> tuple[str, tuple[float, float]]:
        answer = await within(quick(), 0.2)
        return answer, signal.getitimer(signal.ITIMER_REAL)

    with bounded_blocking():
        assert asyncio.run(main()) == ("quick", (0.0, 0.0))
        time.sleep(0.3)  # past the deadline: a timer left armed would have fired by now


@needs_timer
def test_someone_elses_sigalrm_handler_is_left_alone() -> None:
    fired: list[int] = []

    def theirs(number: int, frame: object) -> None:
        fired.append(number)

    previous = signal.signal(signal.SIGALRM, theirs)
    try:
        with bounded_blocking():
            assert signal.getsignal(signal.SIGALRM) is theirs
            assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)

            async def quick() -> str:
                await asyncio.sleep(0)
                return "quick"

            # Unbounded, as without the block: the timer is the other handler's to use.
            assert asyncio.run(within(quick(), 0.1)) == "quick"
            assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert fired == []
        assert signal.getsignal(signal.SIGALRM) is theirs
    finally:
        signal.signal(signal.SIGALRM, previous)


@needs_timer
def test_a_timer_already_running_is_left_alone() -> None:
    signal.setitimer(signal.ITIMER_REAL, 30.0)
    try:
        with bounded_blocking():
            assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


@needs_timer
def test_outside_the_main_thread_nothing_is_installed() -> None:
    seen: list[object] = []

    def elsewhere() -> None:
        with bounded_blocking():
            seen.append(signal.getsignal(signal.SIGALRM))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert seen == [signal.SIG_DFL]


@needs_timer
def test_overlapping_blocks_keep_the_handler_until_the_last_one_ends() -> None:
    # Concurrent cases enter and leave their blocks in any order.
    first, second = bounded_blocking(), bounded_blocking()
    first.__enter__()
    installed = signal.getsignal(signal.SIGALRM)
    second.__enter__()
    first.__exit__(None, None, None)
    assert signal.getsignal(signal.SIGALRM) is installed is not signal.SIG_DFL
    with pytest.raises(asyncio.TimeoutError):  # still bounded
        asyncio.run(within(_blocks(), 0.1))
    second.__exit__(None, None, None)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


@needs_timer
def test_the_overrun_passes_an_except_exception_and_a_nested_turn_ends_at_the_outer_limit() -> None:
    caught: list[str] = []

    async def inner() -> str:
        try:
            time.sleep(30)
        except Exception:  # an agent's broad handler must not swallow the overrun
            caught.append("inner")
        return "never"

    async def outer() -> str:
        # A turn that runs another under its own, longer limit: the outer step's timer
        # is the one running, so the outer limit ends them both.
        return await within(inner(), 60.0)

    started = time.monotonic()
    with bounded_blocking(), pytest.raises(asyncio.TimeoutError):
        asyncio.run(within(outer(), 0.1))
    assert time.monotonic() - started < 5
    assert caught == []


@needs_timer
def test_an_agent_that_took_sigalrm_for_itself_keeps_its_timer() -> None:
    rang: list[float] = []
    set_at: list[float] = []

    def theirs(number: int, frame: object) -> None:
        rang.append(time.monotonic() - set_at[0])

    async def takes_the_signal() -> str:
        signal.signal(signal.SIGALRM, theirs)  # at import or in its factory, say
        await asyncio.sleep(0)
        set_at.append(time.monotonic())
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        await asyncio.sleep(0)  # the end of a step must not cancel their timer
        time.sleep(0.3)  # nor may the harness's deadline ring their handler early
        return "done"

    try:
        with bounded_blocking():
            assert asyncio.run(within(takes_the_signal(), 0.01)) == "done"
            assert signal.getsignal(signal.SIGALRM) is theirs
        assert signal.getsignal(signal.SIGALRM) is theirs  # not put back over theirs
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
    assert len(rang) == 1
    assert rang[0] >= 0.09  # their own timer, when they set it to ring


@needs_timer
def test_a_clean_up_that_blocks_after_the_overrun_is_told_when_the_grace_is_spent() -> None:
    async def swallows_then_waits() -> str:
        try:
            try:
                time.sleep(30)
            except BaseException:
                pass
            await asyncio.sleep(30)
        finally:
            time.sleep(30)  # run when the turn is closed: past the deadline already
        return "never"

    started = time.monotonic()
    with bounded_blocking(), pytest.raises(asyncio.TimeoutError):
        asyncio.run(within(swallows_then_waits(), 0.1))
    assert time.monotonic() - started < 5


@needs_timer
def test_an_overrun_the_turn_wraps_in_an_error_of_its_own_is_still_a_timeout() -> None:
    async def wraps() -> str:
        try:
            time.sleep(30)
        except BaseException as exc:
            raise RuntimeError("the client failed") from exc
        return "never"

    with bounded_blocking(), pytest.raises(asyncio.TimeoutError):
        asyncio.run(within(wraps(), 0.1))


@needs_timer
def test_an_outside_cancel_stays_a_cancel_when_the_turn_overruns_handling_it() -> None:
    async def blocks_when_cancelled() -> str:
        try:
            await asyncio.sleep(30)
        finally:
            time.sleep(30)  # a blocking flush while it is being cancelled
        return "never"

    async def main() -> None:
        task = asyncio.ensure_future(within(blocks_when_cancelled(), 0.3))
        await asyncio.sleep(0.05)
        task.cancel()  # what a run stopped by SIGINT does to the case running
        with pytest.raises(asyncio.CancelledError):
            await task

    started = time.monotonic()
    with bounded_blocking():
        asyncio.run(main())
    assert time.monotonic() - started < 5


def test_the_overrun_is_raised_only_into_the_turns_code_never_into_the_timers_own() -> None:
    # A signal handled while this module's own lines run (a step's first or last lines)
    # only raises the flag: an exception there would escape what catches it.
    from zeroclaw_eval.agent import deadline

    frames: list[Any] = []

    async def notes_its_caller() -> str:
        frames.append(sys._getframe(1))  # the step of `within` that runs it
        return "done"

    assert asyncio.run(within(notes_its_caller(), 5.0)) == "done"
    assert frames[0].f_code.co_filename == deadline.within.__code__.co_filename
    saved = (deadline._ALARM.armed, deadline._ALARM.fired)
    deadline._ALARM.armed = object()
    try:
        deadline._on_alarm(signal.SIGALRM, frames[0])  # returns: no exception
        assert deadline._ALARM.fired
        with pytest.raises(deadline._TurnOverrun):
            deadline._on_alarm(signal.SIGALRM, sys._getframe())
    finally:
        deadline._ALARM.armed, deadline._ALARM.fired = saved


@needs_timer
def test_the_clean_up_of_a_turn_the_timeout_cancelled_gets_its_grace() -> None:
    # asyncio's timeout cancels a turn that waits too long; what its cancellation runs (an
    # HTTP client closing its connection, say) must not be cut short the moment it starts.
    cleaned: list[bool] = []

    async def waits_then_cleans_up() -> str:
        try:
            await asyncio.sleep(30)
        finally:
            time.sleep(0.3)  # well inside the grace
            cleaned.append(True)
        return "never"

    with bounded_blocking(), pytest.raises(asyncio.TimeoutError):
        asyncio.run(within(waits_then_cleans_up(), 0.1))
    assert cleaned == [True]
    assert GRACE_SECS >= 0.5
