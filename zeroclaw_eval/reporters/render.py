"""Rendering a report into an output: the one helper that owns it.

A reporter writes to an open text stream; this opens it. `-` is stdout; a file is
written whole or not at all (through a temporary sibling renamed into place, so a
reporter that raises, or a crash half-way, never leaves a half-written file), and its
parent folders are made. A format that streams is written as it is made, to a file or
to stdout; any other is made whole first, so a reporter that raises writes nothing. Every
output is UTF-8, a lone surrogate written as its visible `\\udXXX` escape rather than
failing (what `safety.encoded` writes).
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from zeroclaw_eval._support.files import atomic_writer, write_atomic
from zeroclaw_eval.errors import ReporterError, exception_words
from zeroclaw_eval.report.model import SuiteReport
from zeroclaw_eval.reporters.registry import Reporter, ReportT, TextSink, get_reporter
from zeroclaw_eval.reporters.safety import encodable, encoded, stop_commands


def render_report(
    report: SuiteReport,
    fmt: str,
    output: str = "-",
    *,
    color: bool = False,
    verbose: bool = False,
    quiet: bool = False,
    in_ci_log: bool = False,
) -> Path | None:
    """Render a suite `report` as its format `fmt` and write it to `output` (`-`: stdout);
    return the file written, if any (`render`, with the reporter of `fmt`)."""
    return render(
        get_reporter(fmt), report, output, color=color, verbose=verbose, quiet=quiet, in_ci_log=in_ci_log
    )


def render(
    reporter: Reporter[ReportT],
    report: ReportT,
    output: str = "-",
    *,
    color: bool = False,
    verbose: bool = False,
    quiet: bool = False,
    in_ci_log: bool = False,
) -> Path | None:
    """Write `report` as `reporter` writes it to `output` (`-`: stdout), whatever kind of
    report it is (a suite's, a vacuity or mutation verdict, a pull-request comment);
    return the file written, if any.

    A reporter that raises is a `ReporterError`: it wrote nothing to a file, and nothing
    to stdout unless its format streams (then stdout stops where it failed). A write the
    output refuses is the `OSError` of writing it. `verbose` and `quiet` reach the
    reporters that take them (the table). `in_ci_log`: stdout is a GitHub Actions log,
    where a format meant for a log is fenced off with `::stop-commands::`.
    """
    options = {"color": color, "verbose": verbose, "quiet": quiet}
    fenced = in_ci_log and reporter.for_log and reaches_log(output)
    if not reporter.streams or fenced:
        # Made whole first, so a reporter that raises writes nothing (not even a folder);
        # a fence ends after the text's last line, which only the whole text knows.
        whole = io.StringIO()
        _write(reporter, report, whole, options, output)
        return write_output(whole.getvalue(), output, fenced=fenced)
    if output == "-":
        with _stdout() as binary:
            _write(reporter, report, _Encoded(binary), options, output)
        return None
    target = Path(output)
    with atomic_writer(target) as binary:
        _write(reporter, report, _Encoded(binary), options, output)
    return target


def reaches_log(output: str) -> bool:
    """Whether what is written to `output` may reach the log of the process: stdout
    (`-`), or a path that is no regular file (`/dev/stdout`, `/dev/stderr`,
    `/dev/fd/1`, a pipe), which under GitHub Actions is the job's log too."""
    if output == "-":
        return True
    try:
        return not stat.S_ISREG(os.stat(output).st_mode)
    except OSError:  # not there yet: a file it will make
        return False


def write_output(text: str, output: str, *, fenced: bool = False) -> Path | None:
    """Write `text` to `output` (`-` is stdout), a file whole or not at all; return the
    file written, if any. `fenced`: stdout is a GitHub Actions log and `text` quotes
    untrusted text as it is, so it is wrapped in `::stop-commands::` first."""
    data = encoded(stop_commands(text) if fenced else text)
    if output == "-":
        with _stdout() as binary:
            binary.write(data)
        return None
    target = Path(output)
    write_atomic(target, data)
    return target


def append_summary(path: Path, summary: Callable[[int], str], limit: int) -> None:
    """Append `summary(room)` to the step summary file at `path`, where `room` is what
    is left of `limit` bytes for the whole file (nothing when none is)."""
    existing = path.stat().st_size if path.exists() else 0
    room = limit - existing
    if room <= 0:
        return
    with path.open("a", encoding="utf-8", newline="\n") as stream:
        stream.write(encodable(summary(room)))


@contextmanager
def _stdout() -> Iterator[BinaryIO]:
    """stdout's own bytes, after what was printed to it before, flushed at the end. When a
    write fails (a full disk, a reader that closed the pipe) what is left in its buffer is
    dropped with it: the interpreter's last flush at exit would fail again, and end the
    process with exit 120 and a traceback after the failure was already reported."""
    sys.stdout.flush()
    try:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
    except OSError:
        _drop_stdout()
        raise


def _drop_stdout() -> None:
    try:
        sink = os.open(os.devnull, os.O_WRONLY)
        os.dup2(sink, sys.stdout.fileno())
        os.close(sink)
    except (OSError, ValueError, io.UnsupportedOperation):  # no descriptor behind it (a test's capture)
        pass


class _Encoded:
    """A text stream over `binary`: UTF-8 as it is given (no line-ending translation), a
    lone surrogate as its escape, in writes of about `CHUNK` characters (a small output in
    one write, as a whole text would go; a large one never held whole). A write the
    machine refuses is told apart from a failure of the reporter writing."""

    CHUNK = 1 << 20

    def __init__(self, binary: BinaryIO) -> None:
        self._binary = binary
        self._held: list[str] = []
        self._size = 0
        #: Whether any of it was written: then a failure leaves what was.
        self.written = False

    def write(self, text: str) -> int:
        self._held.append(text)
        self._size += len(text)
        if self._size >= self.CHUNK:
            self.flush()
        return len(text)

    def flush(self) -> None:
        """Write what is held."""
        data = encoded("".join(self._held))
        self._held.clear()
        self._size = 0
        try:
            self._binary.write(data)
        except OSError as exc:
            raise _Unwritable(exc) from exc
        self.written = self.written or bool(data)


class _Unwritable(Exception):
    """The output refused a write (a full disk, a closed pipe): not the reporter's fault."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def _write(
    reporter: Reporter[ReportT], report: ReportT, out: TextSink, options: dict[str, bool], output: str
) -> None:
    """`reporter` writes `report` to `out`, bound for `output`. What it raises is a
    `ReporterError` saying what is left of that output (a third-party reporter is outside
    our control, and a built-in one must not take the other outputs down with it); a write
    the output refused is the `OSError` of writing it."""
    try:
        reporter.write(report, out, **options)
        if isinstance(out, _Encoded):
            out.flush()
    except _Unwritable as refused:
        raise refused.error from None
    except Exception as exc:
        cut = output == "-" and isinstance(out, _Encoded) and out.written  # a file is replaced whole or not
        left = "its output on stdout stops where it failed" if cut else f"nothing was written to {output}"
        raise ReporterError(f"the {reporter.name} reporter failed, {left}: {exception_words(exc)}") from exc
