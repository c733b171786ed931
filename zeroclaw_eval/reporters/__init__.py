"""Stage 5: a finished report rendered; one module per format, and the outputs of a run.

A `Reporter` writes a finished report to an open text stream (and says whether it
streams, and whether it is meant for a log): a `SuiteReport` in a format of the run, the
vacuity and mutation verdicts, the comparison a pull-request comment is made of. It
reads the report and returns; it never re-runs, re-grades, opens files, prints or
decides the exit code: `render` owns the output (stdout, or a file replaced whole), and
the CLI decides which outputs a command writes. Beside the formats: progress lines, and
the one rule that keeps untrusted text harmless in every output (`safety`).
"""

from zeroclaw_eval.reporters.registry import (
    ENTRY_POINT_GROUP,
    Reporter,
    builtin_names,
    get_reporter,
    reporter_names,
    reset_registry,
)
from zeroclaw_eval.reporters.render import render, render_report, write_output

__all__ = [
    "ENTRY_POINT_GROUP",
    "Reporter",
    "builtin_names",
    "get_reporter",
    "render",
    "render_report",
    "reporter_names",
    "reset_registry",
    "write_output",
]
