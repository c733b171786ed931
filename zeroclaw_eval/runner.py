"""Run cases: load a suite, replay each case through an agent in isolation, grade it.

The only module that imports everything. A failure inside one case (a rejected fixture,
a divergence from the script, an agent that raises, a timeout) is data in that case's
report; the suite always runs to the end.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

from zeroclaw_eval import __version__
from zeroclaw_eval.admission import Case, RejectedFixture, load_fixture
from zeroclaw_eval.agent import AgentContext, AgentFactory, reference_agent
from zeroclaw_eval.config import ProviderSettings
from zeroclaw_eval.errors import EvalError, RunError, UsageError
from zeroclaw_eval.grader import GradeResult, grade
from zeroclaw_eval.provider import Provider, RecordingProvider
from zeroclaw_eval.record import RunRecord, TurnRecord
from zeroclaw_eval.replay import ReplayProvider
from zeroclaw_eval.report import CaseError, CaseReport, SuiteReport, scrub_case
from zeroclaw_eval.tools import BUILTIN_TOOLS, WORKSPACE_TOOLS, ToolBox, tools_for_case
from zeroclaw_eval.workspace import Workspace

T = TypeVar("T")
CaseDone = Callable[[Case | RejectedFixture, CaseReport], None]


@dataclass(frozen=True)
class LiveOptions:
    """Live mode: the provider table, its key, and the tools live cases may use."""

    provider: ProviderSettings
    api_key: str
    #: `[eval].live_allowed_tools`; `echo` is always allowed.
    allowed_tools: frozenset[str] = frozenset()


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


def discover(suite_dir: Path) -> list[Path]:
    """The fixture files of a suite: direct `*.json` children, sorted by name."""
    if not suite_dir.is_dir():
        raise UsageError(f"suite folder not found: {suite_dir} (pass --suite DIR or set [eval].suite_dir)")
    return sorted(p for p in suite_dir.iterdir() if p.suffix == ".json" and p.is_file())


def load_suite(suite_dir: Path) -> list[Case | RejectedFixture]:
    """Admit every fixture of a suite; rejected fixtures are kept, not dropped."""
    return [load_fixture(path, BUILTIN_TOOLS) for path in discover(suite_dir)]


def display_path(path: Path) -> str:
    """`path` relative to the working directory when inside it, in POSIX form."""
    try:
        return Path(os.path.relpath(path)).as_posix() if path.is_absolute() else path.as_posix()
    except ValueError:  # another drive on Windows
        return path.as_posix()


def run_suite(suite_dir: Path, options: RunOptions | None = None) -> SuiteReport:
    """Load and run a whole suite; the report lists cases in fixture order."""
    options = options or RunOptions()
    started = time.perf_counter()
    fixtures = load_suite(suite_dir)
    suite = display_path(suite_dir)
    cases = asyncio.run(_run_all(fixtures, options, suite))
    duration = (time.perf_counter() - started) * 1000
    return SuiteReport(suite, options.mode, cases, duration, __version__, os.getcwd())


async def _run_all(
    fixtures: list[Case | RejectedFixture], options: RunOptions, suite: str
) -> list[CaseReport]:
    if options.live is None:
        return await _run_each(fixtures, options, suite, None)
    import httpx  # only live mode pays for it

    from zeroclaw_eval.live import OpenAIProvider

    live = options.live
    limits = httpx.Limits(max_connections=max(options.jobs, 1) * 2)
    async with httpx.AsyncClient(limits=limits) as client:
        provider = OpenAIProvider(live.provider, live.api_key, client)
        return await _run_each(fixtures, options, suite, provider)


async def _run_each(
    fixtures: list[Case | RejectedFixture], options: RunOptions, suite: str, live: Provider | None
) -> list[CaseReport]:
    async def one(fixture: Case | RejectedFixture) -> CaseReport:
        # Fixtures are direct children of the suite folder: one relpath serves them all.
        shown = f"{suite}/{fixture.name}" if suite != "." else fixture.name
        if isinstance(fixture, RejectedFixture):
            report = CaseReport(
                fixture.name, shown, fixture.model_name, problems=fixture.problems, source=fixture.text
            )
        else:
            report = await run_case(fixture, options, shown, live_provider=live)
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


async def run_case(
    case: Case,
    options: RunOptions | None = None,
    shown_path: str | None = None,
    *,
    live_provider: Provider | None = None,
) -> CaseReport:
    """Run one admitted case in a fresh workspace with a fresh agent, and grade it.

    Without `live_provider` the case's scripted steps are replayed; with it, the case
    runs against that provider inside the live sandbox (allowlisted tools, supervised).
    """
    options = options or RunOptions()
    trace = case.trace
    workspace = None
    if trace.needs_workspace(WORKSPACE_TOOLS):
        try:
            workspace = Workspace.create(trace.setup.workspace_files if trace.setup else None)
        except OSError as exc:  # a full disk, say: this case cannot run, the others still can
            message = f"cannot seed the case workspace: {exc.strerror or exc}"
            seeding = CaseError(message, case.locate("/setup/workspace_files", at_key=True))
            return CaseReport(
                case.name, shown_path or display_path(case.path), trace.model_name, error=seeding
            )
    try:
        record = RunRecord()
        error = await _drive(case, options, record, workspace, live_provider)
        grades = grade(trace.expects, record, workspace)
    finally:
        if workspace is not None:
            workspace.cleanup()
    report = CaseReport(
        name=case.name,
        path=shown_path or display_path(case.path),
        model_name=trace.model_name,
        grades=[_located(case, g) for g in grades],
        error=CaseError(error.message, case.locate(error.pointer, at_key=True)) if error else None,
        duration_ms=record.duration_ms,
        record=record,
    )
    if not report.passed:
        report.source = case.text  # reporters show the fixture around its failing fields
    return report


def locate_grade(case: Case, result: GradeResult) -> GradeResult:
    """`result` with the line and column of its fixture field filled in."""
    return replace(result, field=case.locate(result.field.pointer, at_key=True))


def _located(case: Case, result: GradeResult) -> GradeResult:
    # Only failing checks are located: a green suite never pays for the position scan.
    return result if result.passed else locate_grade(case, result)


def _toolbox(case: Case, options: RunOptions, record: RunRecord, workspace: Workspace | None) -> ToolBox:
    if options.live is None:
        return ToolBox(tools_for_case(case.trace.tools), record, workspace)
    # The live sandbox: built-in tools, limited to the case's own list and the allowlist;
    # anything else the model calls is denied, and the case fails for it.
    allowed = [tool for tool in case.trace.tools if tool in options.live.allowed_tools]
    return ToolBox(tools_for_case(allowed), record, workspace, supervised=True)


async def _drive(
    case: Case, options: RunOptions, record: RunRecord, workspace: Workspace | None, live: Provider | None
) -> RunError | None:
    script = ReplayProvider(case.trace) if live is None else None
    provider: Provider = live if live is not None else script  # type: ignore[assignment]
    recording = RecordingProvider(provider, record)
    toolbox = _toolbox(case, options, record, workspace)
    started = time.perf_counter()
    try:
        try:
            agent = options.agent_factory(AgentContext(recording, toolbox, options.max_tool_iterations))
        except Exception as exc:
            return RunError(f"the agent factory raised {type(exc).__name__}: {exc}")
        for index, turn in enumerate(case.trace.turns):
            if script is not None:
                script.begin_turn(index)
            recording.turn = toolbox.turn = index
            turn_record = TurnRecord(index, turn.user_input)
            record.turns.append(turn_record)
            try:
                answer = await _within(agent.run_turn(turn.user_input), options.case_timeout_secs)
            except asyncio.TimeoutError:
                return RunError(
                    f"turn {index + 1} timed out after {options.case_timeout_secs:g}s (case_timeout_secs)",
                    f"/turns/{index}",
                )
            except Exception as exc:
                # A divergence the script saw, or a denied approval, explains the exception
                # better than the agent's own wrapping of it.
                if script is not None and script.divergence is not None:
                    return script.divergence
                return _denied(index, toolbox) or RunError(
                    f"turn {index + 1}: {_describe(exc)}", f"/turns/{index}"
                )
            if not isinstance(answer, str):
                return RunError(
                    f"turn {index + 1}: the agent's run_turn returned {type(answer).__name__},"
                    " not the answer text (str)",
                    f"/turns/{index}",
                )
            turn_record.response = answer
            denied = _denied(index, toolbox)
            if denied is not None:
                return denied
            leftover = script.finish_turn() if script is not None else None
            if leftover is not None:
                return leftover
        return None
    finally:
        record.duration_ms = (time.perf_counter() - started) * 1000


def _denied(index: int, toolbox: ToolBox) -> RunError | None:
    if not toolbox.denials:
        return None
    return RunError(
        f"turn {index + 1}: {toolbox.denials[0]} (live mode is supervised: only echo and the tools in"
        " both the case's tools and [eval].live_allowed_tools are approved; the rest are denied)",
        f"/turns/{index}",
    )


async def _within(awaitable: Awaitable[T], seconds: float) -> T:
    """Await with a time limit; `asyncio.timeout` spares the task `wait_for` creates."""
    if sys.version_info >= (3, 11):
        async with asyncio.timeout(seconds):
            return await awaitable
    return await asyncio.wait_for(awaitable, seconds)  # pragma: no cover - Python 3.10


def _describe(exc: BaseException) -> str:
    if isinstance(exc, EvalError):
        return str(exc)
    return f"the agent raised {type(exc).__name__}: {exc}"
