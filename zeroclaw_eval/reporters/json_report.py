"""The `json` format: the versioned report shape (see `report.codec`), written a case at a
time.

The text is what `json.dumps(report_to_dict(report), indent=2, ensure_ascii=False)`
writes (floats in their shortest round-trip spelling), but built by `report.indented_json`
from the cases' own records (no deep copy, no pure-Python encoder) and in pieces, so a
file output never holds the whole report in memory twice.
"""

from __future__ import annotations

from collections.abc import Iterator

from zeroclaw_eval.report.codec import case_fields, report_summary
from zeroclaw_eval.report.indented_json import dumps
from zeroclaw_eval.report.model import SuiteReport
from zeroclaw_eval.reporters.registry import Reporter
from zeroclaw_eval.reporters.safety import encodable, neutralize_json

#: The line break and indentation of a case inside `"cases": [...]`.
_CASE_LINE = "\n    "


def pieces(report: SuiteReport) -> Iterator[str]:
    """The whole output, in pieces: the summary, each case, the end. Each piece is
    safe on its own: `##[` and lone surrogates occur only inside strings, and no string
    spans two pieces."""
    summary = dumps(report_summary(report))
    # The summary's closing "\n}" makes way for the cases, the last key of the report.
    head = summary[: -len("\n}")] + ',\n  "cases": ['
    if not report.cases:
        yield _safe(head + "]\n}\n")
        return
    yield _safe(head)
    separator = ""
    for case in report.cases:
        yield _safe(separator + _CASE_LINE + dumps(case_fields(case, report.details), _CASE_LINE))
        separator = ","
    yield "\n  ]\n}\n"


def _safe(text: str) -> str:
    return encodable(neutralize_json(text))


# A passing case's details only with `--details all`, which keeps them anyway.
REPORTER = Reporter.streaming("json", pieces, passing_details=False)
