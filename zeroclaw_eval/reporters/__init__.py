"""Reporters: render a finished `SuiteReport` as text; one module per format.

A reporter is a function `(report, *, color) -> str`. It reads the report and returns;
it never re-runs, re-grades, writes files or decides the exit code. `render_report`
owns the output: `-` is stdout, files are written whole or not at all.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from zeroclaw_eval.report import SuiteReport

Reporter = Callable[..., str]


def _table(report: SuiteReport, *, color: bool = False) -> str:
    from zeroclaw_eval.reporters.table import render

    return render(report, color=color)


def _json(report: SuiteReport, *, color: bool = False) -> str:
    from zeroclaw_eval.reporters.json_report import render

    return render(report, color=color)


_BUILTIN: dict[str, Reporter] = {"table": _table, "json": _json}


def reporter_names() -> list[str]:
    """Names of the available formats."""
    return sorted(_BUILTIN)


def get_reporter(name: str) -> Reporter:
    """The reporter for format `name`; `KeyError` when there is none."""
    return _BUILTIN[name]


def render_report(report: SuiteReport, fmt: str, output: str = "-", *, color: bool = False) -> Path | None:
    """Render `report` as `fmt` into `output` (`-` is stdout); return the file written.

    A file is written to a temporary sibling and renamed into place, so a reporter that
    raises, or a crash half-way, never leaves a half-written report behind.
    """
    text = get_reporter(fmt)(report, color=color)
    if output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return None
    target = Path(output)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
