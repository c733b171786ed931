"""Work spread over forked worker processes, its results taken back in order.

Why processes: a replayed case is pure Python work (admission, the agent loop, grading),
so asyncio tasks in one process share one core; workers use as many as `--jobs` asks.
Why fork: a worker starts as a copy of the parent, with the agent factory, the tools and
the selected fixtures already loaded, so nothing but ranges of indexes goes out and
nothing but the results comes back. Where fork is not safe (not Linux; another thread
running, which a child would inherit mid-step), `forkable` says so and the caller runs
its work in-process instead.

Why not `concurrent.futures.ProcessPoolExecutor`: its workers outlive a parent killed
with SIGKILL (each holds the write end of the pipe it waits on), it stops a broken pool
with SIGTERM, which a worker must survive to remove the workspace of the case it is in
when a terminal signals the whole group, and its queues and shared values take locks
that a worker killed at the wrong moment leaves held. Here each worker has a pipe of its
own for work and one for results, holds no end of any other worker's pipes, and shares
with the others only a board of flags and counters, each with one writer and no lock.
"""

from __future__ import annotations

import asyncio
import gc
import math
import os
import pickle
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from zeroclaw_eval.errors import SystemProblem
from zeroclaw_eval.runner.workers.pool import Pool
from zeroclaw_eval.runner.workers.worker import Board, Work

__all__ = ["Board", "Work", "chunks", "forkable", "in_workers", "usable_cpus"]


def forkable() -> bool:
    """Whether workers can be forked safely here: on Linux (macOS's system libraries break
    in a forked child; elsewhere untested), with no other thread running, Python's or a
    native library's (a child gets a copy of every lock, held or not, but only the
    forking thread)."""
    if not sys.platform.startswith("linux") or threading.active_count() != 1:
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:  # no /proc: Python's own count is all there is
        return True


def usable_cpus() -> int:
    """The CPUs this process may use (at least 1): its affinity, which `taskset` or a
    container's cpuset narrows, and no more than its cgroup's CPU quota allows (a
    container run with `--cpus 2` on a 64-core host may use two), rather than every CPU
    of the machine."""
    try:
        cpus = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity on macOS and Windows: every CPU counts
        return max(1, os.cpu_count() or 1)
    quota = cgroup_cpu_quota()
    return cpus if quota is None else max(1, min(cpus, math.ceil(quota)))


def cgroup_cpu_quota(
    root: Path = Path("/sys/fs/cgroup"), membership: Path = Path("/proc/self/cgroup")
) -> float | None:
    """How many CPUs' worth of time this process's cgroup may use (None: no limit, or no
    cgroup to read): the smallest quota on the way from its own cgroup up to the root,
    as the kernel enforces each. Reads cgroup v2 (`cpu.max`: quota and period, or `max`)
    and v1 (`cpu.cfs_quota_us`, -1 for none, over `cpu.cfs_period_us`)."""
    try:
        lines = membership.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    found: list[float] = []
    for line in lines:
        _, controllers, path = line.split(":", 2) if line.count(":") >= 2 else ("", "", "")
        if controllers == "" and path:  # v2: one unified hierarchy
            found.extend(_quotas(root, path, _v2_quota))
        elif "cpu" in controllers.split(","):  # v1: the cpu controller's hierarchy
            found.extend(_quotas(root / controllers, path, _v1_quota))
    return min(found, default=None)


def _quotas(root: Path, path: str, read: Callable[[Path], float | None]) -> list[float]:
    folder = root / path.strip("/") if path.strip("/") else root
    found = []
    while True:
        quota = read(folder)
        if quota is not None:
            found.append(quota)
        if folder == root or root not in folder.parents:
            return found
        folder = folder.parent


def _v2_quota(folder: Path) -> float | None:
    try:
        quota, period = (folder / "cpu.max").read_text(encoding="ascii").split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError, ZeroDivisionError):
        return None


def _v1_quota(folder: Path) -> float | None:
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text(encoding="ascii"))
        period = int((folder / "cpu.cfs_period_us").read_text(encoding="ascii"))
        return None if quota <= 0 else quota / period
    except (OSError, ValueError, ZeroDivisionError):
        return None


def chunks(count: int, jobs: int) -> list[range]:
    """Consecutive index ranges: enough per worker that a slow chunk does not leave the
    others idle at the end, few enough that the cost of each round trip stays small."""
    size = max(1, min(64, count // (jobs * 8)))
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


async def in_workers(count: int, jobs: int, work: Work, take: Callable[[Sequence[Any]], bool]) -> None:
    """Run `work` over `range(count)` in `jobs` forked workers (`chunks` of it), and give
    each chunk's results to `take` in index order, each chunk once. When `take` returns
    True the workers start no more work: what they skip, they report as they would have.
    Cancelled (a signal), the workers cancel what they are running, the results of the
    chunks handed out are still taken, and `CancelledError` goes on.

    A worker that dies (a crash in native code, an exit from inside the agent) is a
    `SystemProblem`: which case did it is not known, so no result of its chunk is made
    up. So is a worker that cannot be started. An error of the work itself (raised in a
    worker) is raised here.
    """
    shares = chunks(count, jobs)
    board = Board(len(shares))
    pool = Pool(shares, board, asyncio.get_running_loop())
    try:
        pool.start(work, min(jobs, len(shares)))
        await _take_in_order(pool, take, board)
    finally:
        board.stop(cancel=True)  # (no-op after a normal end: every chunk is done)
        await pool.close()


async def _take_in_order(pool: Pool, take: Callable[[Sequence[Any]], bool], board: Board) -> None:
    taken = 0  # chunks given to `take`, each once
    try:
        while taken < len(pool.results):
            # Shielded: a cancellation (a signal) is this task's; the chunk's result must
            # still come, and be taken below.
            frame = await asyncio.shield(pool.future(taken))
            pool.results[taken] = None  # the pool lets go of it
            taken += 1
            if take(_loaded(frame)):
                board.stop()
    except asyncio.CancelledError:
        board.stop(cancel=True)
        # Chunks are handed out in order: the first one never handed out ends the list.
        while taken < len(pool.results) and taken in pool.owner:
            with suppress(SystemProblem):  # a worker that died meanwhile: its cases not run
                take(_loaded(await pool.future(taken)))
            pool.results[taken] = None
            taken += 1
        raise


def _loaded(frame: tuple[int, bytes]) -> list[Any]:
    kind, blob = frame
    # Loading makes thousands of container objects at once, and each burst of them starts
    # a collection over everything young; the loaded results hold no cycles to find.
    with _collector_paused():
        loaded = pickle.loads(blob)  # our own forked child wrote it
    if kind == 1:
        raise loaded
    found: list[Any] = loaded
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
