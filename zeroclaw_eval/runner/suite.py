"""Run cases: each fixture through the stages (admit, run, grade, report), in isolation.

A suite run is two named steps, which every front end shares: `collect` (the fixtures
the targets name, a shard's part, `-k`) and `run_collected` (each case run and graded,
one report). A failure inside one case (a rejected fixture, a divergence from the
script, an agent that raises, a timeout) is data in that case's report; the suite always
runs to the end. Only a configuration that
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
from zeroclaw_eval.cases.admission import load_fixture
from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.cases.location import FixtureProblem
from zeroclaw_eval.cases.questions import digest
from zeroclaw_eval.collect.collection import Collection, Fixture, collect_suite
from zeroclaw_eval.collect.suite import shown_path
from zeroclaw_eval.errors import SystemProblem
from zeroclaw_eval.grading.judges.check import judged_text
from zeroclaw_eval.report.codec import scrub_case
from zeroclaw_eval.report.compact import compact_case
from zeroclaw_eval.report.model import REJECTED, CaseReport, ShardInfo, SuiteReport
from zeroclaw_eval.report.repeats import combine
from zeroclaw_eval.report.tracing import new_trace_id
from zeroclaw_eval.runner.case import rejected, run_one
from zeroclaw_eval.runner.options import Run, RunOptions, Settle, Stop
from zeroclaw_eval.runner.signals import cancel_on_signals, run_main

if TYPE_CHECKING:
    from zeroclaw_eval.runner.workers import Board


def run_suite(suite: Path | Sequence[Path], options: RunOptions | None = None) -> SuiteReport:
    """Load and run a suite (a folder), or the fixtures and folders `suite` lists; the
    report lists cases in the order of their files. `collect` then `run_collected`."""
    options = options or RunOptions()
    return run_collected(collect(suite, options), options)


def collect(suite: Path | Sequence[Path], options: RunOptions) -> Collection:
    """The fixtures a run of `suite` takes, as `options` select them (the shard's part,
    `-k`); `UsageError` for a path that names no fixture, before any case runs."""
    targets = [suite] if isinstance(suite, Path) else list(suite)
    return collect_suite(
        targets,
        nameable=options.nameable_tools,
        max_bytes=options.max_fixture_bytes,
        keyword=options.keyword,
        shard=options.shard,
        durations=options.shard_durations,
        skip=options.skip,
    )


def run_collected(collection: Collection, options: RunOptions) -> SuiteReport:
    """Run the cases `collection` selected, as `options` say, into one report."""
    if options.trace_id is None:  # one trace for the run, its workers' cases included
        options = replace(options, trace_id=new_trace_id())
    run = Run.of(options)
    if options.on_selected is not None:
        options.on_selected(len(collection.selected))
    try:
        cases = run_main(_run_all(collection.selected, run))
    except SystemExit as exc:
        # Nothing of the harness exits from inside a run: this is the code of an agent (its
        # `aclose`, a task of its own) calling `sys.exit`, which asyncio lets out of the
        # event loop wherever it is raised in a task. Its status (0, say) is no verdict.
        raise SystemProblem(
            f"the agent's code called sys.exit({exc.code!r}) outside its turns (in its aclose,"
            " or in a task of its own), which stops the event loop: the run cannot go on, and"
            " no report was written"
        ) from None
    duration = (time.perf_counter() - collection.started) * 1000
    shard = None
    if collection.shard is not None and collection.digest is not None:
        index, count = collection.shard.index, collection.shard.count
        shard = ShardInfo(index, count, collection.digest, len(collection.files))
    return SuiteReport(
        collection.label,
        options.mode,
        cases,
        duration,
        __version__,
        os.getcwd(),
        deselected=collection.deselected,
        not_run=run.stop.not_run,
        interrupted=run.stop.interrupted,
        shard=shard,
        details=options.details,
        trace_id=options.trace_id,
        settings_sha256=options.settings_sha256,
        max_cost_usd=options.max_cost_usd,
    )


async def run_case(case: Case, options: RunOptions | None = None) -> CaseReport:
    """Run one admitted case in a fresh workspace with a fresh agent, and grade it.

    In live mode (`options.live`) the case runs against the configured provider inside
    the live sandbox; otherwise its scripted steps are replayed.
    """
    options = options or RunOptions()
    return (await _run_all([case], replace(Run.of(options), maxfail=None)))[0]


async def _run_all(fixtures: list[Fixture], run: Run) -> list[CaseReport]:
    try:
        return await _run_mode(fixtures, run)
    finally:
        # What outlives a case (an agent service, the MCP server) ends with the run,
        # however it ended.
        options = run.options
        close = getattr(options.agent_cmd, "aclose", None)
        if close is not None:
            await close()
        if "mcp_tools" in vars(options):  # made only when a case needed it
            options.mcp_tools.close()


async def _run_mode(fixtures: list[Fixture], run: Run) -> list[CaseReport]:
    options = run.options
    if options.live is None:
        return await _run_each(fixtures, run)
    from zeroclaw_eval.backends.live import live_provider, provider_limit  # only live mode pays for httpx

    limit = provider_limit(options.limits, options.live.provider)  # shared with its judges, if one table
    async with live_provider(options.live, connections=max(run.jobs, 1) * 2, limit=limit) as provider:
        return await _run_each(fixtures, replace(run, live=provider))


async def _run_each(fixtures: list[Fixture], run: Run) -> list[CaseReport]:
    options = run.options
    reports: list[CaseReport | None] = [None] * len(fixtures)
    settled = [False] * len(fixtures)  # reported, or left out past --maxfail

    def settle(index: int, fixture: Fixture, report: CaseReport | None) -> None:
        settled[index] = True
        if report is not None:
            reports[index] = report
            if run.on_case_done is not None:
                run.on_case_done(fixture, report)

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
            if len(fixtures) > 1 and _forks(run):
                from zeroclaw_eval.runner.workers import in_workers  # only --jobs pays for the pool

                await in_workers(len(fixtures), run.jobs, partial(_chunk, fixtures, run), take)
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
                    # Nothing but the signal handler cancels this task, which runs the
                    # cases one after another: the code of a case did (an agent that
                    # cancels its own task), and the cases after it cannot run.
                    raise SystemProblem(
                        "a case cancelled the task that runs the cases (an agent that cancels"
                        " its own task?), so the run cannot go on; no report was written"
                    ) from None
        if caught.signal is not None:
            run.stop.interrupted = caught.signal
            for index, fixture in enumerate(fixtures):
                if settled[index]:
                    continue
                if isinstance(loaded := admitted(fixture, options), RejectedFixture):  # always reported
                    reports[index] = rejected(loaded)
                else:
                    run.stop.not_run += 1  # never started, or cancelled before it finished
    if run.stop.interrupted is None and not all(settled):
        # Every case is reported or left out on purpose (--maxfail): a case that vanished
        # (a worker's share that ended early) must not leave a report that passes.
        first = fixtures[settled.index(False)]
        where = shown_path(first if isinstance(first, Path) else first.path)
        raise SystemProblem(
            f"{settled.count(False)} case(s) ended without a report, the first {where}:"
            " the run cannot vouch for them"
        )
    # Fixture order, whatever finished first.
    return [report for report in reports if report is not None]


async def _each(fixtures: list[Fixture], run: Run, settle: Settle) -> None:
    options = run.options

    async def one(index: int, fixture: Fixture) -> None:
        fixture = admitted(fixture, options)
        # A rejected fixture costs nothing to report, and must always be: past --maxfail
        # only cases that would have to run are left out.
        report: CaseReport | None = None
        if isinstance(fixture, RejectedFixture):
            report = rejected(fixture)
        elif not run.stopped():
            attempts = [await run_one(fixture, run, shown_path(fixture.path)) for _ in range(options.repeat)]
            report = combine(attempts, options.min_pass_rate)
            if options.live is not None:
                secrets = [options.live.api_key, *(options.judges.secrets() if options.judges else ())]
                # The verdicts are no part of the report's JSON (which the scrub goes through).
                report = replace(scrub_case(report, secrets), judged=report.judged)
                _record(fixture, report, options)
            if not options.keep_passing:
                report = compact_case(report)  # in a worker too: less to send the parent
        run.stop.count(report)
        settle(index, fixture, report)

    serial = options.agent_cmd is not None and options.agent_cmd.serial  # an agent service
    if run.jobs <= 1 or serial:
        polled = time.monotonic()
        for index, fixture in enumerate(fixtures):  # no task per case when serial
            await one(index, fixture)
            if time.monotonic() - polled >= POLL_SECS:
                # A replay whose turns never suspend never lets the loop run, and the loop
                # is what reads a signal (Ctrl-C) from its wake-up pipe: give it a turn.
                await asyncio.sleep(0)
                polled = time.monotonic()
        return
    slots = asyncio.Semaphore(run.jobs)

    async def bounded(index: int, fixture: Fixture) -> None:
        async with slots:
            await one(index, fixture)

    await asyncio.gather(*(bounded(index, fixture) for index, fixture in enumerate(fixtures)))


#: How long a serial run goes on without letting the event loop see a signal.
POLL_SECS = 0.05


def _forks(run: Run) -> bool:
    # Replayed cases with an in-process agent are CPU work: worker processes share it out.
    # Live mode and agent commands wait on the network and on processes instead, which
    # tasks in one process overlap well, and live mode's one provider is not forked.
    options = run.options
    if run.jobs <= 1 or options.live is not None or options.agent_cmd is not None:
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
    mine = replace(run, jobs=1, on_case_done=None, stop=Stop(board=board))
    await _each([fixtures[i] for i in chunk], mine, lambda i, _, report: put((chunk[i], report)))


def admitted(fixture: Fixture, options: RunOptions) -> Case | RejectedFixture:
    """A fixture of a collection as admission makes it, read now if it is still a path
    (with the tools `options` let a fixture name, no file over their size limit)."""
    if isinstance(fixture, Path):
        fixture = load_fixture(fixture, options.nameable_tools, max_bytes=options.max_fixture_bytes)
    playable = options.user_models or options.live is not None
    if isinstance(fixture, Case) and fixture.trace.simulated_user is not None and not playable:
        # Refused in replay too, where it is never called: a suite whose simulated users
        # no model could play is one whose live runs cannot run.
        message = (
            "a simulated user is played by a model in live mode, and none is configured: set"
            " [eval].live_provider to a [providers.models.NAME] table"
        )
        problem = FixtureProblem(fixture.locate("/simulated_user", at_key=True), message)
        return RejectedFixture(fixture.name, fixture.path, [problem], fixture.text, fixture.trace.model_name)
    return fixture


def _record(case: Case, report: CaseReport, options: RunOptions) -> None:
    """`--record`: a finished live run of `case` written as a replay fixture, and said so."""
    if options.record_dir is None or options.live is None or report.record is None:
        return
    if report.error is not None and report.error.field.pointer.startswith("/simulated_user"):
        return  # a conversation cut short by the user model is no case: the scripted turns alone would pass
    from zeroclaw_eval.backends.capture import write_captured_fixture

    live = options.live
    # The verdicts judged the answer as the model gave it; the fixture holds it scrubbed,
    # and a replay grades the scrubbed one: that is the text they are recorded for.
    checks = case.trace.expects.judge
    record = report.record
    verdicts = {
        i: [v.model_copy(update={"text_sha256": digest(judged_text(checks[i], record))}) for v in vs]
        for i, vs in report.judged.items()
    }
    path = write_captured_fixture(
        options.record_dir,
        case,
        report.record,
        [live.api_key, *(options.judges.secrets() if options.judges else ())],
        live.allowed_tools,
        as_doubles=options.recorded_as_doubles,
        verdicts=verdicts,
        builtin_tools=options.builtin_tools,
    )
    if options.on_recorded is not None:
        options.on_recorded(case, path)
