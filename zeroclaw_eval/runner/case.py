"""One case through the stages after admission: run in a fresh workspace, graded, reported."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

from zeroclaw_eval.agent.deadline import bounded_blocking
from zeroclaw_eval.agent.drive import drive
from zeroclaw_eval.agent.loop import AgentFactory
from zeroclaw_eval.backends.command import AgentCommand, command_agent_factory
from zeroclaw_eval.boundary.provider import Provider
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.collect.suite import shown_path
from zeroclaw_eval.errors import RunError
from zeroclaw_eval.fixtures.case import Case, RejectedFixture
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.grading.result import GradeResult, located
from zeroclaw_eval.report.model import CaseError, CaseReport
from zeroclaw_eval.runner.options import Run, RunOptions
from zeroclaw_eval.tools.sandbox import case_workspace
from zeroclaw_eval.tools.tool import Tool
from zeroclaw_eval.tools.workspace import Workspace


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


@dataclass(frozen=True)
class CaseRun:
    """A finished run: what it recorded, its workspace (open), the run error if any."""

    record: RunRecord
    workspace: Workspace | None
    error: RunError | None


@asynccontextmanager
async def case_run(
    case: Case,
    agent_factory: AgentFactory,
    *,
    agent_cmd: AgentCommand | None,
    case_timeout_secs: float,
    max_tool_iterations: int,
    tools: Mapping[str, Tool],
    live: Provider | None = None,
    live_allowed: Iterable[str] = (),
) -> AsyncIterator[CaseRun]:
    """Run `case` through the agent (or the agent command `agent_cmd`) in a fresh
    workspace, which stays until the block ends and is then removed (what could not be
    removed is `workspace.leftover`). Raises `OSError` when the workspace cannot be
    made or seeded."""
    # An agent command always runs in a workspace: it is its working directory.
    with case_workspace(case.trace, needed=True if agent_cmd else None) as workspace:
        factory = agent_factory
        if agent_cmd is not None and workspace is not None:
            factory = command_agent_factory(agent_cmd, case, workspace.root)
        record = RunRecord()
        with bounded_blocking():  # an async turn that blocks the loop ends at its limit too
            error = await drive(
                case,
                record,
                workspace,
                factory,
                case_timeout_secs=case_timeout_secs,
                max_tool_iterations=max_tool_iterations,
                tools=tools,
                live=live,
                live_allowed=live_allowed,
                external=agent_cmd is not None,
            )
        yield CaseRun(record, workspace, error)
