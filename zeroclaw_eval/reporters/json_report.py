"""The `json` format: the versioned report shape (see `report.codec`)."""

from __future__ import annotations

import json

from zeroclaw_eval.report.codec import report_to_dict
from zeroclaw_eval.report.model import SuiteReport
from zeroclaw_eval.reporters.safety import encodable, neutralize_json


def render(report: SuiteReport, *, color: bool = False) -> str:
    """The report as indented JSON, non-ASCII text kept, ending in a newline; a lone
    surrogate is written as its `\\udXXX` escape, which reads back as the same string."""
    text = json.dumps(report_to_dict(report), indent=2, ensure_ascii=False, allow_nan=False)
    return encodable(neutralize_json(text)) + "\n"
