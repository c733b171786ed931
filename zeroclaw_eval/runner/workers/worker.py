"""A forked worker's side of `runner.workers`: it takes chunks of work from its own pipe,
runs each in an event loop of its own, and writes the results back down another pipe;
and the `Board` it shares with the parent and the other workers."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import mmap
import os
import pickle
import signal
import struct
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any

from zeroclaw_eval.errors import SystemProblem, exception_words

#: What a worker runs for one chunk: the indexes, the board it shares with the others,
#: and where each result goes as it is made. Results already put are kept when the chunk
#: is cancelled.
Work = Callable[[range, "Board", Callable[[Any], None]], Awaitable[None]]
#: How often a worker looks whether the parent asked it to stop, or is gone, in seconds.
POLL = 0.05
TASK = struct.Struct("<qqq")  # a chunk: its number, start, stop
FRAME = struct.Struct("<Bq")  # a result: kind (0 results, 1 error), length of the pickle


class Board:
    """What the parent and every worker see alike, in memory shared across the fork: the
    parent's two flags (start no more work; stop the work running) and a count per chunk
    (its failures, say), which the worker running the chunk adds to. Every byte has one
    writer, so no lock is ever held: a worker killed mid-write blocks no one."""

    def __init__(self, chunks: int) -> None:
        self._memory = mmap.mmap(-1, 8 + 8 * chunks)  # anonymous and shared
        #: The chunk this process runs (-1 in the parent).
        self.slot = -1

    @property
    def stopping(self) -> bool:
        """Whether the parent asked that no more work start."""
        return self._memory[0] != 0

    @property
    def cancelling(self) -> bool:
        """Whether the parent asked that the running work stop."""
        return self._memory[1] != 0

    def stop(self, *, cancel: bool = False) -> None:
        """(Parent) Ask that no more work start; with `cancel`, that the running work stop."""
        self._memory[0] = 1
        if cancel:
            self._memory[1] = 1

    @property
    def count(self) -> int:
        """(Worker) The count of every chunk up to this one, this one included: all that
        comes before the work in hand, in index order, in whichever worker it ran."""
        return sum(struct.unpack_from(f"<{self.slot + 1}q", self._memory, 8))

    def add(self) -> None:
        """(Worker) Add one to the count of the chunk in hand."""
        offset = 8 + 8 * self.slot
        (mine,) = struct.unpack_from("<q", self._memory, offset)
        struct.pack_into("<q", self._memory, offset, mine + 1)


def serve(board: Board, work: Work, tasks: int, results: int, parent: int) -> None:
    """The worker's life: chunks from `tasks` until its end, results to `results`;
    `parent` is the pid of the process that forked it, read before the fork (a parent
    that died just after would otherwise be mistaken for init)."""
    # The parent owns the signals: SIGINT from a terminal reaches the whole process group,
    # and the parent answers it with `Board.stop(cancel=True)`, which the worker watches;
    # a worker that died of the signal instead would leave its case's workspace behind.
    # A handler that does nothing, not SIG_IGN: a process a case starts (a tool that
    # shells out) must still die of Ctrl-C, and exec keeps an ignored signal ignored.
    with suppress(ValueError):  # only the main thread may (it forked, unless a host's thread did)
        signal.set_wakeup_fd(-1)  # the inherited one belongs to the parent's event loop
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, _ignore)
    loop = asyncio.new_event_loop()
    with os.fdopen(tasks, "rb", buffering=0) as incoming:
        while True:
            task = _read_exact(incoming, TASK.size)
            if task is None:  # the parent has no more work, or is gone
                return
            board.slot, start, stop = TASK.unpack(task)
            found: list[Any] = []
            try:
                _watched(loop, work(range(start, stop), board, found.append), board, parent)
                kind, blob = 0, pickled(found)
            except Exception as exc:  # an error of the work: the parent raises it
                kind, blob = 1, _pickled_error(exc)
            try:
                _write_all(results, FRAME.pack(kind, len(blob)) + blob)
            except BrokenPipeError:  # the parent is gone
                return


def _ignore(number: int, frame: object) -> None:
    """A signal the parent answers for the worker."""


def _watched(loop: asyncio.AbstractEventLoop, work: Awaitable[None], board: Board, parent: int) -> None:
    """Run `work` to its end, unless the parent asks that it stop or is gone (killed):
    then the case in hand is cancelled, so it removes its workspace, and the chunk ends
    with what is finished. One timer looks every `POLL` seconds, not a wait per case."""
    task = asyncio.ensure_future(work, loop=loop)
    timer: list[asyncio.TimerHandle] = []
    asked: list[bool] = []  # whether the cancel is this watch's (the parent's stop)

    def look() -> None:
        if board.cancelling or os.getppid() != parent:
            asked.append(True)
            task.cancel()
        else:
            timer[:] = [loop.call_later(POLL, look)]

    timer.append(loop.call_later(POLL, look))
    try:
        loop.run_until_complete(task)
    except asyncio.CancelledError:
        if not task.cancelled():
            raise
        if not asked:
            # Cancelled by the code it ran (an agent that cancels its own task), not by
            # the parent: the chunk's later cases never ran, and ending quietly here
            # would leave them out of a report that then passes.
            raise SystemProblem(
                "a case run in a worker process cancelled the task that ran it (an agent that"
                " cancels its own task?), so the cases after it in its share were not run;"
                " run with --jobs 1 to see which case and where"
            ) from None
    finally:
        timer[0].cancel()


def pickled(value: Any) -> bytes:
    """`value` pickled, each dataclass in it as its class and its fields' values."""
    out = io.BytesIO()
    _Pickler(out, pickle.HIGHEST_PROTOCOL).dump(value)
    return out.getvalue()


#: Per class: the names of its fields when the class can be rebuilt by calling it with
#: their values in order (a dataclass with the `__init__` dataclasses wrote, every field
#: a positional argument, no `__post_init__`); () when it cannot, and is pickled as
#: pickle does by default.
_REBUILT: dict[type, tuple[str, ...]] = {}


def _rebuilt_fields(kind: type) -> tuple[str, ...]:
    names = _REBUILT.get(kind)
    if names is None:
        names = ()
        if dataclasses.is_dataclass(kind) and _generated_init(kind):
            found = dataclasses.fields(kind)
            positional = all(f.init and not f.kw_only for f in found)
            if positional and not hasattr(kind, "__post_init__"):
                names = tuple(f.name for f in found)
        _REBUILT[kind] = names
    return names


def _generated_init(kind: type) -> bool:
    # dataclasses compiles the `__init__` it writes from source text (its code comes from
    # "<string>"), and keeps one the class (or a subclass) wrote itself.
    code = getattr(getattr(kind, "__init__", None), "__code__", None)
    return code is not None and code.co_filename == "<string>"


class _Pickler(pickle.Pickler):
    """Pickles a report's dataclasses as (class, field values), rebuilt by the class's own
    `__init__`. By default pickle goes through `__reduce_ex__` and, for the frozen and
    slotted ones, a `__getstate__`/`__setstate__` pair written in Python, for each of a
    case's few dozen records: three times slower to load, and the parent loads every
    case's report alone while the workers run."""

    def reducer_override(self, obj: Any) -> Any:
        names = _rebuilt_fields(type(obj))
        if not names:
            return NotImplemented
        return type(obj), tuple([getattr(obj, name) for name in names])


def _pickled_error(exc: Exception) -> bytes:
    try:
        blob = pickle.dumps(exc, pickle.HIGHEST_PROTOCOL)
        pickle.loads(blob)  # one that pickles but cannot be rebuilt from its arguments
        return blob
    except Exception:  # an exception that cannot travel: its words still can
        return pickle.dumps(RuntimeError(exception_words(exc)), pickle.HIGHEST_PROTOCOL)


def _read_exact(stream: Any, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        more = stream.read(size - len(data))
        if not more:
            return None
        data += more
    return data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
