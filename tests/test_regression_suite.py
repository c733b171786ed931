"""The project's own gated suite: every case passes in replay and can fail.

A case "can fail" when graded against an empty run (setup applied, nothing else: no
response, no calls, no tokens) at least one of its checks fails; a case that an empty
run satisfies certifies nothing and cannot be part of the gate.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from zeroclaw_eval.admission import Case, load_fixture
from zeroclaw_eval.grader import grade
from zeroclaw_eval.record import RunRecord
from zeroclaw_eval.runner import run_case
from zeroclaw_eval.tools import BUILTIN_TOOLS
from zeroclaw_eval.workspace import Workspace

SUITE = Path(__file__).resolve().parent.parent / "evals" / "regression"
FIXTURES = sorted(SUITE.glob("*.json"))


def admitted(path: Path) -> Case:
    case = load_fixture(path, BUILTIN_TOOLS)
    assert isinstance(case, Case), f"{path.name} was rejected: {case.problems}"
    return case


def test_suite_is_not_empty() -> None:
    assert len(FIXTURES) >= 20


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_case_passes_in_replay(path: Path) -> None:
    report = asyncio.run(run_case(admitted(path)))
    failures = [f"{g.check_id}: {g.detail}" for g in report.failed_grades]
    assert report.error is None, report.error
    assert failures == []


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_case_fails_against_an_empty_run(path: Path) -> None:
    trace = admitted(path).trace
    workspace = Workspace.create(trace.setup.workspace_files if trace.setup else None)
    try:
        grades = grade(trace.expects, RunRecord(), workspace)
    finally:
        workspace.cleanup()
    vacuous = [g.check_id for g in grades]
    assert not all(g.passed for g in grades), f"{path.name}: every check passes vacuously: {vacuous}"


def test_model_name_matches_file_name() -> None:
    mismatched = [p.name for p in FIXTURES if admitted(p).trace.model_name != p.stem.replace("_", "-")]
    assert mismatched == []
