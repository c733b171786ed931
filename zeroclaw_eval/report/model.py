"""The finished result of a run: `CaseReport`s in a `SuiteReport`.

A report is data. Reporters render it and the CLI turns `exit_code()` into the process
exit status; nothing here prints, and nothing re-runs or re-grades.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zeroclaw_eval._support.frozen import quick_init
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.location import FieldRef, FixtureProblem
from zeroclaw_eval.cases.model import JudgeVerdict
from zeroclaw_eval.errors import STOPPED_BY, ExitCode
from zeroclaw_eval.grading.result import CATEGORIES, GradeResult
from zeroclaw_eval.report.baseline import (
    FAIL_ON_NEW_FAILURES,
    FAIL_ON_SIGNIFICANT,
    NEW,
    Baseline,
    HistoryPoint,
    is_new_failure,
)
from zeroclaw_eval.report.statistics import (
    SuiteRate,
    check_flips,
    suite_rate,
    suspect_note,
    wilson_interval,
)

PASSED, FAILED, ERROR, REJECTED = "passed", "failed", "error", "rejected"
#: What a case marked `xfail` came to: it did not pass, as expected, or it passed.
XFAILED, XPASSED = "xfailed", "xpassed"
#: Every outcome a case can have, in the order counts list them.
OUTCOMES = (PASSED, FAILED, ERROR, REJECTED, XFAILED, XPASSED)

#: What a report keeps of a passing case: its details only when asked for all of them
#: (`report.compact`).
DETAILS_FAILING, DETAILS_ALL = "failing", "all"
DETAILS = (DETAILS_FAILING, DETAILS_ALL)


@dataclass(frozen=True, slots=True)
class CaseError:
    """Why a case could not run to completion, and the fixture field it is about."""

    message: str
    field: FieldRef
    #: Where the agent's own code raised, when it did (its frames only; None otherwise).
    traceback: str | None = None


@dataclass(frozen=True, slots=True)
class XfailMark:
    """A case's `xfail` mark: why it is expected to fail, whether its pass fails the gate
    (`strict`), and where the mark is in the fixture."""

    reason: str
    strict: bool
    field: FieldRef


@dataclass(frozen=True)
class Failure:
    """One reason a case did not pass, at the fixture field it is about."""

    field: FieldRef
    #: What failed: `rejected /pointer`, `run error`, or the check id.
    check: str
    message: str


#: How a repeated case's runs went, as one word.
STABLE_PASS, FLAKY, STABLE_FAIL = "stable_pass", "flaky", "stable_fail"
STABILITY_LABELS = {STABLE_PASS: "stable pass", FLAKY: "flaky", STABLE_FAIL: "stable fail"}


@dataclass(frozen=True)
class RepeatStats:
    """How the runs of a repeated case went (`run --repeat K`)."""

    runs: int
    #: Runs that passed.
    passed: int
    #: Per check id: in how many runs the check passed.
    check_passes: dict[str, int]
    #: The share of runs that must pass (None: every run must).
    min_pass_rate: float | None = None
    #: Per check id: in how many runs it was graded (a run that never started, a
    #: provider error before any answer, grades nothing). None: in every run.
    check_runs: dict[str, int] | None = None

    @property
    def pass_rate(self) -> float:
        """The share of runs that passed."""
        return self.passed / self.runs

    @property
    def pass_at_k(self) -> bool:
        """Some run passed (pass@k)."""
        return self.passed > 0

    @property
    def pass_all(self) -> bool:
        """Every run passed (pass^k)."""
        return self.passed == self.runs

    @property
    def stability(self) -> str:
        """`stable_pass` (every run passed), `stable_fail` (none did) or `flaky`."""
        if self.passed == self.runs:
            return STABLE_PASS
        return STABLE_FAIL if self.passed == 0 else FLAKY

    @property
    def gate_passed(self) -> bool:
        """Whether the case passes: its pass rate reaches the minimum, else every run passed."""
        if self.min_pass_rate is None:
            return self.pass_all
        return self.pass_rate >= self.min_pass_rate

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson 95 % interval of the pass rate: where the rate of many more runs
        would lie (`report.statistics`)."""
        return wilson_interval(self.passed, self.runs)

    @property
    def suspect(self) -> str | None:
        """A note on a case that passed none of five or more runs: its task may be broken."""
        return suspect_note(self.passed, self.runs)

    @property
    def check_flips(self) -> dict[str, int]:
        """Per check that flipped: the runs that went against its usual result."""
        return check_flips(self.check_passes, self.check_runs, self.runs)

    @property
    def flaky_checks(self) -> list[str]:
        """Checks that passed in some runs and failed in others (runs that graded nothing
        say nothing about a check)."""
        graded = self.check_runs or {}
        return [check for check, n in self.check_passes.items() if 0 < n < graded.get(check, self.runs)]


@quick_init
@dataclass(frozen=True, slots=True)
class CaseSummary:
    """What the record of a passing case's run says in sum, kept when the record itself is
    not (`report.compact`): the tools it called, in order, and the tokens it used."""

    tool_calls: tuple[str, ...]
    input_tokens: int
    output_tokens: int


@dataclass(slots=True)
class CaseReport:
    """The outcome of one fixture: admitted and graded, errored, or rejected."""

    name: str
    path: str
    model_name: str | None = None
    grades: list[GradeResult] = field(default_factory=list)
    error: CaseError | None = None
    problems: list[FixtureProblem] = field(default_factory=list)
    duration_ms: float = 0.0
    record: RunRecord | None = None
    #: The fixture text, kept for cases that did not pass (None for passing ones).
    source: str | None = None
    #: The fixture's `id` (a tracker id, say), when it has one.
    id: str | None = None
    #: The fixture's `cluster`: cases in one count as one unit of a suite's repeated pass rate.
    cluster: str | None = None
    #: What its model requests cost, in US dollars (`report.cost`); None: not priced
    #: (replay, or a provider without prices). Under `--repeat`, every run's together.
    cost_usd: float | None = None
    #: What asking its judges cost, apart from the agent's (None: no priced judge asked).
    judge_cost_usd: float | None = None
    #: The SHA-256 of the fixture's text as it ran (`report.resume` runs a kept case again
    #: once its fixture changed); None in a report of a version before it.
    fixture_sha256: str | None = None
    #: For a case run several times (`run --repeat K`): how the runs went.
    repeats: RepeatStats | None = None
    #: What changed since the baseline (`report.baseline`), e.g. `new_failure`; None without one.
    change: str | None = None
    #: The verdicts judge models gave this run, by judge check (live mode, `--rejudge`):
    #: written into fixtures by `--record` and `--rejudge`, never into a report.
    judged: dict[int, list[JudgeVerdict]] = field(default_factory=dict)
    #: For a passing case kept compact (`report.compact`): what its record said in sum; its
    #: `record` is None and its grades carry no words.
    summary: CaseSummary | None = None
    #: The fixture's `xfail` mark: the case is expected to fail (None: it is expected to pass).
    xfail: XfailMark | None = None

    @property
    def tool_call_names(self) -> list[str] | None:
        """The tools the run called, in order; None when there is no record of the run."""
        if self.record is not None:
            return [call.name for call in self.record.calls]
        return None if self.summary is None else list(self.summary.tool_calls)

    @property
    def tokens(self) -> tuple[int, int] | None:
        """The input and output tokens the run used; None when there is no record of it."""
        if self.record is not None:
            return self.record.input_tokens, self.record.output_tokens
        return None if self.summary is None else (self.summary.input_tokens, self.summary.output_tokens)

    @property
    def status(self) -> str:
        """`rejected`, `error`, `failed` or `passed`."""
        if self.problems:
            return REJECTED
        if self.error is not None:
            return ERROR
        if not self.grades:
            return FAILED
        for grade in self.grades:  # a loop, not all(): every reporter asks, for every case
            if not grade.passed and not grade.diagnostic:
                return FAILED
        return PASSED

    @property
    def passed(self) -> bool:
        """True when the case was admitted, ran to completion and every check passed."""
        return self.status == PASSED

    @property
    def tool_failures_expected(self) -> bool:
        """Whether the fixture asks for a failed tool call (`all_tools_succeeded: false`,
        and the run had one): such a failure is no cause of the case's failing, and the
        reports say so rather than mark it as one."""
        return any(
            grade.check_id == "all_tools_succeeded" and grade.passed and grade.expected is False
            for grade in self.grades
        )

    @property
    def outcome(self) -> str:
        """The status, or for a case marked `xfail` that was admitted: `xfailed` (it did
        not pass, as expected: a failed check or a run error) or `xpassed`."""
        status = self.status
        if self.xfail is None or status == REJECTED:  # a broken fixture is never expected
            return status
        return XPASSED if status == PASSED else XFAILED

    @property
    def blocks_gate(self) -> bool:
        """Whether this case fails the gate (`--fail-on any`): it did not pass and was not
        expected to, or it was expected to fail and passed under a strict mark."""
        outcome = self.outcome
        if outcome == XFAILED:
            return False
        if outcome == XPASSED:
            return self.xfail is not None and self.xfail.strict
        return outcome != PASSED

    def new_failure(self, change: str | None) -> bool:
        """Whether this case, `change` since the baseline, is a new failure there
        (`is_new_failure`), or passed under a strict `xfail` mark: a failure whatever
        the baseline says."""
        blocks = self.blocks_gate
        return is_new_failure(change, not blocks) or (blocks and self.outcome == XPASSED)

    @property
    def measured_rate(self) -> float | None:
        """What this case's run says of the agent, for a paired comparison: the pass rate of
        its runs (`--repeat`), else 1 or 0; None for a rejected fixture, which measured nothing."""
        if self.status == REJECTED:
            return None
        if self.repeats is not None:
            return self.repeats.pass_rate
        return 0.0 if self.blocks_gate else 1.0

    @property
    def partial(self) -> bool:
        """True when the grades come from the partial record of a run that errored."""
        return self.error is not None and bool(self.grades)

    @property
    def failed_grades(self) -> list[GradeResult]:
        """The checks that did not pass and decide the case (a diagnostic one does not)."""
        return [g for g in self.grades if not g.passed and not g.diagnostic]

    @property
    def diagnostic_failures(self) -> list[GradeResult]:
        """The diagnostic checks that did not pass: reported, deciding nothing."""
        return [g for g in self.grades if g.diagnostic and not g.passed]

    def failures(self) -> list[Failure]:
        """Every field this case fails at, in one order for every reporter: the
        rejection's problems, then the run error, then the failed checks."""
        found = [Failure(p.field, f"rejected {p.field.pointer or '/'}", p.message) for p in self.problems]
        if self.error is not None:
            found.append(Failure(self.error.field, "run error", self.error.message))
        found.extend(Failure(g.field, g.check_id, g.detail) for g in self.failed_grades)
        return found

    @property
    def score(self) -> float:
        """Fraction of checks passed (0.0 for a rejected or errored case)."""
        if self.problems or self.error is not None or not self.grades:  # rejected, errored, no checks
            return 0.0
        return sum(g.passed for g in self.grades) / len(self.grades)

    @property
    def category_totals(self) -> dict[str, dict[str, int]]:
        """Per category present: checks passed and checks in all."""
        found: dict[str, dict[str, int]] = {}
        for grade in self.grades:  # one pass: the JSON, the HTML and the summary each ask
            into = found.get(grade.category)
            if into is None:
                into = found[grade.category] = {"passed": 0, "total": 0}
            into["passed"] += grade.passed
            into["total"] += 1
        return {category: found[category] for category in CATEGORIES if category in found}


@dataclass(frozen=True, slots=True)
class ShardInfo:
    """Which part of a suite a sharded run ran (`--shard K/N`), and of which suite."""

    index: int
    count: int
    #: A digest of the whole suite's fixture list (paths and contents): the shards of
    #: one suite share it, so `zeroclaw eval merge` can refuse a stranger.
    suite_digest: str
    #: Fixture files in the whole suite.
    suite_size: int


@dataclass
class SuiteReport:
    """All cases of one suite run, in fixture order."""

    suite: str
    mode: str
    cases: list[CaseReport] = field(default_factory=list)
    duration_ms: float = 0.0
    tool_version: str = ""
    #: Absolute folder that case paths are relative to (the working directory of the run).
    root: str = ""
    #: Fixtures a `-k` expression left out.
    deselected: int = 0
    #: Cases never started because `--maxfail` was reached, or not finished because the
    #: run was interrupted.
    not_run: int = 0
    #: The signal that stopped the run (`SIGINT` or `SIGTERM`): the report holds only the
    #: cases that finished. None when the run went to its end.
    interrupted: str | None = None
    #: Set when the run was one shard of the suite (None: the whole suite).
    shard: ShardInfo | None = None
    #: The report this run was compared with (`--baseline`), and the gate's policy.
    baseline: Baseline | None = None
    #: Earlier runs' pass rates, oldest first (`--history`), for the HTML trend chart.
    history: list[HistoryPoint] | None = None
    #: What the JSON report and the HTML page keep of passing cases: their details
    #: (`all`), or only what `report.compact` keeps (`failing`, the default).
    details: str = DETAILS_FAILING
    #: The run's trace (`report.tracing`), whose case spans its agents were handed; None
    #: for a report of several runs (merged shards) or of a version before it.
    trace_id: str | None = None
    #: A digest of what the run was run with (mode, agent, provider, repeats: the
    #: settings `run --resume` must find unchanged to keep its verdicts); None: unknown.
    settings_sha256: str | None = None
    #: The most the run could spend (`--max-cost`, US dollars, agents' and judges' requests
    #: together); None: no bound.
    max_cost_usd: float | None = None

    def exit_code(self) -> ExitCode:
        """The gate's verdict by its policy (`_policy_exit_code`), and then `FAILED` for a
        run whose cost grew past `--max-cost-increase`, or spent past `--max-cost`."""
        code = self._policy_exit_code()
        if code == ExitCode.OK and self.baseline is not None and self.baseline.cost_exceeded():
            return ExitCode.FAILED
        if code == ExitCode.OK and self.over_budget() is not None:
            return ExitCode.FAILED
        return code

    def over_budget(self) -> str | None:
        """Why the run fails `--max-cost`, or None when it does not (or has no bound): it
        spent more, or a case's cost is unknown (a cost nobody measured is within no bound)."""
        bound = self.max_cost_usd
        if bound is None:
            return None
        unknown = [case.path for case in self.cases if case.status != REJECTED and case.cost_usd is None]
        if unknown:
            return f"--max-cost ${bound:g}: the cost of {unknown[0]} is unknown (a reply said no usage)"
        spent = (self.cost_usd() or 0.0) + (self.judge_cost_usd() or 0.0)
        if spent > bound:
            stopped = f"; {self.not_run} case(s) not started" if self.not_run else ""
            return f"spent ${spent:.4f}, above --max-cost ${bound:g}{stopped}"
        if self.not_run and not self.interrupted:
            return f"spent ${spent:.4f}, reaching --max-cost ${bound:g}: {self.not_run} case(s) not started"
        return None

    def _policy_exit_code(self) -> ExitCode:
        """`OK` iff no case blocks the gate (`CaseReport.blocks_gate`: every case passed or
        failed as its `xfail` mark expected; with `--fail-on new-failures`: iff no case is
        a new failure, none is rejected and none passed under a strict `xfail`); `FAILED`
        otherwise, for an empty suite (it proved
        nothing), and whenever a case was not run (`--maxfail`: a case that never ran is
        certified by no policy); for an interrupted run, the exit code of the signal that
        stopped it (`INTERRUPTED`, `TERMINATED`)."""
        if self.interrupted is not None:
            stopped = STOPPED_BY.get(self.interrupted)
            return stopped if stopped is not None else ExitCode.FAILED
        if self.not_run:
            return ExitCode.FAILED
        if self.cases and self.baseline is not None and self.baseline.fail_on == FAIL_ON_NEW_FAILURES:
            # Only a new failure fails, and a rejected fixture: it is broken, not hard, and
            # no run of it can ever pass.
            regressed = any(case.new_failure(case.change) or case.status == REJECTED for case in self.cases)
            return ExitCode.gate(not regressed)
        if self.cases and self.baseline is not None and self.baseline.fail_on == FAIL_ON_SIGNIFICANT:
            # The cases both runs have fail the gate together, by the paired test; what no
            # noise explains fails alone: a new case that does not pass, a rejected fixture,
            # a pass under a strict xfail mark. A report without the test fails closed.
            paired, alpha = self.baseline.paired, self.baseline.alpha
            # Too few cases for any fall to reach the level: the test certifies nothing.
            fell = paired is None or paired.significant(alpha) or paired.too_few(alpha)
            alone = any(
                case.status == REJECTED
                or (case.blocks_gate and (case.change == NEW or case.outcome == XPASSED))
                for case in self.cases
            )
            return ExitCode.gate(not fell and not alone)
        if not self.cases and self.empty_shard:
            return ExitCode.OK  # the other shards hold the suite's cases; merging checks they all ran
        return ExitCode.gate(bool(self.cases) and not any(case.blocks_gate for case in self.cases))

    @property
    def empty_shard(self) -> bool:
        """A shard that drew no fixture of a suite that has some (more shards than fixtures)."""
        return self.shard is not None and self.shard.suite_size > 0 and not self.deselected and not self.cases

    def cost_usd(self) -> float | None:
        """What the cases' model requests cost together, in US dollars; None when no
        case was priced."""
        costs = [case.cost_usd for case in self.cases if case.cost_usd is not None]
        return sum(costs) if costs else None

    def judge_cost_usd(self) -> float | None:
        """What asking the judges cost, apart from the agents' requests; None when no
        priced judge was asked."""
        costs = [case.judge_cost_usd for case in self.cases if case.judge_cost_usd is not None]
        return sum(costs) if costs else None

    def diagnostic_checks(self) -> dict[str, int]:
        """How many checks were diagnostic (reported, deciding nothing: `grading.judges.gate`)
        and how many of them failed."""
        total = failed = 0
        for case in self.cases:
            for grade in case.grades:
                if grade.diagnostic:
                    total += 1
                    failed += not grade.passed
        return {"total": total, "failed": failed}

    def repeat_rate(self) -> SuiteRate | None:
        """The suite's pass rate over its repeated cases' runs, with its interval (cases
        of one `cluster` as one unit); None when no case was repeated."""
        return suite_rate((case.cluster, case.repeats.pass_rate) for case in self.cases if case.repeats)

    def counts(self) -> dict[str, int]:
        """How many cases came to each outcome (`OUTCOMES`), plus the total."""
        counts = dict.fromkeys(OUTCOMES, 0)
        for case in self.cases:
            counts[case.outcome] += 1
        counts["total"] = len(self.cases)
        return counts

    def category_totals(self) -> dict[str, dict[str, int]]:
        """Checks passed and in all, per category, over the whole suite."""
        totals: dict[str, dict[str, int]] = {}
        for case in self.cases:
            for category, numbers in case.category_totals.items():
                into = totals.setdefault(category, {"passed": 0, "total": 0})
                into["passed"] += numbers["passed"]
                into["total"] += numbers["total"]
        return {c: totals[c] for c in CATEGORIES if c in totals}
