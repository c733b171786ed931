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
import os
import pickle
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval.errors import SystemProblem
from zeroclaw_eval.run.worker import FRAME, TASK, Board, Work, serve

__all__ = ["Board", "Work", "chunks", "forkable", "in_workers"]

#: Chunks handed to a worker ahead of the one it runs, so it never waits for the parent.
_AHEAD = 2


def forkable() -> bool:
    """Whether workers can be forked safely here: on Linux (macOS's system libraries break
    in a forked child; elsewhere untested), with no other thread running (a child gets a
    copy of every lock, held or not, but only the forking thread)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


def chunks(count: int, jobs: int) -> list[range]:
    """Consecutive index ranges: enough per worker that a slow chunk does not leave the
    others idle at the end, few enough that the cost of each round trip stays small."""
    size = max(1, min(64, count // (jobs * 8)))
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


async def in_workers(count: int, jobs: int, work: Work, take: Callable[[Sequence[Any]], bool]) -> None:
    """Run `work` over `range(count)` in `jobs` forked workers (`chunks` of it), and give
    each chunk's results to `take` in index order. When `take`
    returns True the workers start no more work: what they skip, they report as they
    would have. Cancelled (a signal), the workers cancel what they are running, the
    results finished before that are still taken, and `CancelledError` goes on.

    A worker that dies (a crash in native code, an exit from inside the agent) is a
    `SystemProblem`: which case did it is not known, so no result of its chunk is made
    up. An error of the work itself (raised in a worker) is raised here.
    """
    shares = chunks(count, jobs)
    board = Board(len(shares))
    pool = _Pool(shares, min(jobs, len(shares)), board, asyncio.get_running_loop())
    try:
        pool.start(work)
        await _take_in_order(pool, take, board)
    finally:
        board.stop(cancel=True)  # (no-op after a normal end: every chunk is done)
        await pool.close()


async def _take_in_order(pool: _Pool, take: Callable[[Sequence[Any]], bool], board: Board) -> None:
    try:
        for future in pool.results:
            if take(_loaded(await future)):
                board.stop()
    except asyncio.CancelledError:
        board.stop(cancel=True)
        for index, future in enumerate(pool.results):
            if future.done() or index in pool.owner:  # what was handed out, comes back
                with suppress(SystemProblem):  # a worker that died meanwhile: not run
                    take(_loaded(await asyncio.shield(future)))
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


@dataclass
class _Worker:
    pid: int
    tasks: int  # the write end of its work pipe
    results: int  # the read end of its result pipe
    handed: deque[int] = field(default_factory=deque)  # chunks handed out, oldest first
    received: bytearray = field(default_factory=bytearray)
    finished: asyncio.Future[None] | None = None  # its result pipe reached its end


class _Pool:
    """The parent's side: forks the workers, hands out chunks, reads results back."""

    def __init__(self, shares: list[range], size: int, board: Board, loop: asyncio.AbstractEventLoop) -> None:
        self.shares = shares
        self.size = size  # how many workers
        self.board = board
        self.loop = loop
        self.results: list[asyncio.Future[tuple[int, bytes]]] = [loop.create_future() for _ in shares]
        self.workers: list[_Worker] = []
        self._next = 0
        #: Each chunk handed out so far, and the worker it went to (its result will come).
        self.owner: dict[int, _Worker] = {}

    def start(self, work: Work) -> None:
        # Buffered output would be written again by every child that flushes it.
        sys.stdout.flush()
        sys.stderr.flush()
        # Frozen, the parent's objects are skipped by the children's collections: their
        # pages stay shared instead of each collection writing to them and making a copy.
        gc.freeze()
        try:
            for _ in range(self.size):
                self.workers.append(self._fork(work))
        finally:
            gc.unfreeze()
        for worker in self.workers:
            worker.finished = self.loop.create_future()
            self.loop.add_reader(worker.results, self._readable, worker)
            self._feed(worker)

    def _fork(self, work: Work) -> _Worker:
        task_read, task_write = os.pipe()
        result_read, result_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: it never returns from here
            code = 1
            try:
                # Only its own ends: a parent that dies then closes this worker's last writer.
                for other in self.workers:
                    os.close(other.tasks)
                    os.close(other.results)
                os.close(task_write)
                os.close(result_read)
                serve(self.board, work, task_read, result_write)
                code = 0
            finally:
                with suppress(Exception):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(code)
        os.close(task_read)
        os.close(result_write)
        return _Worker(pid, task_write, result_read)

    def _feed(self, worker: _Worker) -> None:
        while len(worker.handed) < _AHEAD and self._next < len(self.shares) and not self.board.cancelling:
            chunk = self.shares[self._next]
            os.write(worker.tasks, TASK.pack(self._next, chunk.start, chunk.stop))  # never blocks
            worker.handed.append(self._next)
            self.owner[self._next] = worker
            self._next += 1

    def _readable(self, worker: _Worker) -> None:
        try:
            data = os.read(worker.results, 1 << 20)
        except OSError:
            data = b""
        if not data:
            self._ended(worker)
            return
        received = worker.received
        received += data
        while len(received) >= FRAME.size:
            kind, length = FRAME.unpack_from(received)
            if len(received) < FRAME.size + length:
                break
            blob = bytes(received[FRAME.size : FRAME.size + length])
            del received[: FRAME.size + length]
            chunk = worker.handed.popleft()
            if not self.results[chunk].done():
                self.results[chunk].set_result((kind, blob))
            self._feed(worker)

    def _ended(self, worker: _Worker) -> None:
        self.loop.remove_reader(worker.results)
        os.close(worker.results)
        if worker.finished is not None and not worker.finished.done():
            worker.finished.set_result(None)
        if worker.handed:  # it ended with work in hand: it died
            self.board.stop(cancel=True)
            died = SystemProblem(
                "a worker process died while running cases; run with --jobs 1 to find the case that ends it"
            )
            for chunk in worker.handed:
                if not self.results[chunk].done():
                    self.results[chunk].set_exception(died)
            worker.handed.clear()

    async def close(self) -> None:
        """Tell every worker there is no more work, read what they still send until each
        has ended (a worker blocked writing a result would never end), and reap them."""
        for worker in self.workers:
            with suppress(OSError):
                os.close(worker.tasks)
        waiting = [worker.finished for worker in self.workers if worker.finished is not None]
        if waiting:
            await asyncio.shield(asyncio.gather(*waiting))
        for worker in self.workers:
            with suppress(ChildProcessError):
                os.waitpid(worker.pid, 0)
        for future in self.results:  # a result nobody took (an error ended the run first)
            if future.done() and not future.cancelled():
                future.exception()
