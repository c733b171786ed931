"""Work spread over forked worker processes, its results taken back in order.

Why processes: a replayed case is pure Python work (admission, the agent loop, grading),
so asyncio tasks in one process share one core; workers use as many as `--jobs` asks.
Why fork: a worker starts as a copy of the parent, with the agent factory, the tools and
the selected fixtures already loaded, so nothing but a range of indexes goes out and
nothing but the results comes back. Where fork is not safe (no fork, macOS, another
thread running that a child would inherit mid-step), `forkable` says so and the caller
runs its work in-process instead.

The standard library's `ProcessPoolExecutor` does the pooling: unlike `multiprocessing.
Pool`, it fails every pending future when a worker dies instead of waiting forever.
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import pickle
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from zeroclaw_eval.errors import SystemProblem

#: What a worker runs for one chunk: the indexes, what the workers share, and where each
#: result goes as it is made. Results already put are kept when the chunk is cancelled.
Work = Callable[[range, "Shared", Callable[[Any], None]], Awaitable[None]]
#: How often a worker looks whether the parent was interrupted, in seconds.
_CANCEL_POLL = 0.05


class Shared:
    """What the parent and every worker of one run see alike: whether the parent asked
    for no more work to start, and a count the workers add to (failures, say), so that
    one worker's news stops the others at once rather than when its chunk comes back."""

    def __init__(self, context: Any) -> None:
        self._stopping, self._cancelling = context.Event(), context.Event()
        self._count = context.Value("q", 0)

    @property
    def stopping(self) -> bool:
        """Whether the parent asked that no more work start."""
        return bool(self._stopping.is_set())

    @property
    def count(self) -> int:
        """The shared count, as the workers have added to it so far."""
        return int(self._count.value)

    def add(self) -> None:
        """Add one to the shared count."""
        with self._count.get_lock():
            self._count.value += 1

    def stop(self, *, cancel: bool = False) -> None:
        """Ask that no more work start; with `cancel`, that the running work stop too."""
        self._stopping.set()
        if cancel:
            self._cancelling.set()

    @property
    def cancelling(self) -> bool:
        """Whether the parent asked that the running work stop."""
        return bool(self._cancelling.is_set())


def forkable() -> bool:
    """Whether workers can be forked safely here: fork exists and is not macOS's (whose
    system libraries break in a forked child), and no other thread is running (a child
    gets a copy of every lock, held or not, but only the forking thread)."""
    if sys.platform == "darwin" or "fork" not in multiprocessing.get_all_start_methods():
        return False
    return threading.active_count() == 1


def chunks(count: int, jobs: int) -> list[range]:
    """Consecutive index ranges: enough per worker that a slow chunk does not leave the
    others idle at the end, few enough that the cost of each round trip stays small."""
    size = max(1, min(64, count // (jobs * 8)))
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


async def in_workers(count: int, jobs: int, work: Work, take: Callable[[Sequence[Any]], bool]) -> None:
    """Run `work` over `range(count)` in `jobs` forked workers, and give each chunk's
    results to `take` in index order. When `take` returns True the workers start no
    more work (what they skip, they report as they would have). Cancelled (a signal),
    the workers cancel what they are running, and the results finished before that are
    still taken before `CancelledError` goes on.

    A worker that dies (a crash in native code, an exit from inside the agent) is a
    `SystemProblem`: which case did it is not known, so no result of its chunk is made up.
    """
    context = multiprocessing.get_context("fork")
    shared = Shared(context)
    # Frozen, the parent's objects are skipped by the children's collections: their pages
    # stay shared instead of each collection writing to them and making each child copy.
    gc.freeze()
    try:
        shares = chunks(count, jobs)
        executor = ProcessPoolExecutor(
            min(jobs, len(shares)), mp_context=context, initializer=_start_worker, initargs=(work, shared)
        )
        # The first submit forks every worker at once (the executor does so under fork).
        pending = [executor.submit(_run_chunk, chunk) for chunk in shares]
    finally:
        gc.unfreeze()
    try:
        await _take_in_order(pending, take, shared)
    except BrokenProcessPool as exc:
        raise SystemProblem(
            f"a worker process died while running cases ({exc}); run with --jobs 1 to find"
            " the case that ends it"
        ) from None
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


async def _take_in_order(
    pending: list[Future[bytes]], take: Callable[[Sequence[Any]], bool], shared: Shared
) -> None:
    try:
        for future in pending:
            if take(_results(await asyncio.wrap_future(future))):
                shared.stop()
    except asyncio.CancelledError:
        shared.stop(cancel=True)
        for future in pending:
            if not future.cancel():  # a chunk already started: take what it finished
                take(_results(await asyncio.shield(asyncio.wrap_future(future))))
        raise
    except BaseException:
        shared.stop(cancel=True)  # the run fails with this error: the rest of its work is moot
        raise


def _results(blob: bytes) -> list[Any]:
    # Loading makes thousands of container objects at once, and each burst of them starts
    # a collection over everything young; the loaded results hold no cycles to find.
    with _collector_paused():
        found: list[Any] = pickle.loads(blob)  # our own forked child wrote it
    return found


@contextmanager
def _collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# The worker's side. Its state is set once per process by the initializer.
_worker: dict[str, Any] = {}


def _start_worker(work: Work, shared: Shared) -> None:
    # The parent owns the signals: SIGINT from a terminal reaches the whole process group,
    # and the parent answers it with `Shared.stop(cancel=True)`, which the worker watches. A
    # worker dying on the signal instead would leave its case's workspace behind.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if threading.current_thread() is threading.main_thread():
        signal.set_wakeup_fd(-1)  # the inherited one is the parent's event loop
    _worker.update(work=work, shared=shared, loop=asyncio.new_event_loop())


def _run_chunk(chunk: range) -> bytes:
    found: list[Any] = []
    loop: asyncio.AbstractEventLoop = _worker["loop"]
    shared: Shared = _worker["shared"]
    loop.run_until_complete(_watched(_worker["work"](chunk, shared, found.append), shared))
    return pickle.dumps(found, pickle.HIGHEST_PROTOCOL)


async def _watched(work: Awaitable[None], shared: Shared) -> None:
    task = asyncio.ensure_future(work)
    while not task.done():
        await asyncio.wait({task}, timeout=_CANCEL_POLL)
        if shared.cancelling:
            task.cancel()
            await asyncio.wait({task})
    if not task.cancelled():
        task.result()  # an error of the work itself goes back to the parent
