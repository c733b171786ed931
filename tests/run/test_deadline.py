"""`run.deadline.within`: a turn's time limit, armed only when the turn waits."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from zeroclaw_eval.run.deadline import within

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10 uses asyncio.wait_for")


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
