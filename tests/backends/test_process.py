"""`zeroclaw_eval.backends.process`: output read as lines, whatever the process writes."""

from __future__ import annotations

import asyncio

import pytest

from zeroclaw_eval.backends import process as agent_process
from zeroclaw_eval.backends.process import AgentProcess


def lines_of(data: bytes, chunk: int = 7) -> list[str | int]:
    """What `_read` hands its sink for `data`, fed in chunks of `chunk` bytes."""

    async def read() -> list[str | int]:
        stream = asyncio.StreamReader()
        for at in range(0, len(data), chunk):
            stream.feed_data(data[at : at + chunk])
        stream.feed_eof()
        found: list[str | int] = []
        closed = asyncio.Event()
        await AgentProcess._read(stream, found.append, closed)
        assert closed.is_set()
        return found

    return asyncio.run(read())


def test_lines_are_split_across_chunks_and_crlf_is_one_line_end() -> None:
    assert lines_of(b"first line\r\nsecond\n\nlast without newline") == [
        "first line",
        "second",
        "",
        "last without newline",
    ]


def test_bytes_that_are_not_utf8_are_replaced_not_an_error() -> None:
    assert lines_of(b"ok \xff\xfe end\n") == ["ok \ufffd\ufffd end"]


def test_a_line_over_the_limit_is_left_out_and_its_length_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agent_process, "LINE_LIMIT", 10)
    assert lines_of(b"short\n" + b"x" * 25 + b"\nafter\n" + b"y" * 12) == ["short", 25, "after", 12]


def test_the_stderr_tail_keeps_the_last_lines() -> None:
    async def run() -> list[str]:
        process = await AgentProcess.start(
            ["sh", "-c", "for i in $(seq 1 100); do echo line $i >&2; done"],
            cwd=__import__("pathlib").Path.cwd(),
            env={"PATH": "/usr/bin:/bin"},
            on_line=lambda line: None,
            stdin=False,
        )
        await process.exited(5)
        await process.end(0)
        return list(process.stderr)

    tail = asyncio.run(run())
    assert tail[-1] == "line 100"
    assert len(tail) == agent_process.TAIL_LINES
