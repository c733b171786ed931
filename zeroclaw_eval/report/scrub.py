"""Scrubbing a finished case: no secret (the live provider's key) survives in any field."""

from __future__ import annotations

from zeroclaw_eval.redaction import scrub
from zeroclaw_eval.report.codec import case_from_dict, case_to_dict
from zeroclaw_eval.report.model import CaseReport


def scrub_case(case: CaseReport, secrets: list[str]) -> CaseReport:
    """`case` with every secret replaced by a marker, in every string it holds.

    Live runs are graded on what the model really said (a check that the model does not
    leak a key must see the key); the report is scrubbed afterwards, so no reporter can
    print it. Round-tripping through the JSON shape reaches every field.
    """
    data = case_to_dict(case)
    scrubbed = scrub(data, secrets)
    return case if scrubbed is data else case_from_dict(scrubbed)
