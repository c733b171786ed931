"""The parent's side of `runner.workers`: it forks the workers, hands out chunks of work
down each one's own pipe, reads the results back as they come (an asyncio reader per
worker), and at the end reaps every worker, whatever ended the run."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
from collections import deque
from contextlib import suppress
from dataclasses import dataclass, field

from zeroclaw_eval.errors import ExitCode, SystemProblem
from zeroclaw_eval.runner.workers.worker import FRAME, TASK, Board, Work, serve

#: Chunks handed to a worker ahead of the one it runs, so it never waits for the parent.
_AHEAD = 2


@dataclass
class _Worker:
    pid: int
    tasks: int  # the write end of its work pipe
    results: int  # the read end of its result pipe
    finished: asyncio.Future[None]  # its result pipe reached its end
    handed: deque[int] = field(default_factory=deque)  # chunks handed out, oldest first
    received: bytearray = field(default_factory=bytearray)
    gone: bool = False  # its work pipe refused a chunk: it ended


#: How long a worker told to stop may take to end before it is killed, in seconds: one
#: stuck in code that cannot be cancelled (a synchronous loop) would hold the run for ever.
_GRACE = 30.0


class Pool:
    """The parent's side: forks the workers, hands out chunks, reads results back."""

    def __init__(self, shares: list[range], board: Board, loop: asyncio.AbstractEventLoop) -> None:
        self.shares = shares
        self.board = board
        self.loop = loop
        #: Each chunk's result to come; None once it was taken (a run holds each once).
        self.results: list[asyncio.Future[tuple[int, bytes]] | None] = [loop.create_future() for _ in shares]
        self.workers: list[_Worker] = []
        self._next = 0
        #: The chunks handed out so far (their results will come).
        self.owner: set[int] = set()

    def future(self, chunk: int) -> asyncio.Future[tuple[int, bytes]]:
        """The result of `chunk`, still to be taken."""
        future = self.results[chunk]
        assert future is not None, "each chunk's result is taken once"
        return future

    def start(self, work: Work, size: int) -> None:
        """Fork `size` workers and hand each its first chunks."""
        # Buffered output would be written again by every child that flushes it.
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        # Frozen, the parent's objects are skipped by the children's collections: their
        # pages stay shared instead of each collection writing to them and making a copy.
        # Not when a host program froze objects of its own: unfreezing would thaw them too.
        freeze = gc.get_freeze_count() == 0
        if freeze:
            gc.freeze()
        try:
            for _ in range(size):
                worker = self._fork(work, parent)
                self.workers.append(worker)
                self.loop.add_reader(worker.results, self._readable, worker)
        finally:
            if freeze:
                gc.unfreeze()
        for worker in self.workers:
            self._feed(worker)

    def _fork(self, work: Work, parent: int) -> _Worker:
        opened: list[int] = []
        try:
            opened.extend(os.pipe())
            opened.extend(os.pipe())
            pid = os.fork()
        except OSError as exc:  # out of processes (a container's limit) or of descriptors
            for fd in opened:
                os.close(fd)
            raise SystemProblem(
                f"cannot start a worker process: {exc.strerror or exc}; run with fewer --jobs"
            ) from None
        task_read, task_write, result_read, result_write = opened
        if pid == 0:  # the child: it never returns from here
            code = ExitCode.FAILED
            try:
                # Only its own ends: a parent that dies then closes this worker's last writer.
                for other in self.workers:
                    os.close(other.tasks)
                    os.close(other.results)
                os.close(task_write)
                os.close(result_read)
                serve(self.board, work, task_read, result_write, parent)
                code = ExitCode.OK
            finally:
                with suppress(Exception):
                    sys.stdout.flush()
                    sys.stderr.flush()
                os._exit(code)
        os.close(task_read)
        os.close(result_write)
        return _Worker(pid, task_write, result_read, self.loop.create_future())

    def _feed(self, worker: _Worker) -> None:
        while len(worker.handed) < _AHEAD and self._next < len(self.shares) and not self.board.cancelling:
            if worker.gone:
                return
            chunk = self.shares[self._next]
            try:
                os.write(worker.tasks, TASK.pack(self._next, chunk.start, chunk.stop))  # never blocks
            except OSError:  # it ended: its result pipe's end says how, and the chunk stays
                worker.gone = True
                return
            worker.handed.append(self._next)
            self.owner.add(self._next)
            self._next += 1

    def _readable(self, worker: _Worker) -> None:
        try:
            self._read(worker)
        except Exception as exc:  # asyncio would only log it, and the run would wait for ever
            self.board.stop(cancel=True)
            self._ended(worker, SystemProblem(f"cannot read a worker's results: {exc}"))

    def _read(self, worker: _Worker) -> None:
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
            future = self.results[worker.handed.popleft()]
            if future is not None and not future.done():
                future.set_result((kind, blob))
            self._feed(worker)

    def _ended(self, worker: _Worker, error: SystemProblem | None = None) -> None:
        """The worker's result pipe reached its end (or cannot be read): what it had in
        hand fails with `error`, by default the news of its death."""
        if worker.finished.done():
            return
        self.loop.remove_reader(worker.results)
        os.close(worker.results)
        worker.finished.set_result(None)
        if not worker.handed:
            return  # it had no work: it ended as asked
        self.board.stop(cancel=True)
        died = error or SystemProblem(
            "a worker process died while running cases; run with --jobs 1 to find the case that ends it"
        )
        for chunk in worker.handed:
            future = self.results[chunk]
            if future is not None and not future.done():
                future.set_exception(died)
        worker.handed.clear()

    async def close(self) -> None:
        """Tell every worker there is no more work, read what they still send until each
        has ended (a worker blocked writing a result would never end), and reap them; a
        worker that does not end within `_GRACE` seconds is killed."""
        for worker in self.workers:
            with suppress(OSError):
                os.close(worker.tasks)
        try:
            waiting = [worker.finished for worker in self.workers]
            if waiting:
                done, _ = await asyncio.wait(waiting, timeout=_GRACE)
                if len(done) < len(waiting):
                    for worker in self.workers:
                        if not worker.finished.done():
                            with suppress(ProcessLookupError):
                                os.kill(worker.pid, signal.SIGKILL)
                    await asyncio.shield(asyncio.gather(*waiting))
        finally:
            # Whatever stopped the wait (a second signal in a host program, say): no pipe
            # left open, no child left unreaped. A closed pipe ends a worker writing to it.
            for worker in self.workers:
                if not worker.finished.done():
                    self.loop.remove_reader(worker.results)
                    os.close(worker.results)
                    worker.finished.set_result(None)
            for worker in self.workers:
                with suppress(ChildProcessError):
                    os.waitpid(worker.pid, 0)
            for future in self.results:  # a result nobody took (an error ended the run first)
                if future is not None and future.done() and not future.cancelled():
                    future.exception()
