"""One case through the stages after admission: run in a fresh workspace as the settings say,
graded, reported."""

from __future__ import annotations

import sys
from contextlib import AbstractAsyncContextManager, AbstractContextManager, AsyncExitStack
from dataclasses import dataclass, replace
from types import TracebackType

from zeroclaw_eval._support.frozen import quick_init
from zeroclaw_eval.agent.deadline import bounded_blocking
from zeroclaw_eval.agent.drive import drive
from zeroclaw_eval.agent.settings import CaseSettings
from zeroclaw_eval.agent.simulated_user import UserModel
from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, Provider, ToolChoice, ToolSpec
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.cases.model import JudgeVerdict
from zeroclaw_eval.collect.suite import shown_path
from zeroclaw_eval.errors import EvalError, RunError
from zeroclaw_eval.grading.budget_checks import cost_check
from zeroclaw_eval.grading.grader import grade, in_words
from zeroclaw_eval.grading.result import GradeResult, located
from zeroclaw_eval.report.compact import settled
from zeroclaw_eval.report.cost import run_cost
from zeroclaw_eval.report.model import CaseError, CaseReport, XfailMark
from zeroclaw_eval.report.resume import fixture_digest
from zeroclaw_eval.report.tracing import traceparent as case_traceparent
from zeroclaw_eval.runner.judging import judged as judged_expects, rewrite_fixture
from zeroclaw_eval.runner.options import Run, RunOptions
from zeroclaw_eval.tools.sandbox import case_workspace, needs_workspace
from zeroclaw_eval.tools.workspace import Workspace


@quick_init
@dataclass(frozen=True)
class CaseRun:
    """A finished run: what it recorded, its workspace (open), the run error if any."""

    record: RunRecord
    workspace: Workspace | None
    error: RunError | None


def case_run(
    case: Case,
    settings: CaseSettings,
    live: Provider | None = None,
    *,
    alone: bool = False,
    traceparent: str | None = None,
    user: UserModel | None = None,
) -> AbstractAsyncContextManager[CaseRun]:
    """Run `case` as `settings` say (against `live` in live mode) in a fresh workspace,
    which stays until the block ends and is then removed (what could not be removed is
    `workspace.leftover`): the runner's cases and mutation testing's replays alike.
    `alone`: no other case runs in this event loop meanwhile (see `drive`). Raises
    `OSError` when the workspace cannot be made or seeded."""
    return _CaseRun(case, settings, live, alone, traceparent, user)


class _CaseRun:
    """`case_run`'s block, written out rather than made by `asynccontextmanager`, whose
    generator costs a microsecond or two to enter and leave for every case (most of which
    need no workspace either)."""

    def __init__(
        self,
        case: Case,
        settings: CaseSettings,
        live: Provider | None,
        alone: bool,
        traceparent: str | None,
        user: UserModel | None = None,
    ) -> None:
        self._case, self._settings, self._live, self._alone = case, settings, live, alone
        self._traceparent, self._user = traceparent, user
        self._workspace: AbstractContextManager[Workspace | None] | None = None

    async def __aenter__(self) -> CaseRun:
        case, settings = self._case, self._settings
        workspace = None
        # An agent command always runs in a workspace: it is its working directory.
        if settings.agent_cmd is not None or needs_workspace(case.trace):
            self._workspace = case_workspace(case.trace, needed=True)
            workspace = self._workspace.__enter__()
        try:
            record = RunRecord()
            with bounded_blocking():  # an async turn that blocks the loop ends at its limit too
                error = await drive(
                    case,
                    record,
                    workspace,
                    settings,
                    self._live,
                    alone=self._alone,
                    traceparent=self._traceparent,
                    user=self._user,
                )
        except BaseException:
            if self._workspace is not None:  # removed, as the block's end would have
                self._workspace.__exit__(*sys.exc_info())
            raise
        return CaseRun(record, workspace, error)

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> bool:
        if self._workspace is None:
            return False
        return bool(self._workspace.__exit__(kind, value, trace))


def rejected(fixture: RejectedFixture) -> CaseReport:
    """The report of a fixture admission refused."""
    shown = shown_path(fixture.path)
    return CaseReport(
        fixture.name,
        shown,
        fixture.model_name,
        problems=fixture.problems,
        source=fixture.text,
        fixture_sha256=fixture_digest(fixture.text),
    )


async def _simulated_user(case: Case, options: RunOptions, stack: AsyncExitStack) -> UserModel | None:
    """The case's simulated user, in live mode, played by the model of its `model` table
    (else the live provider's), over a client `stack` closes; None where it has none. A
    table that is missing or has no key makes a user whose first turn fails, saying so: a
    run error of this case, not of the run."""
    spec = case.trace.simulated_user
    if spec is None or options.live is None:
        return None
    from zeroclaw_eval.backends.live import live_provider, provider_limit

    name = spec.model
    try:
        chosen = options.live if name is None or options.judges is None else options.judges.options(name)
    except EvalError as exc:
        return UserModel(spec, _Unreachable(str(exc)))
    limit = provider_limit(options.limits, chosen.provider)
    provider = await stack.enter_async_context(live_provider(chosen, limit=limit))
    return UserModel(spec, provider)


class _Unreachable:
    """The provider of a simulated user whose model cannot be asked: each request fails."""

    def __init__(self, why: str) -> None:
        self._why = why

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        raise EvalError(self._why)


def _priced(options: RunOptions) -> bool:
    """Whether the run's model requests have a price: live mode with a priced provider."""
    return options.live is not None and options.live.provider.prices is not None


def _cost(record: RunRecord, options: RunOptions) -> float | None:
    """What the run's model requests cost at the live provider's prices (`report.cost`);
    None in replay or without prices."""
    prices = options.live.provider.prices if options.live is not None else None
    if prices is None:
        return None
    return run_cost(record.steps, prices.input, prices.output, prices.cached_input)


async def run_one(case: Case, run: Run, shown: str) -> CaseReport:
    """Run `case` once and grade it; `shown` is its path as reports show it."""
    trace = case.trace
    options = run.options
    try:
        # Cases of one process run one at a time unless `--jobs` overlaps them in it.
        parent = case_traceparent(options.trace_id, shown) if options.trace_id else None
        async with AsyncExitStack() as stack:
            user = await _simulated_user(case, options, stack)
            done = await stack.enter_async_context(
                case_run(case, options, run.live, alone=run.jobs <= 1, traceparent=parent, user=user)
            )
            record, workspace, error = done.record, done.workspace, done.error
            expects = trace.expects
            judged: dict[int, list[JudgeVerdict]] = {}
            unasked: dict[int, str] = {}
            judge_cost: float | None = None
            if options.judges is not None and expects.judge:
                asked = await judged_expects(expects, record, options.judges)
                expects, judged, unasked = asked.expects, asked.verdicts, asked.unasked
                judge_cost = asked.cost_usd
            # Passing checks in words only where something shows them (see `grade`).
            words = options.keep_passing
            grades = _unasked(grade(expects, record, workspace, words=words), unasked)
            # A judge check no calibration backs is reported, and decides nothing.
            grades = options.judge_gate.apply(grades, expects, record)
            cost = _cost(record, options)
            grades += cost_check(expects, cost, _priced(options))
    except OSError as exc:  # a full disk, say: this case cannot run, the others still can
        message = f"cannot seed the case workspace: {exc.strerror or exc}"
        seeding = CaseError(message, case.locate("/setup/workspace_files", at_key=True))
        return CaseReport(
            case.name,
            shown,
            trace.model_name,
            error=seeding,
            id=trace.id,
            cluster=trace.cluster,
            xfail=_xfail_of(case),
            fixture_sha256=fixture_digest(case.text),
        )
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
        cluster=trace.cluster,
        xfail=_xfail_of(case),
        grades=[_located(case, g) for g in grades],
        error=_case_error(case, error) if error else None,
        duration_ms=record.duration_ms,
        record=record,
        judged=judged,
        cost_usd=cost,
        judge_cost_usd=judge_cost,
        fixture_sha256=fixture_digest(case.text),
    )
    if judged and options.judges is not None and options.judges.again and options.live is None:
        try:
            rewrite_fixture(case.path, case.text, judged)  # --rejudge in replay: the verdicts kept
        except OSError as exc:  # this case's file only: the others are still written
            message = f"the judges' verdicts could not be written into the fixture: {exc.strerror or exc}"
            report.error = CaseError(message, case.locate("/expects/judge", at_key=True))
    if not settled(report):  # a case with a failed check, a diagnostic one too, keeps every detail
        if not words:  # (a judge check always has its words, and so keeps its mark)
            report.grades = [_located(case, g) for g in in_words(grades, expects, record)]
        report.source = case.text  # reporters show the fixture around its failing fields
    return report


def _unasked(grades: list[GradeResult], unasked: dict[int, str]) -> list[GradeResult]:
    """The grades, each judge check whose judge could not be asked failing with why."""
    if not unasked:
        return grades
    failing = {f"judge[{index}]": reason for index, reason in unasked.items()}
    # A check with dimensions grades each as `judge[N].NAME`: all fail with their check.
    check = {g.check_id: g.check_id.split(".", 1)[0] for g in grades if g.check_id.startswith("judge[")}
    return [
        replace(g, passed=False, detail=f"the judge could not be asked: {failing[check[g.check_id]]}")
        if check.get(g.check_id) in failing
        else g
        for g in grades
    ]


def _case_error(case: Case, error: RunError) -> CaseError:
    return CaseError(error.message, case.locate(error.pointer, at_key=True), error.traceback)


def _located(case: Case, result: GradeResult) -> GradeResult:
    # Only failing checks are located: a green suite never pays for the position scan.
    return result if result.passed else located(case, result)


def _xfail_of(case: Case) -> XfailMark | None:
    """The case's `xfail` mark as its report keeps it, at its place in the fixture."""
    mark = case.trace.xfail
    return None if mark is None else XfailMark(mark.reason, mark.strict, case.locate("/xfail", at_key=True))
