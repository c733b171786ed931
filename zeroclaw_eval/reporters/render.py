"""Rendering a report into an output: the one helper that owns it.

A reporter writes to an open text stream; this opens it. `-` is stdout; a file is
written whole or not at all (through a temporary sibling renamed into place, so a
reporter that raises, or a crash half-way, never leaves a half-written file), and its
parent folders are made. Every output is UTF-8, a lone surrogate written as its visible
`\\udXXX` escape rather than failing (what `safety.encoded` writes).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from zeroclaw_eval.errors import ReporterError
from zeroclaw_eval.files import atomic_writer, write_atomic
from zeroclaw_eval.report.model import SuiteReport
from zeroclaw_eval.reporters.registry import Reporter, TextSink, get_reporter
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
    """Render `report` as `fmt` and write it to `output` (`-`: stdout); return the file
    written, if any.

    A reporter that raises writes nothing to a file, and nothing to stdout unless it
    streams (then what it wrote before it raised stays): a `ReporterError`. A file that
    cannot be written is the `OSError` of writing it. `verbose` and `quiet` reach the
    reporters that take them (the table). `in_ci_log`: stdout is a GitHub Actions log,
    where a format meant for a log is fenced off with `::stop-commands::`.
    """
    reporter = get_reporter(fmt)
    options = {"color": color, "verbose": verbose, "quiet": quiet}
    if output != "-":
        target = Path(output)
        with atomic_writer(target) as binary:
            _write(reporter, report, _Encoded(binary), options, f"nothing was written to {output}")
        return target
    if reporter.streams and not (in_ci_log and reporter.for_log):
        sys.stdout.flush()
        _write(reporter, report, _Encoded(sys.stdout.buffer), options, "stdout stops where it failed")
        sys.stdout.buffer.flush()
        return None
    whole = io.StringIO()
    _write(reporter, report, whole, options, f"nothing was written to {output}")
    text = whole.getvalue()
    # A log format is fenced whole: the fence's end must follow the text's last line.
    write_output(stop_commands(text) if in_ci_log and reporter.for_log else text, output)
    return None


def write_output(text: str, output: str) -> Path | None:
    """Write `text` to `output` (`-` is stdout), a file whole or not at all; return the
    file written, if any."""
    data = encoded(text)
    if output == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
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


class _Encoded:
    """A text stream over `binary`: UTF-8 as it is given (no line-ending translation), a
    lone surrogate as its escape; a write the machine refuses is told apart from a
    failure of the reporter writing."""

    def __init__(self, binary: BinaryIO) -> None:
        self._binary = binary

    def write(self, text: str) -> int:
        try:
            self._binary.write(encoded(text))
        except OSError as exc:
            raise _Unwritable(exc) from exc
        return len(text)


class _Unwritable(Exception):
    """The output refused a write (a full disk, a closed pipe): not the reporter's fault."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def _write(
    reporter: Reporter, report: SuiteReport, out: TextSink, options: dict[str, bool], left: str
) -> None:
    """`reporter` writes `report` to `out`. What it raises is a `ReporterError` saying what
    is `left` of its output (a third-party reporter is outside our control, and a built-in
    one must not take the other outputs down with it); a write the output refused is the
    `OSError` of writing it."""
    try:
        reporter.write(report, out, **options)
    except _Unwritable as refused:
        raise refused.error from None
    except Exception as exc:
        raise ReporterError(
            f"the {reporter.name} reporter failed, {left}: {type(exc).__name__}: {exc}"
        ) from exc
