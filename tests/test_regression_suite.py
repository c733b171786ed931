"""The project's own suites: every gated case passes in replay and can fail.

A case "can fail" when graded against an empty run (setup applied, nothing else: no
response, no calls, no tokens) at least one of its checks fails; a case that an empty
run satisfies certifies nothing and cannot be part of the gate. The check is the one
`zeroclaw eval vacuity` runs (`zeroclaw_eval.grading.vacuity`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.builders import admitted
from zeroclaw_eval.grading.vacuity import find_vacuous
from zeroclaw_eval.runner import run_case

EVALS = Path(__file__).resolve().parent.parent / "evals"
SUITE = EVALS / "regression"
FIXTURES = sorted(SUITE.glob("*.json"))
# Capability cases are expected to fail today and live cases need a real provider:
# neither is gated, but both must be valid, non-vacuous fixtures.
OTHER_FIXTURES = sorted([*(EVALS / "capability").glob("*.json"), *(EVALS / "live").glob("*.json")])


def test_suite_is_not_empty() -> None:
    assert len(FIXTURES) >= 30


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_case_passes_in_replay(path: Path) -> None:
    report = asyncio.run(run_case(admitted(path)))
    failures = [f"{g.check_id}: {g.detail}" for g in report.failed_grades]
    assert report.error is None, report.error
    assert failures == []


@pytest.mark.parametrize("path", [*FIXTURES, *OTHER_FIXTURES], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_fails_against_an_empty_run(path: Path) -> None:
    vacuous = find_vacuous(admitted(path))
    assert vacuous is None, f"{path.name}: every check passes vacuously: {vacuous.check_ids}"


@pytest.mark.parametrize("suite", ["capability", "live"])
def test_the_ungated_suites_hold_a_few_cases(suite: str) -> None:
    assert 3 <= len(list((EVALS / suite).glob("*.json"))) <= 6


def test_live_cases_script_no_steps() -> None:
    live = [p for p in OTHER_FIXTURES if p.parent.name == "live"]
    scripted = [p.name for p in live if any(turn.steps for turn in admitted(p).trace.turns)]
    assert scripted == []


@pytest.mark.parametrize("path", [*FIXTURES, *OTHER_FIXTURES], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_model_name_matches_file_name(path: Path) -> None:
    assert admitted(path).trace.model_name == path.stem.replace("_", "-")
