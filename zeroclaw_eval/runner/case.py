"""One case through the stages after admission: run in a fresh workspace, graded, reported."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager

from zeroclaw_eval.errors import RunError
from zeroclaw_eval.fixtures.case import Case, RejectedFixture
from zeroclaw_eval.fixtures.suite import shown_path
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.grading.result import GradeResult, located
from zeroclaw_eval.report.model import CaseError, CaseReport
from zeroclaw_eval.run.case_run import CaseRun, case_run
from zeroclaw_eval.run.provider import Provider
from zeroclaw_eval.run.tools import Tool
from zeroclaw_eval.runner.options import Run, RunOptions


def rejected(fixture: RejectedFixture) -> CaseReport:
    """The report of a fixture admission refused."""
    shown = shown_path(fixture.path)
    return CaseReport(fixture.name, shown, fixture.model_name, problems=fixture.problems, source=fixture.text)


def run_with(
    case: Case, options: RunOptions, tools: Mapping[str, Tool], live: Provider | None = None
) -> AbstractAsyncContextManager[CaseRun]:
    """`case` run in a fresh workspace as `options` ask, through the agent or agent command
    they name (the runner's cases and mutation testing's replays alike)."""
    return case_run(
        case,
        options.agent_factory,
        agent_cmd=options.agent_cmd,
        case_timeout_secs=options.case_timeout_secs,
        max_tool_iterations=options.max_tool_iterations,
        tools=tools,
        live=live,
        live_allowed=options.live.allowed_tools if options.live is not None else (),
    )


async def run_one(case: Case, run: Run, shown: str) -> CaseReport:
    """Run `case` once and grade it; `shown` is its path as reports show it."""
    trace = case.trace
    options = run.options
    try:
        async with run_with(case, options, run.tools, run.live) as done:
            record, workspace, error = done.record, done.workspace, done.error
            grades = grade(trace.expects, record, workspace)
    except OSError as exc:  # a full disk, say: this case cannot run, the others still can
        message = f"cannot seed the case workspace: {exc.strerror or exc}"
        seeding = CaseError(message, case.locate("/setup/workspace_files", at_key=True))
        return CaseReport(case.name, shown, trace.model_name, error=seeding, id=trace.id)
    # The grades stand: they were taken before the clean-up. What it could not remove is
    # a run error of the case, so the exit code and every report say which folder is left.
    left = workspace.leftover if workspace is not None else None
    if left is not None:
        pointer, frames = (error.pointer, error.traceback) if error else ("", None)
        error = RunError(f"{error.message}; and {left}" if error else left, pointer, frames)
    report = CaseReport(
        name=case.name,
        path=shown,
        model_name=trace.model_name,
        id=trace.id,
        grades=[_located(case, g) for g in grades],
        error=_case_error(case, error) if error else None,
        duration_ms=record.duration_ms,
        record=record,
    )
    if not report.passed:
        report.source = case.text  # reporters show the fixture around its failing fields
    return report


def _case_error(case: Case, error: RunError) -> CaseError:
    return CaseError(error.message, case.locate(error.pointer, at_key=True), error.traceback)


def _located(case: Case, result: GradeResult) -> GradeResult:
    # Only failing checks are located: a green suite never pays for the position scan.
    return result if result.passed else located(case, result)
