"""The mutation run: replay each case once, then grade every mutant of its recorded run
with the case's own checks.

Mutants are graded in memory against the recorded run; only a mutant that changes what
the agent sees (calls asked for in another order) is replayed. A mutant no check could
tell from the real run is dropped as equivalent.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from zeroclaw_eval.fixtures.admission import load_fixture
from zeroclaw_eval.fixtures.case import Case, RejectedFixture
from zeroclaw_eval.fixtures.selection import select
from zeroclaw_eval.fixtures.suite import display_path, fixture_files
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.mutate.call_operators import call_mutants, swap_mutants
from zeroclaw_eval.mutate.equivalence import observable, unused_tool
from zeroclaw_eval.mutate.mutant import Mutant
from zeroclaw_eval.mutate.replay import replayed
from zeroclaw_eval.mutate.report import FixtureMutation, MutantOutcome, MutationReport
from zeroclaw_eval.mutate.run_operators import (
    budget_mutants,
    file_mutants,
    response_mutants,
    turn_order_mutants,
)
from zeroclaw_eval.mutate.suggest import describe, suggestion
from zeroclaw_eval.run.case_run import CaseRun
from zeroclaw_eval.run.project_tools import toolset
from zeroclaw_eval.run.record import RunRecord
from zeroclaw_eval.run.workspace import Workspace
from zeroclaw_eval.runner import RunOptions


def mutate_suite(
    suite: Path | Sequence[Path], options: RunOptions | None = None, *, min_score: float | None = None
) -> MutationReport:
    """Mutate every admitted fixture of a suite (a folder, or the files and folders
    `suite` lists) and grade the mutants; `options` names the agent, as for a run."""
    options = options or RunOptions()
    started = time.perf_counter()
    targets = [suite] if isinstance(suite, Path) else list(suite)
    known = None if options.agent_cmd is not None else frozenset(toolset(options.tools))
    limit = options.max_fixture_bytes
    loaded = [load_fixture(path, known, max_bytes=limit) for path in fixture_files(targets)]
    fixtures = select(loaded, options.keyword)
    cases = [fixture for fixture in fixtures if isinstance(fixture, Case)]
    rejected = tuple(fixture for fixture in fixtures if isinstance(fixture, RejectedFixture))

    async def each() -> list[FixtureMutation]:
        return [await mutate_case(case, options) for case in cases]

    mutated = tuple(asyncio.run(each()))
    label = " ".join(display_path(target) for target in targets)
    duration = (time.perf_counter() - started) * 1000
    return MutationReport(label, mutated, rejected, min_score, duration)


async def mutate_case(case: Case, options: RunOptions | None = None) -> FixtureMutation:
    """Replay `case` once and grade each of its mutants."""
    options = options or RunOptions()
    trace = case.trace
    expects = case.locate("/expects", at_key=True)
    about = (case.name, case.path, trace.model_name, expects)
    try:
        async with replayed(case, options) as run:
            grades = grade(trace.expects, run.record, run.workspace)
            if run.error is not None:
                return FixtureMutation(*about, problem=f"does not pass in replay: {run.error.message}")
            failed = [g.check_id for g in grades if not g.passed]
            if failed:
                return FixtureMutation(*about, problem=f"does not pass in replay: {', '.join(failed)} failed")
            outcomes = [await _outcome(case, mutant, run, options) for mutant in _mutants(case, run)]
    except OSError as exc:
        return FixtureMutation(*about, problem=f"cannot seed the case workspace: {exc.strerror or exc}")
    return FixtureMutation(*about, outcomes=tuple(o for o in outcomes if o is not None))


def _mutants(case: Case, run: CaseRun) -> Iterator[Mutant]:
    record = run.record
    yield from call_mutants(record, unused_tool(case.trace, record))
    yield from swap_mutants(record, case.trace)
    yield from response_mutants(record)
    yield from turn_order_mutants(record)
    if run.workspace is not None:
        written, contents = _written_files(case, run.workspace)
        yield from file_mutants(record, written, contents)
    yield from budget_mutants(record)


async def _outcome(case: Case, mutant: Mutant, run: CaseRun, options: RunOptions) -> MutantOutcome | None:
    """The mutant graded by the case's checks; None when it is equivalent to the run
    (no check could tell them apart) or its changed script could not be replayed."""
    if mutant.trace is not None:
        changed = Case(case.name, case.path, mutant.trace, case.text)
        async with replayed(changed, options) as other:
            if other.error is not None or _alike(run, other):
                return None
            return _graded(case, mutant, run, other.record, other.workspace)
    assert mutant.record is not None
    if mutant.files is None:
        if observable(mutant.record) == observable(run.record):
            return None
        return _graded(case, mutant, run, mutant.record, run.workspace)
    with _edited_copy(run.workspace, mutant) as workspace:
        return _graded(case, mutant, run, mutant.record, workspace)


def _graded(
    case: Case, mutant: Mutant, run: CaseRun, record: RunRecord, workspace: Workspace | None
) -> MutantOutcome:
    failed = tuple(g.check_id for g in grade(case.trace.expects, record, workspace) if not g.passed)
    check = (
        None if failed else suggestion(mutant.candidates, (run.record, run.workspace), (record, workspace))
    )
    words = describe(check) if check is not None else None
    return MutantOutcome(mutant.operator, mutant.position, mutant.before, mutant.after, failed, words, check)


def _alike(run: CaseRun, other: CaseRun) -> bool:
    if observable(run.record) != observable(other.record):
        return False
    if run.workspace is None or other.workspace is None:
        return run.workspace is other.workspace
    return _files(run.workspace.root) == _files(other.workspace.root)


def _files(root: Path) -> dict[str, bytes]:
    """Every file under `root` (symlinks not followed) by its relative POSIX path."""
    found: dict[str, bytes] = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            if path.is_file() and not path.is_symlink():
                found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def _written_files(case: Case, workspace: Workspace) -> tuple[dict[str, str | None], dict[str, str]]:
    """The files the run created, changed or removed, each with its seeded text (None:
    not seeded); and what the run left in each, as text."""
    setup = case.trace.setup
    seeded = dict(setup.workspace_files) if setup is not None else {}
    left = _files(workspace.root)
    written: dict[str, str | None] = {}
    for path, data in left.items():
        before = seeded.get(path)
        if before is None or before.encode("utf-8") != data:
            written[path] = before
    for path, text in seeded.items():
        if path not in left and not (workspace.root / path).is_dir():
            written[path] = text
    contents = {
        path: data.decode("utf-8", errors="replace") for path, data in left.items() if path in written
    }
    return written, contents


@contextmanager
def _edited_copy(workspace: Workspace | None, mutant: Mutant) -> Iterator[Workspace]:
    """A copy of the workspace the run left, with the mutant's file edit made in it."""
    assert workspace is not None
    assert mutant.files is not None
    root = Path(tempfile.mkdtemp(prefix="zeroclaw-eval-mutant-"))
    copy = Workspace(root)
    try:
        shutil.copytree(workspace.root, root, symlinks=True, dirs_exist_ok=True)
        mutant.files.apply(root)
        yield copy
    finally:
        copy.cleanup()
