"""Run cases: each fixture through the stages (admit, run, grade, report), in isolation.

The only module below the CLI that imports every stage. A failure inside one case (a
rejected fixture, a divergence from the script, an agent that raises, a timeout) is data
in that case's report; the suite always runs to the end. Only a configuration that
fails every case alike stops it: an agent factory that cannot make an agent raises
`AgentLoadError`, once.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path

from zeroclaw_eval._version import __version__
from zeroclaw_eval.config.settings import LiveOptions
from zeroclaw_eval.errors import RunError, UsageError
from zeroclaw_eval.fixtures.case import Case, RejectedFixture
from zeroclaw_eval.fixtures.suite import display_path, load_suite
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.grading.result import GradeResult, located
from zeroclaw_eval.report.model import CaseError, CaseReport, SuiteReport
from zeroclaw_eval.report.scrub import scrub_case
from zeroclaw_eval.run.agent import AgentFactory, reference_agent
from zeroclaw_eval.run.command_agent import AgentCommand, command_agent_factory
from zeroclaw_eval.run.drive import drive
from zeroclaw_eval.run.isolation import case_workspace
from zeroclaw_eval.run.project_tools import ProjectTool, toolset
from zeroclaw_eval.run.provider import Provider
from zeroclaw_eval.run.record import RunRecord
from zeroclaw_eval.run.tools import Tool

CaseDone = Callable[[Case | RejectedFixture, CaseReport], None]


@dataclass(frozen=True)
class RunOptions:
    """How to run cases (the CLI builds this from config and flags)."""

    mode: str = "replay"
    agent_factory: AgentFactory = field(default=reference_agent)
    case_timeout_secs: float = 120.0
    max_tool_iterations: int = 10
    #: Cases run at once (the report keeps fixture order whatever the completion order).
    jobs: int = 1
    #: Set for live mode; None replays each case's scripted steps.
    live: LiveOptions | None = None
    #: Called as each case finishes (progress, recording).
    on_case_done: CaseDone | None = None
    #: The project's own tools (`[eval].tools`), which a fixture's `tools` may name.
    tools: tuple[ProjectTool, ...] = ()
    #: An agent that runs as its own process (`--agent-cmd`), in place of `agent_factory`:
    #: it runs its own tools, so a fixture's `tools` may name any tool.
    agent_cmd: AgentCommand | None = None

    def __post_init__(self) -> None:
        refuse_live_agent_cmd(self.live is not None, self.agent_cmd)


def refuse_live_agent_cmd(live: bool, agent_cmd: AgentCommand | None) -> None:
    """Live mode is not offered for an agent command: `UsageError` when both are asked for."""
    if live and agent_cmd is not None:
        raise UsageError(
            "--agent-cmd runs in replay only: the live sandbox cannot supervise the tools of an"
            " agent that runs them itself"
        )


@dataclass(frozen=True)
class _Run:
    """One run's settings as its cases need them."""

    options: RunOptions
    #: The suite folder as reports show it.
    suite: str
    #: Every tool a case may name: the built-in ones and the project's.
    tools: Mapping[str, Tool]
    #: The live provider, in live mode.
    live: Provider | None = None


def run_suite(suite_dir: Path, options: RunOptions | None = None) -> SuiteReport:
    """Load and run a whole suite; the report lists cases in fixture order."""
    options = options or RunOptions()
    started = time.perf_counter()
    tools = toolset(options.tools)
    fixtures = load_suite(suite_dir, None if options.agent_cmd is not None else tools)
    cases = asyncio.run(_run_all(fixtures, _Run(options, display_path(suite_dir), tools)))
    duration = (time.perf_counter() - started) * 1000
    return SuiteReport(display_path(suite_dir), options.mode, cases, duration, __version__, os.getcwd())


async def run_case(case: Case, options: RunOptions | None = None) -> CaseReport:
    """Run one admitted case in a fresh workspace with a fresh agent, and grade it.

    In live mode (`options.live`) the case runs against the configured provider inside
    the live sandbox; otherwise its scripted steps are replayed.
    """
    options = options or RunOptions()
    run = _Run(options, display_path(case.path.parent), toolset(options.tools))
    return (await _run_all([case], run))[0]


async def _run_all(fixtures: list[Case | RejectedFixture], run: _Run) -> list[CaseReport]:
    options = run.options
    if options.live is None:
        return await _run_each(fixtures, run)
    from zeroclaw_eval.run.live import live_provider  # only live mode pays for httpx

    async with live_provider(options.live, connections=max(options.jobs, 1) * 2) as provider:
        return await _run_each(fixtures, replace(run, live=provider))


async def _run_each(fixtures: list[Case | RejectedFixture], run: _Run) -> list[CaseReport]:
    options = run.options

    async def one(fixture: Case | RejectedFixture) -> CaseReport:
        # Fixtures are direct children of the suite folder: one relpath serves them all.
        shown = f"{run.suite}/{fixture.name}" if run.suite != "." else fixture.name
        if isinstance(fixture, RejectedFixture):
            report = CaseReport(
                fixture.name, shown, fixture.model_name, problems=fixture.problems, source=fixture.text
            )
        else:
            report = await _run_case(fixture, run, shown)
            if options.live is not None:
                report = scrub_case(report, [options.live.api_key])
        if options.on_case_done is not None:
            options.on_case_done(fixture, report)
        return report

    if options.jobs <= 1:
        return [await one(fixture) for fixture in fixtures]  # no task per case when serial
    slots = asyncio.Semaphore(options.jobs)

    async def bounded(fixture: Case | RejectedFixture) -> CaseReport:
        async with slots:
            return await one(fixture)

    # gather returns results in argument order: fixture order, whatever finished first.
    return list(await asyncio.gather(*(bounded(fixture) for fixture in fixtures)))


async def _run_case(case: Case, run: _Run, shown: str) -> CaseReport:
    trace = case.trace
    options = run.options
    record = RunRecord()
    command = options.agent_cmd
    with ExitStack() as stack:
        try:
            # An agent command always runs in a workspace: it is its working directory.
            workspace = stack.enter_context(case_workspace(trace, needed=True if command else None))
        except OSError as exc:  # a full disk, say: this case cannot run, the others still can
            message = f"cannot seed the case workspace: {exc.strerror or exc}"
            seeding = CaseError(message, case.locate("/setup/workspace_files", at_key=True))
            return CaseReport(case.name, shown, trace.model_name, error=seeding)
        factory = options.agent_factory
        if command is not None and workspace is not None:
            factory = command_agent_factory(command, case, workspace.root)
        error = await drive(
            case,
            record,
            workspace,
            factory,
            case_timeout_secs=options.case_timeout_secs,
            max_tool_iterations=options.max_tool_iterations,
            tools=run.tools,
            live=run.live,
            live_allowed=options.live.allowed_tools if options.live is not None else (),
            external=command is not None,
        )
        grades = grade(trace.expects, record, workspace)
    report = CaseReport(
        name=case.name,
        path=shown,
        model_name=trace.model_name,
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
