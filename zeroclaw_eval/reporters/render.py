"""Rendering a report into an output: the one helper that owns it.

`-` is stdout; a file is written whole or not at all (a reporter that raises writes
nothing, and a crash half-way never leaves a half-written file), and its parent folders
are made.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from zeroclaw_eval.errors import ReporterError
from zeroclaw_eval.files import write_atomic, write_atomic_pieces
from zeroclaw_eval.report.model import SuiteReport
from zeroclaw_eval.reporters.registry import get_reporter
from zeroclaw_eval.reporters.safety import encodable, encoded, stop_commands

#: Formats whose output is meant for a human reading a CI log: they quote model text
#: verbatim, so in a GitHub Actions log they are fenced off from the command parser.
LOG_FORMATS = frozenset({"table"})
#: Built-in formats, by their module, that also have `pieces(report)`: the text of
#: `render` in pieces. A file of one is written a piece at a time, so a large suite's
#: output is never held whole, nor twice. (A plugin cannot take a built-in format's name.)
STREAMED_FORMATS = {"json": "json_report", "junit": "junit", "html": "html.page"}


def write_output(text: str, output: str) -> Path | None:
    """Write `text` to `output` (`-` is stdout), a file whole or not at all; return the
    file written, if any."""
    # Text from a custom agent, or a plugin's output, may hold a lone surrogate, which
    # UTF-8 cannot encode: it is written as a visible escape instead.
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

    A reporter that raises writes nothing and is a `ReporterError`; a file that cannot be
    written is the `OSError` of writing it. `verbose` and `quiet` reach the reporters that take them
    (the table). `in_ci_log`: stdout is a GitHub Actions log, where a log format is
    wrapped in `::stop-commands::`.
    """
    reporter = get_reporter(fmt)
    if fmt in STREAMED_FORMATS and output != "-":
        module = importlib.import_module(f"zeroclaw_eval.reporters.{STREAMED_FORMATS[fmt]}")
        pieces: Callable[[SuiteReport], Iterator[str]] = module.pieces
        target = Path(output)
        write_atomic_pieces(target, _guarded(pieces(report), fmt, output))
        return target
    # Verbosity is an extra a format may offer; plugins written for `(report, *, color)`
    # are called as they expect.
    asked = {"verbose": verbose, "quiet": quiet}
    extra = {name: True for name, wanted in asked.items() if wanted and _takes(reporter, name)}
    try:
        text = reporter(report, color=color, **extra)
    except Exception as exc:  # a third-party reporter is outside our control
        raise _failed(fmt, output, exc) from exc
    if in_ci_log and output == "-" and fmt in LOG_FORMATS:
        text = stop_commands(text)
    return write_output(text, output)


def _guarded(pieces: Iterator[str], fmt: str, output: str) -> Iterator[bytes]:
    """`pieces` as UTF-8 (a lone surrogate as its visible escape), a reporter's exception
    made a `ReporterError` (writing them leaves nothing then, as for any reporter that
    raises)."""
    try:
        for piece in pieces:
            yield encoded(piece)
    except Exception as exc:
        raise _failed(fmt, output, exc) from exc


def _failed(fmt: str, output: str, exc: Exception) -> ReporterError:
    return ReporterError(
        f"the {fmt} reporter failed, nothing was written to {output}: {type(exc).__name__}: {exc}"
    )


def _takes(reporter: object, option: str) -> bool:
    try:
        return option in inspect.signature(reporter).parameters  # type: ignore[arg-type]
    except (TypeError, ValueError):  # a callable without a signature to read (a C function)
        return False
