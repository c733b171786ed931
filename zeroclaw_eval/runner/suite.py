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
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zeroclaw_eval._version import __version__
from zeroclaw_eval.agent.deadline import bounded_blocking
from zeroclaw_eval.collect.sharding import shard_files, suite_digest
from zeroclaw_eval.collect.suite import display_path, fixture_files, load_fixtures, shown_path
from zeroclaw_eval.fixtures.admission import load_fixture
from zeroclaw_eval.fixtures.case import Case, RejectedFixture
from zeroclaw_eval.report.codec import scrub_case
from zeroclaw_eval.report.model import REJECTED, CaseReport, ShardInfo, SuiteReport
from zeroclaw_eval.report.repeats import combine
from zeroclaw_eval.runner.case import rejected, run_one
from zeroclaw_eval.runner.options import (
    CaseDone,
    Fixture,
    Run,
    RunOptions,
    Settle,
    Stop,
    nameable_tools,
    refuse_live_agent_cmd,
)
from zeroclaw_eval.runner.signals import cancel_on_signals
from zeroclaw_eval.tools.project import toolset

if TYPE_CHECKING:
    from zeroclaw_eval.runner.workers import Board

__all__ = ["CaseDone", "RunOptions", "refuse_live_agent_cmd", "run_case", "run_suite"]


def run_suite(suite: Path | Sequence[Path], options: RunOptions | None = None) -> SuiteReport:
    """Load and run a suite (a folder), or the fixtures and folders `suite` lists; the
    report lists cases in the order of their files."""
    options = options or RunOptions()
    started = time.perf_counter()
    targets = [suite] if isinstance(suite, Path) else list(suite)
    tools = toolset(options.tools)
    known = nameable_tools(options, tools)
    files = fixture_files(targets)
    shard = None
    if options.shard is not None:
        digest = suite_digest(files)
        shard = ShardInfo(options.shard.index, options.shard.count, digest, len(files))
        files = shard_files(files, options.shard)
    # Without -k each fixture is loaded when its turn comes, and only its report outlives
    # it: a large suite is never held whole. -k reads every fixture's names first.
    run = Run(options, tools, known)
    selected: list[Fixture] = list(files)
    if options.keyword is not None:
        selected = [
            *load_fixtures(files, known, max_bytes=options.max_fixture_bytes, keyword=options.keyword)
        ]
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
    run = Run(replace(options, maxfail=None), toolset(options.tools))
    return (await _run_all([case], run))[0]


async def _run_all(fixtures: list[Fixture], run: Run) -> list[CaseReport]:
    options = run.options
    if options.live is None:
        return await _run_each(fixtures, run)
    from zeroclaw_eval.backends.live import live_provider  # only live mode pays for httpx

    async with live_provider(options.live, connections=max(options.jobs, 1) * 2) as provider:
        return await _run_each(fixtures, replace(run, live=provider))


async def _run_each(fixtures: list[Fixture], run: Run) -> list[CaseReport]:
    options = run.options
    reports: list[CaseReport | None] = [None] * len(fixtures)
    settled = [False] * len(fixtures)  # reported, or left out past --maxfail

    def settle(index: int, fixture: Fixture, report: CaseReport | None) -> None:
        settled[index] = True
        if report is not None:
            reports[index] = report
            if options.on_case_done is not None:
                options.on_case_done(fixture, report)

    def take(results: Sequence[tuple[int, CaseReport | None]]) -> bool:
        for index, report in results:  # a worker's chunk, counted here in fixture order
            if run.stopped() and report is not None and report.status != REJECTED:
                # Run by a worker that could not yet know of the failures before it: in
                # one process it would not have started, and so it is not run here.
                report = None
            run.stop.count(report)
            settle(index, fixtures[index], report)
        return run.stopped()

    async def every() -> None:
        # Installed once for the suite (each case's own block is then a counter), and
        # inherited by forked workers.
        with bounded_blocking():
            if len(fixtures) > 1 and _forks(options):
                from zeroclaw_eval.runner.workers import in_workers  # only --jobs pays for the pool

                await in_workers(len(fixtures), options.jobs, partial(_chunk, fixtures, run), take)
            else:
                await _each(fixtures, run, settle)

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
                    reports[index] = rejected(loaded)
                else:
                    run.stop.not_run += 1  # never started, or cancelled before it finished
    # Fixture order, whatever finished first.
    return [report for report in reports if report is not None]


async def _each(fixtures: list[Fixture], run: Run, settle: Settle) -> None:
    options = run.options

    async def one(index: int, fixture: Fixture) -> None:
        fixture = _loaded(fixture, run)
        # A rejected fixture costs nothing to report, and must always be: past --maxfail
        # only cases that would have to run are left out.
        report: CaseReport | None = None
        if isinstance(fixture, RejectedFixture):
            report = rejected(fixture)
        elif not run.stopped():
            attempts = [await run_one(fixture, run, shown_path(fixture.path)) for _ in range(options.repeat)]
            report = combine(attempts, options.min_pass_rate)
            if options.live is not None:
                report = scrub_case(report, [options.live.api_key])
        run.stop.count(report)
        settle(index, fixture, report)

    if options.jobs <= 1:
        for index, fixture in enumerate(fixtures):  # no task per case when serial
            await one(index, fixture)
        return
    slots = asyncio.Semaphore(options.jobs)

    async def bounded(index: int, fixture: Fixture) -> None:
        async with slots:
            await one(index, fixture)

    await asyncio.gather(*(bounded(index, fixture) for index, fixture in enumerate(fixtures)))


def _forks(options: RunOptions) -> bool:
    # Replayed cases with an in-process agent are CPU work: worker processes share it out.
    # Live mode and agent commands wait on the network and on processes instead, which
    # tasks in one process overlap well, and live mode's one provider is not forked.
    if options.jobs <= 1 or options.live is not None or options.agent_cmd is not None:
        return False
    from zeroclaw_eval.runner.workers import forkable

    return forkable()


async def _chunk(
    fixtures: list[Fixture], run: Run, chunk: range, board: Board, put: Callable[[Any], None]
) -> None:
    """A worker's share: the cases of `chunk` one after another, each report `put` with its
    index (None for a case left out). Its failures count on the board, so a worker stops
    as soon as the failures before its case, in fixture order, reach `maxfail`; the
    parent then cuts the report where one process would have stopped."""
    options = replace(run.options, jobs=1, on_case_done=None)
    mine = replace(run, options=options, stop=Stop(board=board))
    await _each([fixtures[i] for i in chunk], mine, lambda i, _, report: put((chunk[i], report)))


def _loaded(fixture: Fixture, run: Run) -> Case | RejectedFixture:
    if not isinstance(fixture, Path):
        return fixture
    return load_fixture(fixture, run.known, max_bytes=run.options.max_fixture_bytes)
