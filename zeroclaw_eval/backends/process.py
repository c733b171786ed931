"""A child process the harness owns: started in its own process group, its output read
the whole time it lives, and ended (with everything it started) within a bounded time.

Both output pipes are drained from the start by reader tasks, whatever the process
writes and whenever: a pipe left unread fills up and blocks the writer (and, in
asyncio, keeps `wait()` from returning). stdout is split into lines handed to a callback;
a line longer than `LINE_LIMIT` is left out (the callback hears how long it was);
bytes that are not UTF-8 are replaced, never an error. stderr keeps its last lines.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

#: Lines of stderr (and of stray stdout) kept for the report, and the characters kept of
#: each: the tail is bounded in size, not only in lines (40 lines of 16 MiB each, over a
#: few errored cases, once made a report of gigabytes).
TAIL_LINES = 40
TAIL_LINE_CHARS = 1024
#: The longest stdout line read (bytes); a longer one is left out.
LINE_LIMIT = 16 * 1024 * 1024
#: How long ending the process may wait at each stage before going on.
_STAGE_SECS = 5.0
_CHUNK = 64 * 1024

#: Called with each stdout line, or with the byte length of a line too long to keep.
LineSink = Callable[[str | int], None]


def tail_line(line: str | int) -> str:
    """A line (or the length of one too long to read) as a tail of output keeps it: at
    most `TAIL_LINE_CHARS` characters, saying how many more there were."""
    if isinstance(line, int):
        return f"<a line of {line} bytes, left out>"
    if len(line) <= TAIL_LINE_CHARS:
        return line
    return f"{line[:TAIL_LINE_CHARS]}… <{len(line) - TAIL_LINE_CHARS:,} more characters>"


class AgentProcess:
    """A running child process whose output is always read."""

    def __init__(self, process: asyncio.subprocess.Process, on_line: LineSink) -> None:
        self._process = process
        self._on_line = on_line
        self.stderr: deque[str] = deque(maxlen=TAIL_LINES)
        self.stdout_closed = asyncio.Event()
        assert process.stdout is not None
        assert process.stderr is not None
        self._readers = [
            asyncio.ensure_future(self._read(process.stdout, on_line, self.stdout_closed)),
            asyncio.ensure_future(self._read(process.stderr, self._stderr_line, None)),
        ]

    @classmethod
    async def start(
        cls, argv: Sequence[str], cwd: Path, env: Mapping[str, str], on_line: LineSink, *, stdin: bool
    ) -> AgentProcess:
        """Start `argv` in `cwd` with `env`, in a new process group; `OSError` if it cannot."""
        if not hasattr(os, "killpg"):  # pragma: no cover - refused earlier, at parse time
            raise OSError("agent commands need POSIX process groups")
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,  # its own process group: ended whole
        )
        return cls(process, on_line)

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    async def send(self, line: str) -> None:
        """Write one line to stdin; `BrokenPipeError` / `ConnectionResetError` once it is closed."""
        stdin = self._process.stdin
        assert stdin is not None
        stdin.write(line.encode("utf-8"))
        await stdin.drain()

    async def exited(self, seconds: float) -> int | None:
        """Wait up to `seconds` for the process to exit; its exit code, or None if it runs on."""
        try:
            return await asyncio.wait_for(self._process.wait(), seconds)
        except asyncio.TimeoutError:
            return None

    async def end(self, grace: float) -> int | None:
        """Close stdin and give the process `grace` seconds to exit by itself, then kill its
        process group; every wait is bounded, and the pipes are closed in the end. The code
        the process exited with by itself, within the grace; None if it was killed."""
        stdin = self._process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        code = self._process.returncode
        if grace > 0 and code is None:
            code = await self.exited(grace)
        try:
            os.killpg(self._process.pid, signal.SIGKILL)  # the group: whatever it started too
        except (ProcessLookupError, PermissionError):
            pass  # already gone
        await self.exited(_STAGE_SECS)
        # A process that left the group (a new session of its own) may still hold the
        # pipes open; the readers stop here rather than wait for an end that never comes.
        for reader in self._readers:
            reader.cancel()
        await asyncio.wait(self._readers, timeout=_STAGE_SECS)
        # asyncio's Process has no public close: without it, a transport whose pipes are
        # still held open is closed by the garbage collector after the loop is gone, which
        # prints "Event loop is closed" on the user's terminal.
        transport = getattr(self._process, "_transport", None)
        if transport is not None:
            transport.close()
        return code

    def _stderr_line(self, line: str | int) -> None:
        self.stderr.append(tail_line(line))

    @staticmethod
    async def _read(stream: asyncio.StreamReader, sink: LineSink, closed: asyncio.Event | None) -> None:
        """Read `stream` to its end in chunks, handing `sink` each line."""
        pending = bytearray()
        skipping = 0  # bytes of an over-long line being left out
        try:
            while chunk := await stream.read(_CHUNK):
                start = 0
                while (newline := chunk.find(b"\n", start)) >= 0:
                    piece = chunk[start:newline]
                    if skipping or len(pending) + len(piece) > LINE_LIMIT:
                        sink(skipping + len(pending) + len(piece))
                    else:
                        sink((bytes(pending) + piece).decode("utf-8", errors="replace").rstrip("\r"))
                    pending.clear()
                    skipping = 0
                    start = newline + 1
                rest = chunk[start:]
                if skipping or len(pending) + len(rest) > LINE_LIMIT:
                    skipping += len(pending) + len(rest)
                    pending.clear()
                else:
                    pending += rest
            if pending or skipping:
                sink(skipping + len(pending) if skipping else pending.decode("utf-8", errors="replace"))
        finally:
            if closed is not None:
                closed.set()
