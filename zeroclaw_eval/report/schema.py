"""The JSON report as a strict, typed model: what a saved report must be before anything
reads it (`render`, `merge`, `--baseline`, the pytest plugin's reports).

A saved report is input like any other: a file a user or a CI step hands over, which may
have been edited, truncated, or written by hand to make a gate pass. So it is read the
way fixtures are, fail-closed: every field of the version it says it is, of its type,
with no key it does not know; the closed sets (a mode, a status, a check category, a
change since the baseline, the signal that stopped a run) only their own values; and
what a report derives from its cases (a case's status, the suite's counts) as its cases
say. Anything else is `ReportShapeError`, naming the field, before any case runs or any
reporter writes a line. Text fields hold any string: reporters escape what they show.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from zeroclaw_eval._support.json.counts import MAX_COUNT
from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.cases.location import FieldRef, FixtureProblem
from zeroclaw_eval.errors import ReportShapeError
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.baseline import Baseline, HistoryPoint, RemovedCase
from zeroclaw_eval.report.compact import passing_check
from zeroclaw_eval.report.model import (
    XFAILED,
    XPASSED,
    CaseError,
    CaseReport,
    CaseSummary,
    RepeatStats,
    ShardInfo,
    SuiteReport,
    XfailMark,
)
from zeroclaw_eval.report.statistics import PairedChange, sign_test

#: A count a report holds (tokens, cases, checks): a whole number no larger than any
#: count the harness writes, so that a report edited (or made up) to hold `Infinity` or a
#: number of thousands of digits is refused as it is read, not printed whole in a comment.
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
#: A duration a report holds, in milliseconds: finite, and as bounded as a count.
Millis = Annotated[float, Field(ge=0, le=MAX_COUNT, allow_inf_nan=False)]
#: The most dollars a report's cost may say: summed costs stay finite (three costs of
#: 1.7e308 add up to infinity, which no output can write as a cost).
MAX_DOLLARS = 1e12
Dollars = Annotated[float, Field(ge=0, le=MAX_DOLLARS, allow_inf_nan=False)]


class _Strict(BaseModel):
    # strict: JSON true is no count, "3" no number; forbid: a key no version writes is
    # an edited report. Built on first use: only commands that read reports pay for it.
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, defer_build=True)


class _Field(_Strict):
    pointer: str
    line: int | None = None
    col: int | None = None
    end_line: int | None = None
    end_col: int | None = None

    def ref(self) -> FieldRef:
        return FieldRef(self.pointer, self.line, self.col, self.end_line, self.end_col)


class _Grade(_Strict):
    check_id: str
    category: Literal["response", "tool", "request", "side_effect", "budget"]
    passed: bool
    detail: str
    field: _Field
    expected: Any = None
    actual: Any = None
    diagnostic: bool = False  # format 11


class _Error(_Strict):
    message: str
    field: _Field
    traceback: str | None = None


class _Problem(_Strict):
    field: _Field
    message: str


class _Turn(_Strict):
    index: Count
    user_input: str
    response: str | None = None


class _Step(_Strict):
    turn: Count
    content: str | None
    tool_calls: list[dict[str, str]]
    input_tokens: Count = 0
    output_tokens: Count = 0
    sent_roles: list[str] = []
    offered_tools: list[str] = []
    system_prompt: str | None = None
    cached_input_tokens: Count | None = None
    reasoning_tokens: Count | None = None
    usage_known: bool = True


class _Call(_Strict):
    turn: Count
    call_id: str
    name: str
    arguments: Any
    result: str
    success: bool


class _Record(_Strict):
    turns: list[_Turn]
    steps: list[_Step]
    calls: list[_Call]
    duration_ms: Millis


class _Repeats(_Strict):
    runs: int = Field(ge=1, le=MAX_COUNT)
    passed: Count
    check_passes: dict[str, Count]
    min_pass_rate: float | None = Field(default=None, ge=0, le=1)
    check_runs: dict[str, Count] | None = None
    # Derived from the fields above; written for readers, re-derived here.
    pass_rate: float | None = Field(default=None, ge=0, le=1)
    pass_at_k: bool | None = None
    pass_all: bool | None = None
    stability: Literal["stable_pass", "flaky", "stable_fail"] | None = None
    flaky_checks: list[str] | None = None
    interval: list[float] | None = None
    suspect: str | None = None
    check_flips: dict[str, Count] | None = None


Status = Literal["passed", "failed", "error", "rejected"]


class _Xfail(_Strict):
    reason: str
    strict: bool
    field: _Field


Change = Literal["new_failure", "fixed", "still_failing", "new", "removed", "still_passing"]


class _Case(_Strict):
    name: str
    path: str
    model_name: str | None = None
    id: str | None = None
    cluster: str | None = None
    cost_usd: Dollars | None = None
    judge_cost_usd: Dollars | None = None
    fixture_sha256: str | None = Field(default=None, pattern="^[0-9a-f]{64}$")
    status: Status
    change: Change | None = None
    score: float = Field(default=0.0, ge=0, le=1)
    duration_ms: Millis
    category_totals: dict[str, dict[str, Count]] = {}
    partial: bool = False
    error: _Error | None = None
    problems: list[_Problem]
    grades: list[_Grade]
    record: _Record | None = None
    source: str | None = None
    repeats: _Repeats | None = None
    xfail: _Xfail | None = None


class _Check(_Strict):
    check_id: str
    category: Literal["response", "tool", "request", "side_effect", "budget"]
    pointer: str
    diagnostic: bool = False  # format 11


class _CompactCase(_Strict):
    """A passing case kept compact (`report.compact`, format 8): no grades, no record."""

    name: str
    path: str
    model_name: str | None = None
    id: str | None = None
    cluster: str | None = None
    cost_usd: Dollars | None = None
    judge_cost_usd: Dollars | None = None
    fixture_sha256: str | None = Field(default=None, pattern="^[0-9a-f]{64}$")
    status: Literal["passed"]  # only a passing case is kept compact
    change: Change | None = None
    score: float = Field(ge=0, le=1)
    duration_ms: Millis
    category_totals: dict[str, dict[str, Count]] = {}
    checks: list[_Check]
    tool_calls: list[str]
    input_tokens: Count
    output_tokens: Count
    repeats: _Repeats | None = None
    xfail: _Xfail | None = None


class _Shard(_Strict):
    index: int = Field(ge=1)
    count: int = Field(ge=1)
    suite_digest: str
    suite_size: Count


class _Removed(_Strict):
    name: str
    path: str
    id: str | None
    status: Status


class _Paired(_Strict):
    worse: Count
    better: Count
    p_value: float = Field(ge=0, le=1)
    cases: Count = 0


class _Baseline(_Strict):
    path: str
    digest: str
    tool_version: str
    fail_on: Literal["any", "new-failures", "significant-regression"]
    counts: dict[str, Count] = {}
    removed: list[_Removed]
    paired: _Paired | None = None
    alpha: float = Field(default=0.05, gt=0, lt=1)
    cost_before_usd: Dollars | None = None
    cost_after_usd: Dollars | None = None
    max_cost_increase: float | None = Field(default=None, ge=0)


class _Point(_Strict):
    passed: Count
    total: Count


class _Report(_Strict):
    format_version: int  # one of READABLE_VERSIONS, checked first
    tool_version: str
    suite: str
    root: str
    mode: Literal["replay", "live"]
    duration_ms: Millis
    exit_code: int | None = None
    counts: dict[str, Count]
    deselected: Count = 0
    not_run: Count = 0
    interrupted: Literal["SIGINT", "SIGTERM"] | None = None
    shard: _Shard | None = None
    baseline: _Baseline | None = None
    history: list[_Point] | None = None
    category_totals: dict[str, dict[str, Count]] = {}
    details: Literal["failing", "all"] = "all"
    # Derived from the cases (`SuiteReport.repeat_rate`, `diagnostic_checks`), re-derived when read.
    repeat_rate: dict[str, Any] | None = None
    trace_id: str | None = Field(default=None, pattern="^[0-9a-f]{32}$")
    settings_sha256: str | None = Field(default=None, pattern="^[0-9a-f]{64}$")
    cost_usd: Dollars | None = None
    judge_cost_usd: Dollars | None = None
    diagnostic_checks: dict[str, Count] | None = None
    max_cost_usd: Dollars | None = None
    # Read one by one (`_cases`): full or compact, each by its own model.
    cases: list[dict[str, Any]]


#: The report shapes this version reads: from the first with `root` and `source` to the
#: one `report.codec` writes (8 added `details` and compact records of passing cases).
READABLE_VERSIONS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
#: The first version with `xfail` marks, and their counts.
_XFAIL_SINCE = 9
#: The first version with `details` and compact records.
_COMPACT_SINCE = 8


def typed_report(data: Any) -> SuiteReport:
    """The report the parsed JSON `data` holds; `ReportShapeError` when it is not one."""
    version = data.get("format_version") if isinstance(data, dict) else None
    if isinstance(data, dict) and (type(version) is not int or version not in READABLE_VERSIONS):
        raise ReportShapeError(
            "format_version",
            f"unsupported report format_version {version!r}"
            f" (expected {READABLE_VERSIONS[0]} to {READABLE_VERSIONS[-1]})",
        )
    try:
        shape = _Report.model_validate(data)
    except ValidationError as invalid:
        raise _shape_error(invalid, ()) from None
    cases = _cases(shape)
    report = _report(shape, cases)
    _check_derived(shape, cases, report)
    return report


def _cases(shape: _Report) -> list[_Case | _CompactCase]:
    """Each case of the report by its own model: compact (it has `checks`, from format
    8 on) or full."""
    found: list[_Case | _CompactCase] = []
    for index, data in enumerate(shape.cases):
        compact = "checks" in data and shape.format_version >= _COMPACT_SINCE
        try:
            found.append(_CompactCase.model_validate(data) if compact else _Case.model_validate(data))
        except ValidationError as invalid:
            raise _shape_error(invalid, ("cases", index)) from None
    return found


def _shape_error(invalid: ValidationError, prefix: tuple[int | str, ...]) -> ReportShapeError:
    first = invalid.errors(include_url=False, include_input=False)[0]
    return ReportShapeError(_where((*prefix, *first["loc"])), first["msg"])


def typed_case(data: Any) -> CaseReport:
    """One case of a report from its JSON shape (`ReportShapeError` when it is not one)."""
    try:
        return _case(_Case.model_validate(data))
    except ValidationError as invalid:
        raise _shape_error(invalid, ()) from None


def _where(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as a JSON path: `cases[3].grades[0].category`, a key that is
    no plain name quoted (`counts["a b"]`)."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part.isidentifier():
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part)}]"
    return text


def _report(shape: _Report, cases: list[_Case | _CompactCase]) -> SuiteReport:
    shard = shape.shard
    return SuiteReport(
        shape.suite,
        shape.mode,
        [_compact_case(case) if isinstance(case, _CompactCase) else _case(case) for case in cases],
        shape.duration_ms,
        shape.tool_version,
        shape.root,
        deselected=shape.deselected,
        not_run=shape.not_run,
        interrupted=shape.interrupted,
        shard=ShardInfo(shard.index, shard.count, shard.suite_digest, shard.suite_size) if shard else None,
        baseline=_baseline(shape.baseline, len(cases)),
        history=None if shape.history is None else [HistoryPoint(p.passed, p.total) for p in shape.history],
        # A report from before format 8 holds every case whole.
        details=shape.details,
        trace_id=shape.trace_id,
        settings_sha256=shape.settings_sha256,
        max_cost_usd=shape.max_cost_usd,
    )


def _baseline(shape: _Baseline | None, cases: int) -> Baseline | None:
    if shape is None:
        return None
    removed = [RemovedCase(r.name, r.path, r.id, r.status) for r in shape.removed]
    paired = shape.paired
    if paired is not None and not paired.worse + paired.better <= paired.cases <= cases:
        # More cases paired than the report holds: counts no run of it made.
        raise ReportShapeError("baseline.paired", f"pairs more cases than the report's {cases}")
    return Baseline(
        shape.path,
        shape.digest,
        shape.tool_version,
        shape.fail_on,
        removed,
        # Re-derived from its counts: the p-value is the test's, never a file's say-so.
        paired=PairedChange(paired.worse, paired.better, sign_test(paired.worse, paired.better), paired.cases)
        if paired
        else None,
        alpha=shape.alpha,
        cost_before=shape.cost_before_usd,
        cost_after=shape.cost_after_usd,
        max_cost_increase=shape.max_cost_increase,
    )


def _compact_case(shape: _CompactCase) -> CaseReport:
    return CaseReport(
        name=shape.name,
        path=shape.path,
        model_name=shape.model_name,
        grades=[passing_check(c.check_id, c.category, c.pointer, c.diagnostic) for c in shape.checks],
        duration_ms=shape.duration_ms,
        id=shape.id,
        cluster=shape.cluster,
        cost_usd=shape.cost_usd,
        judge_cost_usd=shape.judge_cost_usd,
        fixture_sha256=shape.fixture_sha256,
        change=shape.change,
        repeats=_repeats(shape.repeats),
        summary=CaseSummary(tuple(shape.tool_calls), shape.input_tokens, shape.output_tokens),
        xfail=_xfail(shape.xfail),
    )


def _xfail(shape: _Xfail | None) -> XfailMark | None:
    return None if shape is None else XfailMark(shape.reason, shape.strict, shape.field.ref())


def _repeats(repeats: _Repeats | None) -> RepeatStats | None:
    if repeats is None:
        return None
    return RepeatStats(
        repeats.runs, repeats.passed, dict(repeats.check_passes), repeats.min_pass_rate, repeats.check_runs
    )


def _case(shape: _Case) -> CaseReport:
    record = shape.record
    return CaseReport(
        name=shape.name,
        path=shape.path,
        model_name=shape.model_name,
        grades=[
            GradeResult(
                g.check_id, g.category, g.passed, g.detail, g.field.ref(), g.expected, g.actual, g.diagnostic
            )
            for g in shape.grades
        ],
        error=CaseError(shape.error.message, shape.error.field.ref(), shape.error.traceback)
        if shape.error
        else None,
        problems=[FixtureProblem(p.field.ref(), p.message) for p in shape.problems],
        duration_ms=shape.duration_ms,
        record=None
        if record is None
        else RunRecord(
            turns=[TurnRecord(t.index, t.user_input, t.response) for t in record.turns],
            steps=[
                ModelStep(
                    s.turn,
                    s.content,
                    [dict(call) for call in s.tool_calls],
                    s.input_tokens,
                    s.output_tokens,
                    list(s.sent_roles),
                    list(s.offered_tools),
                    s.system_prompt,
                    s.cached_input_tokens,
                    s.reasoning_tokens,
                    s.usage_known,
                )
                for s in record.steps
            ],
            calls=[
                RecordedCall(c.turn, c.call_id, c.name, c.arguments, c.result, c.success)
                for c in record.calls
            ],
            duration_ms=record.duration_ms,
        ),
        source=shape.source,
        id=shape.id,
        cluster=shape.cluster,
        cost_usd=shape.cost_usd,
        judge_cost_usd=shape.judge_cost_usd,
        fixture_sha256=shape.fixture_sha256,
        change=shape.change,
        repeats=_repeats(shape.repeats),
        xfail=_xfail(shape.xfail),
    )


def _check_derived(shape: _Report, cases: list[_Case | _CompactCase], report: SuiteReport) -> None:
    """What the report says of its cases must be what its cases say: an edited status
    or count is refused, never believed. (A compact case is a passing one: its checks
    all passed, so it says `passed` or is refused here.)"""
    for index, (written, case) in enumerate(zip(cases, report.cases, strict=True)):
        if written.status != case.status:
            raise ReportShapeError(
                f"cases[{index}].status",
                f"says {written.status}, but the case's own checks, error and problems make it {case.status}",
            )
        repeats = case.repeats
        if repeats is not None and repeats.passed > repeats.runs:
            raise ReportShapeError(f"cases[{index}].repeats.passed", "is more than its runs")
    derived = report.counts()
    if shape.format_version < _XFAIL_SINCE:  # counted only since; no case of before is marked
        derived = {key: count for key, count in derived.items() if key not in (XFAILED, XPASSED)}
    if shape.counts != derived:
        raise ReportShapeError("counts", f"are {shape.counts}, but the report's cases count {derived}")
