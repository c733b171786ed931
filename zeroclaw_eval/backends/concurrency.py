"""How many requests a live provider is sent at once: an adaptive limit, one per provider
of a run, shared by every case the run has open.

A fixed `--jobs N` is either too low (the quota idles) or too high (the provider answers
429 and every case waits out its backoff). So the limit adapts, as TCP's congestion
window does (additive increase, multiplicative decrease): it starts low, grows by one
request per round of requests that succeed (1/limit a success), and halves when the
provider throttles, that is on a 429, or on a success whose rate-limit headers say the
quota is nearly spent (`x-ratelimit-remaining-requests` over `x-ratelimit-limit-requests`,
and Anthropic's `anthropic-ratelimit-requests-*`, at a tenth or less). It never exceeds
the provider's `max_concurrency` nor falls below one.

A burst of 429s from requests sent under one limit is one signal, not many: the limit
halves once per generation (a request sent before the last halving does not halve it
again), or a run with eight requests in flight would fall from eight to one on one
refusal of the quota.

Why not a library: the throttling libraries on PyPI bound a rate (tokens per second) or
a fixed count; none adapts a count to the provider's answers, and the window logic is
the few lines below.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

#: The requests a provider is first sent at once.
START = 2
#: At or under this share of its quota left, a provider is taken to be throttling.
NEARLY_SPENT = 0.1
#: The rate-limit headers read, as (remaining, limit) pairs.
RATE_LIMIT_HEADERS = (
    ("x-ratelimit-remaining-requests", "x-ratelimit-limit-requests"),
    ("x-ratelimit-remaining-tokens", "x-ratelimit-limit-tokens"),
    ("anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-limit"),
    ("anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-limit"),
)


@dataclass(frozen=True)
class LimitState:
    """A limit as progress shows it."""

    limit: int
    in_flight: int
    waiting: int
    #: Times it halved.
    throttled: int


class AdaptiveLimit:
    """The requests one provider may have open at once (see the module).

    Its bookkeeping is synchronous: `release` never waits, so a request cancelled while
    it gives its room back (an agent's framework that cancels twice, Ctrl-C on a timeout)
    still gives it back; a waiter is a future of the loop it waits in, so the limit
    serves one run after another, each with its own loop."""

    def __init__(self, ceiling: int, start: int = START) -> None:
        if ceiling < 1:
            raise ValueError("a provider's max_concurrency is at least 1")
        self.ceiling = ceiling
        self._limit = float(min(max(start, 1), ceiling))
        self._in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._generation = 0
        self._throttled = 0

    @property
    def limit(self) -> int:
        """The requests that may be open at once now."""
        return int(self._limit + 1e-9)  # three thirds make one, in floating point too

    def state(self) -> LimitState:
        """The limit, the requests open and waiting, and how often it halved."""
        return LimitState(self.limit, self._in_flight, len(self._waiters), self._throttled)

    async def acquire(self) -> int:
        """Wait for room under the limit and take it; the generation it was taken in, to
        hand back to `release`."""
        if self._in_flight < self.limit and not self._waiters:
            self._in_flight += 1
            return self._generation
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # given room, then cancelled: give it back
                self._in_flight -= 1
                self._wake()
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
            raise
        return self._generation

    def release(self, generation: int, *, throttled: bool, succeeded: bool = True) -> None:
        """Give the room back: the request succeeded (the limit grows), the provider
        throttled it (the limit halves, once per generation), or it failed otherwise (a
        5xx, a dropped connection: the limit stays)."""
        self._in_flight -= 1
        if throttled:
            if generation == self._generation:
                self._limit = max(1.0, self._limit / 2)
                self._generation += 1
                self._throttled += 1
        elif succeeded:
            # A whole request more once a round of `limit` requests succeeded.
            self._limit = min(float(self.ceiling), self._limit + 1 / self.limit)
        self._wake()

    def _wake(self) -> None:
        """Give the room there is to the requests waiting longest."""
        while self._waiters and self._in_flight < self.limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._in_flight += 1
                waiter.set_result(None)


def shared_limit(limits: dict[str, AdaptiveLimit], model: str, base_url: str, ceiling: int) -> AdaptiveLimit:
    """The run's limit of the provider at `base_url` serving `model`, made as first asked:
    keyed by the endpoint and model (a quota's), not by who asks (the agent, a judge, a
    simulated user of one table share it)."""
    key = f"{model} at {base_url}"
    found = limits.get(key)
    if found is None:
        found = limits[key] = AdaptiveLimit(ceiling)
    return found


def nearly_spent(headers: Mapping[str, str]) -> bool:
    """Whether a reply's rate-limit headers say its quota is nearly spent (a tenth or
    less left of one it names); False where it names none, or garbles them."""
    for remaining_name, limit_name in RATE_LIMIT_HEADERS:
        remaining, limit = headers.get(remaining_name), headers.get(limit_name)
        if remaining is None or limit is None:
            continue
        try:
            left, whole = float(remaining), float(limit)
        except ValueError:
            continue
        if whole > 0 and left / whole <= NEARLY_SPENT:
            return True
    return False


def describe(limits: Mapping[str, AdaptiveLimit]) -> str:
    """The limits as a progress line shows them: `concurrency 4/16, 2 waiting`."""
    parts = []
    for name, limit in sorted(limits.items()):
        state = limit.state()
        waiting = f", {state.waiting} waiting" if state.waiting else ""
        named = f"{name.split(' at ', 1)[0]} " if len(limits) > 1 else ""  # the model, not the URL
        parts.append(f"{named}concurrency {state.limit}/{limit.ceiling}{waiting}")
    return "; ".join(parts)
