"""Run cases: each fixture through the stages (admit, run, grade, report), in isolation.

The only module below the CLI that imports every stage. A failure inside one case (a
rejected fixture, a divergence from the script, an agent that raises, a timeout) is data
in that case's report; the suite always runs to the end. Only a configuration that
fails every case alike stops it: an agent factory that cannot make an agent raises
`AgentLoadError`, once.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path

from zeroclaw_eval._version import __version__
from zeroclaw_eval.config.settings import LiveOptions
from zeroclaw_eval.errors import RunError, UsageError
from zeroclaw_eval.fixtures.admission import load_fixture
from zeroclaw_eval.fixtures.case import Case, RejectedFixture
from zeroclaw_eval.fixtures.selection import select
from zeroclaw_eval.fixtures.suite import display_path, fixture_files
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
    #: Called once the cases to run are known (after `-k`), with how many there are.
    on_selected: Callable[[int], None] | None = None
    #: The project's own tools (`[eval].tools`), which a fixture's `tools` may name.
    tools: tuple[ProjectTool, ...] = ()
    #: An agent that runs as its own process (`--agent-cmd`), in place of `agent_factory`:
    #: it runs its own tools, so a fixture's `tools` may name any tool.
    agent_cmd: AgentCommand | None = None
    #: A `-k` expression: only the cases whose file stem, model_name or id it matches run.
    keyword: str | None = None
    #: Stop starting cases once this many have not passed (`-x` is 1); None: run all.
    maxfail: int | None = None

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
    #: Every tool a case may name: the built-in ones and the project's.
    tools: Mapping[str, Tool]
    #: The live provider, in live mode.
    live: Provider | None = None
    #: Cases that did not pass so far (for `maxfail`), and those never started.
    stop: _Stop = field(default_factory=lambda: _Stop())


@dataclass
class _Stop:
    failed: int = 0
    not_run: int = 0


def run_suite(suite: Path | Sequence[Path], options: RunOptions | None = None) -> SuiteReport:
    """Load and run a suite (a folder), or the fixtures and folders `suite` lists; the
    report lists cases in the order of their files."""
    options = options or RunOptions()
    started = time.perf_counter()
    targets = [suite] if isinstance(suite, Path) else list(suite)
    tools = toolset(options.tools)
    known = None if options.agent_cmd is not None else frozenset(tools)
    fixtures = [load_fixture(path, known) for path in fixture_files(targets)]
    selected = select(fixtures, options.keyword)
    if options.on_selected is not None:
        options.on_selected(len(selected))
    run = _Run(options, tools)
    cases = asyncio.run(_run_all(selected, run))
    duration = (time.perf_counter() - started) * 1000
    label = " ".join(display_path(target) for target in targets)
    return SuiteReport(
        label,
        options.mode,
        cases,
        duration,
        __version__,
        os.getcwd(),
        deselected=len(fixtures) - len(selected),
        not_run=run.stop.not_run,
    )


async def run_case(case: Case, options: RunOptions | None = None) -> CaseReport:
    """Run one admitted case in a fresh workspace with a fresh agent, and grade it.

    In live mode (`options.live`) the case runs against the configured provider inside
    the live sandbox; otherwise its scripted steps are replayed.
    """
    options = options or RunOptions()
    run = _Run(replace(options, maxfail=None), toolset(options.tools))
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

    async def one(fixture: Case | RejectedFixture) -> CaseReport | None:
        # A rejected fixture costs nothing to report, and must always be: past --maxfail
        # only cases that would have to run are left out.
        stopped = options.maxfail is not None and run.stop.failed >= options.maxfail
        if stopped and isinstance(fixture, Case):
            run.stop.not_run += 1
            return None
        shown = _shown(fixture.path)
        if isinstance(fixture, RejectedFixture):
            report = CaseReport(
                fixture.name, shown, fixture.model_name, problems=fixture.problems, source=fixture.text
            )
        else:
            report = await _run_case(fixture, run, shown)
            if options.live is not None:
                report = scrub_case(report, [options.live.api_key])
        if not report.passed:
            run.stop.failed += 1
        if options.on_case_done is not None:
            options.on_case_done(fixture, report)
        return report

    if options.jobs <= 1:
        done = [await one(fixture) for fixture in fixtures]  # no task per case when serial
    else:
        slots = asyncio.Semaphore(options.jobs)

        async def bounded(fixture: Case | RejectedFixture) -> CaseReport | None:
            async with slots:
                return await one(fixture)

        # gather returns results in argument order: fixture order, whatever finished first.
        done = list(await asyncio.gather(*(bounded(fixture) for fixture in fixtures)))
    return [report for report in done if report is not None]


@functools.lru_cache(maxsize=64)
def _folder_shown(folder: Path, cwd: str) -> str:
    return display_path(folder)


def _shown(path: Path) -> str:
    """A fixture's path as reports show it (relative to the working directory); the folder
    is worked out once per working directory, as a suite's fixtures share it."""
    folder = _folder_shown(path.parent, os.getcwd())
    return path.name if folder == "." else f"{folder}/{path.name}"


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
            return CaseReport(case.name, shown, trace.model_name, error=seeding, id=trace.id)
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
