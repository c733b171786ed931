"""Stage 5: a finished `SuiteReport` rendered as text; one module per format.

A reporter is a callable `(report, *, color) -> str`. It reads the report and returns;
it never re-runs, re-grades, writes files or decides the exit code. `render_report`
owns the output.
"""

from zeroclaw_eval.reporters.registry import (
    ENTRY_POINT_GROUP,
    Reporter,
    builtin_names,
    get_reporter,
    reporter_names,
    reset_registry,
)
from zeroclaw_eval.reporters.render import render_report, write_output

__all__ = [
    "ENTRY_POINT_GROUP",
    "Reporter",
    "builtin_names",
    "get_reporter",
    "render_report",
    "reporter_names",
    "reset_registry",
    "write_output",
]
