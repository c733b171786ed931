"""The mutation run: replay each case once, then grade every mutant of its recorded run
with the case's own checks.

Mutants are graded in memory against the recorded run; only a mutant that changes what
the agent sees (calls asked for in another order) is replayed. A mutant no check could
tell from the real run is dropped as equivalent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.grading.families import observable
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.mutate.call_operators import call_mutants, swap_mutants
from zeroclaw_eval.mutate.equivalence import unused_tool
from zeroclaw_eval.mutate.mutant import Mutant
from zeroclaw_eval.mutate.report import FixtureMutation, MutantOutcome, MutationReport
from zeroclaw_eval.mutate.run_operators import (
    budget_mutants,
    file_mutants,
    response_mutants,
    turn_order_mutants,
)
from zeroclaw_eval.mutate.suggest import describe, killers, suggestion
from zeroclaw_eval.mutate.workspace_files import edited, files_under, written_files
from zeroclaw_eval.runner import RunOptions
from zeroclaw_eval.runner.case import CaseRun, case_run
from zeroclaw_eval.runner.suite import admitted, collect
from zeroclaw_eval.tools.workspace import Workspace


def mutate_suite(
    suite: Path | Sequence[Path], options: RunOptions | None = None, *, min_score: float | None = None
) -> MutationReport:
    """Mutate every admitted fixture of a suite (a folder, or the files and folders
    `suite` lists) and grade the mutants; `options` names the agent, as for a run."""
    options = options or RunOptions()
    collection = collect(suite, options)  # the fixtures a run of the same suite would take
    fixtures = [admitted(fixture, options) for fixture in collection.selected]
    cases = [fixture for fixture in fixtures if isinstance(fixture, Case)]
    rejected = tuple(fixture for fixture in fixtures if isinstance(fixture, RejectedFixture))

    async def each() -> list[FixtureMutation]:
        return [await mutate_case(case, options) for case in cases]

    mutated = tuple(asyncio.run(each()))
    duration = (time.perf_counter() - collection.started) * 1000
    return MutationReport(collection.label, mutated, rejected, min_score, duration)


async def mutate_case(case: Case, options: RunOptions | None = None) -> FixtureMutation:
    """Replay `case` once and grade each of its mutants."""
    options = options or RunOptions()
    trace = case.trace
    expects = case.locate("/expects", at_key=True)
    about = (case.name, case.path, trace.model_name, expects)
    try:
        async with case_run(case, options) as run:
            graded = grade(trace.expects, run.record, run.workspace)
            grades = _deciding(graded, trace.expects, run.record, options)
            if run.error is not None:
                return FixtureMutation(*about, problem=f"does not pass in replay: {run.error.message}")
            failed = [g.check_id for g in grades if not g.passed]
            if failed:
                return FixtureMutation(*about, problem=f"does not pass in replay: {', '.join(failed)} failed")
            outcomes: list[MutantOutcome] = []
            unmade: list[str] = []
            for mutant in _mutants(case, run):
                try:
                    outcome = await _outcome(case, mutant, run, options)
                except OSError as exc:  # the system refused the edit: that mutant, not the fixture
                    unmade.append(f"{mutant.name}: {exc.strerror or exc}")
                    continue
                if outcome is not None:
                    outcomes.append(outcome)
    except OSError as exc:
        return FixtureMutation(*about, problem=f"cannot seed the case workspace: {exc.strerror or exc}")
    return FixtureMutation(*about, outcomes=tuple(outcomes), unmade=tuple(unmade))


def _mutants(case: Case, run: CaseRun) -> Iterator[Mutant]:
    record = run.record
    yield from call_mutants(record, unused_tool(case.trace, record))
    yield from swap_mutants(record, case.trace)
    yield from response_mutants(record)
    yield from turn_order_mutants(record)
    if run.workspace is not None:
        setup = case.trace.setup
        written, contents = written_files(setup.workspace_files if setup else {}, run.workspace)
        yield from file_mutants(record, written, contents)
    yield from budget_mutants(record)


async def _outcome(case: Case, mutant: Mutant, run: CaseRun, options: RunOptions) -> MutantOutcome | None:
    """The mutant graded by the case's checks; None when it is equivalent to the run
    (no check could tell them apart) or its changed script could not be replayed."""
    if mutant.trace is not None:
        changed = Case(case.name, case.path, mutant.trace, case.text)
        async with case_run(changed, options) as other:
            if other.error is not None or _alike(run, other):
                return None
            verdict = _graded(case, mutant, other.record, other.workspace, options)
            return _outcome_of(case, mutant, run, verdict)
    assert mutant.record is not None
    if mutant.files is None:
        if observable(mutant.record) == observable(run.record):
            return None
        return _outcome_of(case, mutant, run, _graded(case, mutant, mutant.record, run.workspace, options))
    assert run.workspace is not None
    # The edit is made in the run's own workspace: the real run is graded once it is undone.
    with edited(run.workspace, mutant.files):
        verdict = _graded(case, mutant, mutant.record, run.workspace, options)
    return _outcome_of(case, mutant, run, verdict)


def _deciding(
    grades: list[GradeResult], expects: Expects, record: RunRecord, options: RunOptions
) -> list[GradeResult]:
    """The grades of the checks that decide the case: a judge check the run's gate does
    not let decide (`grading.judges.gate`) kills no mutant."""
    marked = options.judge_gate.apply(grades, expects, record)
    return [g for g in marked if not g.diagnostic]


def _graded(
    case: Case, mutant: Mutant, record: RunRecord, workspace: Workspace | None, options: RunOptions
) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
    """The checks the mutant fails, and (for a survivor) the candidates it fails."""
    grades = _deciding(grade(case.trace.expects, record, workspace), case.trace.expects, record, options)
    failed = tuple(g.check_id for g in grades if not g.passed)
    return failed, ([] if failed else killers(mutant.candidates, (record, workspace)))


def _outcome_of(
    case: Case, mutant: Mutant, run: CaseRun, verdict: tuple[tuple[str, ...], list[dict[str, Any]]]
) -> MutantOutcome:
    failed, killing = verdict
    check = suggestion(killing, (run.record, run.workspace))
    words = describe(check, case.trace.expects) if check is not None else None
    return MutantOutcome(mutant.operator, mutant.position, mutant.before, mutant.after, failed, words, check)


def _alike(run: CaseRun, other: CaseRun) -> bool:
    if observable(run.record) != observable(other.record):
        return False
    if run.workspace is None or other.workspace is None:
        return run.workspace is other.workspace
    return files_under(run.workspace.root) == files_under(other.workspace.root)
