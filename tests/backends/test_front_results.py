"""`zeroclaw_eval.boundary.sent.inferred_success`: which tool results an agent sends read as failures."""

from __future__ import annotations

import pytest

from zeroclaw_eval.boundary.sent import inferred_success


@pytest.mark.parametrize(
    ("content", "success"),
    [
        ("sunny, 22 C", True),
        ("Error: the disk is full", False),
        ("  error: no such file", False),
        ("Errors: 2 files missing", False),
        ("An error occurred while running the tool. Please try again. Error: boom", False),
        ("Encountered error: timeout", False),
        ("2 validation errors for get_weather\ncity\n  Field required", False),
        ("Unknown city Atlantis\n\nFix the errors and try again.", False),
        ('{"error": "not found"}', False),
        ('{"is_error": true, "content": "x"}', False),
        ('{"isError": true, "content": []}', False),
        ('{"error": null, "value": 3}', True),
        ('{"errors_seen": 0}', True),
        ("{not json", True),
        ('{"a":' * 5_000 + "1" + "}" * 5_000, True),  # too deep to parse: not an error field
        ("The error rate is 2%", True),  # only the opening counts
        ("errorless run", True),
    ],
)
def test_a_result_reads_as_a_failure_by_its_opening_ending_or_an_error_field(
    content: str, success: bool
) -> None:
    assert inferred_success(content) is success
