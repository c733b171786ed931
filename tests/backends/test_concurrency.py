"""The adaptive limit on a live provider's open requests (`backends.concurrency`): it
grows additively while requests succeed, halves once per throttling generation, keeps
within one and the provider's `max_concurrency`, and reads rate-limit headers."""

from __future__ import annotations

import asyncio

import pytest

from zeroclaw_eval.backends.concurrency import AdaptiveLimit, describe, nearly_spent


async def _succeed(limit: AdaptiveLimit, times: int) -> None:
    for _ in range(times):
        generation = await limit.acquire()
        limit.release(generation, throttled=False)


def test_the_limit_starts_low_and_grows_by_about_one_per_round_of_successes() -> None:
    limit = AdaptiveLimit(ceiling=16, start=2)
    assert limit.limit == 2
    # 1/limit a success: two successes at 2 make 3, three at 3 make 4.
    asyncio.run(_succeed(limit, 2))
    assert limit.limit == 3
    asyncio.run(_succeed(limit, 3))
    assert limit.limit == 4


def test_the_limit_never_exceeds_the_ceiling() -> None:
    limit = AdaptiveLimit(ceiling=3, start=2)
    asyncio.run(_succeed(limit, 100))
    assert limit.limit == 3
    assert AdaptiveLimit(ceiling=1, start=2).limit == 1


def test_a_burst_of_throttles_halves_once_per_generation() -> None:
    async def burst() -> AdaptiveLimit:
        limit = AdaptiveLimit(ceiling=16, start=8)
        taken = [await limit.acquire() for _ in range(8)]  # eight sent under one limit
        for generation in taken:  # all eight refused
            limit.release(generation, throttled=True)
        return limit

    limit = asyncio.run(burst())
    assert limit.limit == 4
    assert limit.state().throttled == 1


def test_throttles_of_later_generations_halve_again_down_to_one() -> None:
    async def refused(limit: AdaptiveLimit, times: int) -> None:
        for _ in range(times):
            generation = await limit.acquire()
            limit.release(generation, throttled=True)

    limit = AdaptiveLimit(ceiling=16, start=8)
    asyncio.run(refused(limit, 1))
    assert limit.limit == 4
    asyncio.run(refused(limit, 5))
    assert limit.limit == 1


def test_a_request_waits_for_room_and_says_it_waits() -> None:
    async def scenario() -> list[str]:
        limit = AdaptiveLimit(ceiling=4, start=1)
        seen: list[str] = []
        first = await limit.acquire()
        second = asyncio.ensure_future(limit.acquire())
        await asyncio.sleep(0)
        seen.append(describe({"main": limit}))
        assert not second.done()
        limit.release(first, throttled=False)
        await second
        seen.append(describe({"main": limit}))
        return seen

    waiting, after = asyncio.run(scenario())
    assert waiting == "concurrency 1/4, 1 waiting"
    assert after == "concurrency 2/4"


@pytest.mark.parametrize(
    ("headers", "spent"),
    [
        ({"x-ratelimit-remaining-requests": "5", "x-ratelimit-limit-requests": "100"}, True),
        ({"x-ratelimit-remaining-requests": "10", "x-ratelimit-limit-requests": "100"}, True),
        ({"x-ratelimit-remaining-requests": "11", "x-ratelimit-limit-requests": "100"}, False),
        ({"anthropic-ratelimit-tokens-remaining": "900", "anthropic-ratelimit-tokens-limit": "10000"}, True),
        ({"x-ratelimit-remaining-requests": "5"}, False),  # no limit named: no share known
        ({"x-ratelimit-remaining-requests": "many", "x-ratelimit-limit-requests": "100"}, False),
        ({}, False),
    ],
)
def test_rate_limit_headers_say_when_the_quota_is_nearly_spent(headers: dict[str, str], spent: bool) -> None:
    assert nearly_spent(headers) is spent


def test_a_request_cancelled_once_given_room_gives_it_back() -> None:
    async def scenario() -> AdaptiveLimit:
        limit = AdaptiveLimit(ceiling=4, start=1)
        first = await limit.acquire()
        waiting = asyncio.ensure_future(limit.acquire())
        await asyncio.sleep(0)
        limit.release(first, throttled=False)  # room for the waiter, given as it is cancelled
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        return limit

    limit = asyncio.run(scenario())
    assert limit.state().in_flight == 0
    assert limit.state().waiting == 0


def test_one_limit_serves_runs_of_different_event_loops() -> None:
    # A library caller runs one live case after another, each in its own asyncio.run.
    limit = AdaptiveLimit(ceiling=4, start=1)

    async def crowded() -> None:
        first = await limit.acquire()
        second = asyncio.ensure_future(limit.acquire())
        await asyncio.sleep(0)
        limit.release(first, throttled=False)
        limit.release(await second, throttled=False)

    asyncio.run(crowded())
    asyncio.run(crowded())
    assert limit.state().in_flight == 0
