"""The `table` format: one line per case, each failure beneath it, a recap of what did not
pass, and a summary line.

Three levels, as pytest's: `quiet` lists only the cases that did not pass; the default
adds a line per passing case; `verbose` also lists each passing check and where the
agent raised. Beneath a case that did not pass, its failed tool calls are listed too:
they often explain a failing check downstream (a file never written because the tool
was unknown). A run compared with a baseline ends with what changed since, before the
summary.

Everything a case brings (names, paths, model text, tool output) goes through `visible`:
a terminal and a CI log show its control characters instead of obeying them, while the
colours the table paints itself still work. A name or a path is kept on its one line
(`log_line`): a file may be named `x\n::error::forged.json`, and a path opens the line of
a rejection or a run error, where the runner would read a workflow command even when
the table is printed outside a job's own step (no `GITHUB_ACTIONS`, no fence).
"""

from __future__ import annotations

from zeroclaw_eval.errors import ExitCode
from zeroclaw_eval.report.baseline import (
    FAIL_ON_ANY,
    FAIL_ON_SIGNIFICANT,
    FIXED,
    LABELS,
    NEW_FAILURE,
    changed_cases,
    describe_changes,
)
from zeroclaw_eval.report.cost import dollars
from zeroclaw_eval.report.model import (
    ERROR,
    FAILED,
    PASSED,
    REJECTED,
    STABILITY_LABELS,
    XFAILED,
    XPASSED,
    CaseReport,
    RepeatStats,
    SuiteReport,
)
from zeroclaw_eval.report.words import (
    NOTHING_RAN,
    RUN_ERROR_MEANING,
    diagnostic_words,
    interval_words,
    paired_words,
    plural,
    suite_rate_words,
)
from zeroclaw_eval.reporters.paint import paint, passed_mark, verdict_line
from zeroclaw_eval.reporters.registry import Reporter
from zeroclaw_eval.reporters.safety import log_line, one_line, visible

#: Each case outcome's mark and colour (progress lines use the same marks); pytest's
#: `x` and `X` for a case marked `xfail` that failed, and that passed.
MARKS = {
    PASSED: ("✓", "green"),
    FAILED: ("✗", "red"),
    ERROR: ("!", "yellow"),
    REJECTED: ("✗", "red"),
    XFAILED: ("x", "yellow"),
    XPASSED: ("X", "red"),
}
#: How much of a detail the recap keeps on its one line.
_RECAP_WIDTH = 160


#: How a case's line names a verdict that is not a count of checks.
_STATUS_WORDS = {REJECTED: "rejected", ERROR: "run error"}


def case_lines(case: CaseReport, color: bool, verbose: bool) -> list[str]:
    """One case's lines: its status line, then why it did not pass (the pytest plugin
    shows these for a failing item)."""
    verdict = case.outcome
    mark, colour = MARKS[verdict]
    if verdict == XPASSED and case.xfail is not None and not case.xfail.strict:
        colour = "yellow"  # reported, not gating
    label = f"  {paint(_line(case.model_name), 'dim', color)}" if case.model_name else ""
    tracked = f"  [{_line(case.id)}]" if case.id else ""
    status = _STATUS_WORDS.get(case.status) or plural(len(case.grades), "check")
    lines = [
        f"{paint(mark, colour, color)} {_line(case.name)}{label}{tracked}  ({status}{_xfail_words(case)})"
    ]
    if case.xfail is not None and verdict in (XFAILED, XPASSED):
        lines.append(f"    {_line(case.xfail.field.where(case.path))}: xfail: {_line(case.xfail.reason)}")
        if verdict == XPASSED and case.xfail.strict:
            lines.append(
                "    it passed: the mark is strict, so the gate fails; remove the mark if it is fixed"
            )
    settled = not case.diagnostic_failures  # a failed diagnostic check is shown, though it decides nothing
    if verdict in (PASSED, XPASSED, XFAILED) and not verbose and case.repeats is None and settled:
        # A passing case is its one line (every check passed: none is listed); an expected
        # failure is its line and its mark's reason (-v lists why it failed).
        return lines
    if case.repeats is not None:
        lines.append(f"    {repeat_summary(case.repeats)}")
    for problem in case.problems:
        lines.append(f"    {_line(problem.describe(case.path))}")  # one line: it opens with the path
    if case.error is not None:
        lines.append(
            f"    {_line(case.error.field.where(case.path))}: run error: {visible(case.error.message)}"
        )
        if case.error.traceback and verbose:
            lines.extend(f"      {line}" for line in visible(case.error.traceback).split("\n"))
        elif case.error.traceback:
            lines.append("      (-v shows where the agent raised)")
        if case.grades:
            passed = len(case.grades) - len(case.failed_grades)
            lines.append(
                f"    graded on the partial run: {passed} of {plural(len(case.grades), 'check')} passed"
            )
    for grade in case.grades:
        if grade.passed and not verbose:
            continue
        sign = passed_mark(grade.passed, color)
        category = grade.category
        if grade.diagnostic:
            sign = sign if grade.passed else paint("~", "yellow", color)
            category += ", diagnostic"
        where = _line(grade.field.where(case.path))
        lines.append(f"    {sign} {_line(grade.check_id)} [{category}]  {where}")
        if grade.detail and (not grade.passed or verbose):  # a compact case's checks keep no words
            lines.append(f"      {visible(grade.detail)}")
    if not case.passed and case.record is not None:
        # A failure the fixture asks for is no cause of the case's failure: said so, not
        # marked ✗ beside the ones that are.
        expected = case.tool_failures_expected
        for call in case.record.calls:
            if not call.success:
                mark, said = ("·", "failed, as the fixture expects") if expected else ("✗", "failed")
                lines.append(
                    f"    {mark} tool call {_line(call.name)} (turn {call.turn + 1}) {said}:"
                    f" {_line(one_line(call.result, _RECAP_WIDTH))}"
                )
    return lines


def _xfail_words(case: CaseReport) -> str:
    """What a case marked `xfail` came to, after its line's count of checks."""
    outcome = case.outcome
    if outcome == XFAILED:
        return ", expected to fail"
    if outcome == XPASSED:
        return ", passed though expected to fail" + (
            "" if case.xfail and case.xfail.strict else " (not strict)"
        )
    return ""


def repeat_summary(runs: RepeatStats) -> str:
    """How the runs of a repeated case went, on one line: rate, pass@k, pass^k, flakes."""
    gate = f"; must reach {runs.min_pass_rate:.0%}" if runs.min_pass_rate is not None else ""
    flaky = [f"{_line(check)} {runs.check_passes[check]}/{runs.runs}" for check in runs.flaky_checks]
    flakes = f"; flaky: {', '.join(flaky)}" if flaky else ""
    kind = STABILITY_LABELS[runs.stability]
    suspect = f"; {runs.suspect}" if runs.suspect else ""
    rate = f"{runs.pass_rate:.0%}, {interval_words(*runs.interval)}"
    return (
        f"{kind}: {runs.passed}/{runs.runs} runs passed ({rate}{gate});"
        f" pass@{runs.runs} {'yes' if runs.pass_at_k else 'no'},"
        f" pass^{runs.runs} {'yes' if runs.pass_all else 'no'}{flakes}{suspect}"
    )


#: Untrusted text on its one line (a name, a path): the one rule of `safety.log_line`,
#: which also keeps a path that opens a line (a rejection's) from starting a command.
_line = log_line


def _recap(report: SuiteReport) -> list[str]:
    """One line per case that did not pass, with its first reason: a long table's end
    says what to look at, as pytest's short summary does."""
    lines = []
    for case in report.cases:
        if not case.blocks_gate:
            continue  # passed, or failed as its `xfail` mark expects
        if case.outcome == XPASSED and case.xfail is not None:
            where, reason = case.xfail.field.where(case.path), "passed, but its xfail mark is strict"
        elif case.problems:
            first = case.problems[0]
            where, reason = first.field.where(case.path), first.what()
        elif case.error is not None:
            where, reason = case.error.field.where(case.path), f"run error: {case.error.message}"
        elif case.failed_grades:
            grade = case.failed_grades[0]
            where, reason = grade.field.where(case.path), f"{grade.check_id}: {grade.detail}"
        else:
            where, reason = case.path, "no checks were graded"
        lines.append(f"{case.outcome.upper():<8} {_line(where)}  {_line(one_line(reason, _RECAP_WIDTH))}")
    return lines


def render(report: SuiteReport, *, color: bool = False, verbose: bool = False, quiet: bool = False) -> str:
    """The console table for `report`: `quiet` lists only the cases that did not pass,
    `verbose` adds every passing check and where the agent raised."""
    lines = [f"zeroclaw eval: {_line(report.suite)} ({report.mode}, {plural(len(report.cases), 'case')})", ""]
    for case in report.cases:
        if quiet and case.outcome == PASSED and not case.diagnostic_failures:
            continue
        lines.extend(case_lines(case, color, verbose))
    recap = _recap(report)
    if recap and len(report.cases) > 1:
        lines.extend(["", paint("not passed:", "bold", color), *recap])
    lines.extend(_changes(report, color))
    passed = report.exit_code() == ExitCode.OK
    rate = report.repeat_rate()
    if rate is not None:
        lines.extend(["", suite_rate_words(rate.mean, rate.low, rate.high, rate.clusters, rate.cases)])
    lines.extend(["", verdict_line(_summary(report), passed, color)])
    over = report.over_budget()
    if over is not None:
        lines.append(f"{paint('FAILED', 'red', color)}: {_line(over)}")
    if report.counts()[ERROR]:
        lines.append(paint(RUN_ERROR_MEANING, "dim", color))
    diagnostic = diagnostic_words(report.diagnostic_checks())
    if diagnostic is not None:
        lines.append(paint(diagnostic, "yellow", color))
    return "\n".join(lines) + "\n"


#: The colour of each change a reader is shown; new and removed cases are neither good nor bad.
_CHANGE_COLOURS = {NEW_FAILURE: "red", FIXED: "green"}


def _changes(report: SuiteReport, color: bool) -> list[str]:
    """The "changes since baseline" block: each case that changed (not those still
    passing or still failing), then how many made each change."""
    baseline = report.baseline
    if baseline is None:
        return []
    title = f"changes since baseline {_line(baseline.path)} (zeroclaw-eval {_line(baseline.tool_version)}):"
    lines = ["", paint(title, "bold", color)]
    for row in changed_cases(report.cases, baseline.removed):
        label = paint(f"{LABELS[row.change]:<12}", _CHANGE_COLOURS.get(row.change, "dim"), color)
        status = f"was {row.status}" if row.index is None else row.status
        lines.append(f"  {label} {_line(row.path)}  ({status})")
    lines.append(f"  {describe_changes((c.change for c in report.cases), baseline.removed)}")
    paired = baseline.paired
    if paired is not None:
        gated = baseline.fail_on == FAIL_ON_SIGNIFICANT and paired.too_few(baseline.alpha)
        few = paired.cases if gated else None
        lines.append(f"  {paired_words(paired.worse, paired.better, paired.p_value, baseline.alpha, few)}")
    if baseline.cost_after is not None and baseline.cost_before is not None:
        now, then = dollars(baseline.cost_after), dollars(baseline.cost_before)
        lines.append(f"  cost {now}, against {then} at the baseline (the cases both runs have)")
    exceeded = baseline.cost_exceeded()
    if exceeded:
        lines.append(f"  {paint('FAILED', 'red', color)}: {exceeded}")
    return lines


def _summary(report: SuiteReport) -> str:
    counts = report.counts()
    extra = []
    if report.deselected:
        extra.append(f"{report.deselected} deselected")
    if report.not_run:
        why = f"interrupted by {report.interrupted}" if report.interrupted else "--maxfail reached"
        if not report.interrupted and report.over_budget() is not None:
            why = "--max-cost reached"
        extra.append(f"{report.not_run} not run ({why})")
    if report.empty_shard and report.shard is not None:
        return f"PASSED: shard {report.shard.index}/{report.shard.count} drew none of the suite's fixtures"
    if not report.cases:
        what = "no case matches -k" if report.deselected else f"no fixtures found in {_line(report.suite)}"
        what = f"interrupted by {report.interrupted} before any case finished" if report.interrupted else what
        tail = f"; {', '.join(extra)}" if extra else ""
        return f"FAILED: {what} ({NOTHING_RAN}){tail}"
    parts = [f"{counts[PASSED]} passed", f"{counts[FAILED]} failed"]
    if counts[ERROR]:
        parts.append(plural(counts[ERROR], "run error"))
    if counts[REJECTED]:
        parts.append(f"{counts[REJECTED]} rejected")
    parts.extend(f"{counts[outcome]} {outcome}" for outcome in (XFAILED, XPASSED) if counts[outcome])
    passed = report.exit_code() == ExitCode.OK
    verdict = "INTERRUPTED" if report.interrupted else "PASSED" if passed else "FAILED"
    if not report.interrupted and report.baseline and report.baseline.fail_on != FAIL_ON_ANY:
        verdict += f" (--fail-on {report.baseline.fail_on})"
    seconds = f"{report.duration_ms / 1000:.2f}s"
    cost, judging = report.cost_usd(), report.judge_cost_usd()
    spent = f", cost {dollars(cost)}" if cost is not None else ""
    spent += f", judges {dollars(judging)}" if judging is not None else ""
    return f"{verdict}: {plural(len(report.cases), 'case')} ({', '.join(parts + extra)}) in {seconds}{spent}"


# Passing checks' words only with -v, which keeps every case whole.
REPORTER = Reporter.whole("table", render, for_log=True, passing_details=False)
