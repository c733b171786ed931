"""Progress while cases run: a redrawn line on a terminal, one line per case in CI logs.

A fixture's file name is untrusted (`x\n::error::FORGED.json` is a valid name): it is
shown on its one line with control characters visible (`log_line`), so it can neither
start a workflow command in a GitHub Actions log nor drive the terminal.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from zeroclaw_eval.report.model import CaseReport
from zeroclaw_eval.reporters.safety import log_line
from zeroclaw_eval.reporters.table import MARKS

if TYPE_CHECKING:
    from pathlib import Path

    from zeroclaw_eval.cases.case import Case, RejectedFixture


class Progress:
    """Call it with each finished case; it writes to `stream` (stderr)."""

    def __init__(self, total: int, stream: TextIO, *, tty: bool) -> None:
        self._total = total
        self._stream = stream
        self._tty = tty
        self._done = 0
        self._failed = 0
        self._started = time.monotonic()
        self._status: Callable[[], str] | None = None

    def watch(self, status: Callable[[], str]) -> None:
        """Show `status` (a live provider's concurrency and waits, say) on each line."""
        self._status = status

    def expect(self, total: int) -> None:
        """How many cases will finish, once the selection is known."""
        self._total = total

    def __call__(self, fixture: Case | RejectedFixture | Path, report: CaseReport) -> None:
        """Count one finished case and show it."""
        self._done += 1
        self._failed += report.blocks_gate
        elapsed = time.monotonic() - self._started
        counter = f"[{self._done}/{self._total}]"
        status = self._status() if self._status is not None else ""
        status = f" · {log_line(status)}" if status else ""  # model names are the configuration's
        if self._tty:
            end = "\n" if self._done == self._total else ""
            self._stream.write(f"\r\x1b[2K{counter} {self._failed} failed · {elapsed:.1f}s{status}{end}")
        else:
            mark = MARKS[report.outcome][0]
            seconds = report.duration_ms / 1000
            self._stream.write(
                f"{counter} {mark} {log_line(report.path)} ({report.outcome}, {seconds:.2f}s){status}\n"
            )
        self._stream.flush()
