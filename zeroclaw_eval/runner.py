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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from zeroclaw_eval._version import __version__
from zeroclaw_eval.config.settings import LiveOptions
from zeroclaw_eval.errors import RunError, UsageError
from zeroclaw_eval.fixtures.admission import load_fixture
from zeroclaw_eval.fixtures.case import Case, RejectedFixture
from zeroclaw_eval.fixtures.limits import DEFAULT_MAX_FIXTURE_BYTES
from zeroclaw_eval.fixtures.selection import select
from zeroclaw_eval.fixtures.sharding import Shard, shard_files, suite_digest
from zeroclaw_eval.fixtures.suite import display_path, fixture_files, shown_path as _shown
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.grading.result import GradeResult, located
from zeroclaw_eval.report.model import CaseError, CaseReport, ShardInfo, SuiteReport
from zeroclaw_eval.report.repeats import check_repeat, combine
from zeroclaw_eval.report.scrub import scrub_case
from zeroclaw_eval.run.agent import AgentFactory, reference_agent
from zeroclaw_eval.run.case_run import case_run
from zeroclaw_eval.run.command_agent import AgentCommand
from zeroclaw_eval.run.interrupt import cancel_on_signals
from zeroclaw_eval.run.project_tools import ProjectTool, toolset
from zeroclaw_eval.run.provider import Provider
from zeroclaw_eval.run.tools import Tool

CaseDone = Callable[[Case | RejectedFixture, CaseReport], None]


@dataclass(frozen=True)
class RunOptions:
    """How to run cases (the CLI builds this from config and flags)."""

    mode: str = "replay"
    agent_factory: AgentFactory = field(default=reference_agent)
    case_timeout_secs: float = 120.0
    max_tool_iterations: int = 10
    #: The largest fixture file admitted (`[eval].max_fixture_bytes`).
    max_fixture_bytes: int = DEFAULT_MAX_FIXTURE_BYTES
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
    #: On SIGINT or SIGTERM, cancel the running cases (each removes its workspace) and
    #: return a report of the finished ones, marked `interrupted` (the CLI's choice);
    #: False keeps Python's own behaviour (SIGINT raises `KeyboardInterrupt`).
    stop_on_signals: bool = False
    #: Run only this part of the suite (`--shard K/N`); None: all of it.
    shard: Shard | None = None
    #: Live mode: runs of each case (`--repeat`), and the share that must pass (None: all).
    repeat: int = 1
    min_pass_rate: float | None = None

    def __post_init__(self) -> None:
        refuse_live_agent_cmd(self.live is not None, self.agent_cmd)
        check_repeat(self.repeat, self.min_pass_rate, live=self.live is not None)


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
    #: The tools a fixture may name (None: any, for an agent command that runs its own).
    known: frozenset[str] | None = None
    #: The live provider, in live mode.
    live: Provider | None = None
    #: Cases that did not pass so far (for `maxfail`), and those never started.
    stop: _Stop = field(default_factory=lambda: _Stop())


@dataclass
class _Stop:
    failed: int = 0
    not_run: int = 0
    #: The signal that stopped the run, if one did.
    interrupted: str | None = None


def run_suite(suite: Path | Sequence[Path], options: RunOptions | None = None) -> SuiteReport:
    """Load and run a suite (a folder), or the fixtures and folders `suite` lists; the
    report lists cases in the order of their files."""
    options = options or RunOptions()
    started = time.perf_counter()
    targets = [suite] if isinstance(suite, Path) else list(suite)
    tools = toolset(options.tools)
    known = None if options.agent_cmd is not None else frozenset(tools)
    files = fixture_files(targets)
    shard = None
    if options.shard is not None:
        digest = suite_digest(files)
        shard = ShardInfo(options.shard.index, options.shard.count, digest, len(files))
        files = shard_files(files, options.shard)
    # Without -k each fixture is loaded when its turn comes, and only its report outlives
    # it: a large suite is never held whole. -k reads every fixture's names first.
    run = _Run(options, tools, known)
    selected: list[Case | RejectedFixture | Path] = list(files)
    if options.keyword is not None:
        selected = [*select([_loaded(path, run) for path in files], options.keyword)]
    if options.on_selected is not None:
        options.on_selected(len(selected))
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
        deselected=len(files) - len(selected),
        not_run=run.stop.not_run,
        interrupted=run.stop.interrupted,
        shard=shard,
    )


async def run_case(case: Case, options: RunOptions | None = None) -> CaseReport:
    """Run one admitted case in a fresh workspace with a fresh agent, and grade it.

    In live mode (`options.live`) the case runs against the configured provider inside
    the live sandbox; otherwise its scripted steps are replayed.
    """
    options = options or RunOptions()
    run = _Run(replace(options, maxfail=None), toolset(options.tools))
    return (await _run_all([case], run))[0]


async def _run_all(fixtures: list[Case | RejectedFixture | Path], run: _Run) -> list[CaseReport]:
    options = run.options
    if options.live is None:
        return await _run_each(fixtures, run)
    from zeroclaw_eval.run.live import live_provider  # only live mode pays for httpx

    async with live_provider(options.live, connections=max(options.jobs, 1) * 2) as provider:
        return await _run_each(fixtures, replace(run, live=provider))


async def _run_each(fixtures: list[Case | RejectedFixture | Path], run: _Run) -> list[CaseReport]:
    options = run.options
    reports: list[CaseReport | None] = [None] * len(fixtures)
    settled = [False] * len(fixtures)  # reported, or left out past --maxfail

    async def one(index: int, fixture: Case | RejectedFixture | Path) -> None:
        fixture = _loaded(fixture, run)
        # A rejected fixture costs nothing to report, and must always be: past --maxfail
        # only cases that would have to run are left out.
        stopped = options.maxfail is not None and run.stop.failed >= options.maxfail
        if stopped and isinstance(fixture, Case):
            run.stop.not_run += 1
            settled[index] = True
            return
        if isinstance(fixture, RejectedFixture):
            report = _rejected(fixture)
        else:
            attempts = [await _run_case(fixture, run, _shown(fixture.path)) for _ in range(options.repeat)]
            report = combine(attempts, options.min_pass_rate)
            if options.live is not None:
                report = scrub_case(report, [options.live.api_key])
        if not report.passed:
            run.stop.failed += 1
        reports[index], settled[index] = report, True
        if options.on_case_done is not None:
            options.on_case_done(fixture, report)

    async def every() -> None:
        if options.jobs <= 1:
            for index, fixture in enumerate(fixtures):  # no task per case when serial
                await one(index, fixture)
            return
        slots = asyncio.Semaphore(options.jobs)

        async def bounded(index: int, fixture: Case | RejectedFixture | Path) -> None:
            async with slots:
                await one(index, fixture)

        await asyncio.gather(*(bounded(index, fixture) for index, fixture in enumerate(fixtures)))

    if not options.stop_on_signals:
        await every()
    else:
        work = asyncio.ensure_future(every())
        with cancel_on_signals(work.cancel) as caught:
            try:
                await work
            except asyncio.CancelledError:
                if caught.signal is None:
                    raise
        if caught.signal is not None:
            run.stop.interrupted = caught.signal
            for index, fixture in enumerate(fixtures):
                if settled[index]:
                    continue
                if isinstance(loaded := _loaded(fixture, run), RejectedFixture):  # always reported
                    reports[index] = _rejected(loaded)
                else:
                    run.stop.not_run += 1  # never started, or cancelled before it finished
    # Fixture order, whatever finished first.
    return [report for report in reports if report is not None]


def _loaded(fixture: Case | RejectedFixture | Path, run: _Run) -> Case | RejectedFixture:
    if not isinstance(fixture, Path):
        return fixture
    return load_fixture(fixture, run.known, max_bytes=run.options.max_fixture_bytes)


def _rejected(fixture: RejectedFixture) -> CaseReport:
    shown = _shown(fixture.path)
    return CaseReport(fixture.name, shown, fixture.model_name, problems=fixture.problems, source=fixture.text)


async def _run_case(case: Case, run: _Run, shown: str) -> CaseReport:
    trace = case.trace
    options = run.options
    try:
        async with case_run(
            case,
            options.agent_factory,
            agent_cmd=options.agent_cmd,
            case_timeout_secs=options.case_timeout_secs,
            max_tool_iterations=options.max_tool_iterations,
            tools=run.tools,
            live=run.live,
            live_allowed=options.live.allowed_tools if options.live is not None else (),
        ) as done:
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
