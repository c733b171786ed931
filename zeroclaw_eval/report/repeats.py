"""Repeated runs of one case (`run --repeat K`, live mode): the K reports as one, with the
pass rate, pass@k (some run passed), pass^k (every run passed) and the checks that flaked.

The gate of a repeated case: with a minimum pass rate, the share of runs that passed
must reach it; without one, every run must pass (pass^k). The case's grades and record
are those of one run that agrees with the verdict: the first run that did not pass when
the case fails, else the last run that passed, so every reporter shows a run that
explains the verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.report.model import CaseReport, RepeatStats


def check_repeat(repeat: int, min_pass_rate: float | None, *, live: bool) -> None:
    """`UsageError` for a repeat that cannot mean anything."""
    if repeat < 1:
        raise UsageError("--repeat counts runs of each case: 1 or more")
    if repeat > 1 and not live:
        raise UsageError(
            "--repeat runs each case again against a real provider (--mode live); a replay gives"
            " the same run every time, so repeating it proves nothing"
        )
    if min_pass_rate is not None and repeat == 1:
        raise UsageError("--min-pass-rate gates repeated runs; give --repeat K too")
    if min_pass_rate is not None and not 0 < min_pass_rate <= 1:
        raise UsageError(f"--min-pass-rate {min_pass_rate:g}: a share of runs, above 0 and at most 1")


def combine(attempts: Sequence[CaseReport], min_pass_rate: float | None = None) -> CaseReport:
    """The runs of one case as one report (a single run is returned unchanged)."""
    if len(attempts) == 1:
        return attempts[0]
    passed = [attempt for attempt in attempts if attempt.passed]
    check_passes: dict[str, int] = {}
    check_runs: dict[str, int] = {}
    for attempt in attempts:
        for result in attempt.grades:
            check_passes[result.check_id] = check_passes.get(result.check_id, 0) + result.passed
            check_runs[result.check_id] = check_runs.get(result.check_id, 0) + 1
    stats = RepeatStats(len(attempts), len(passed), check_passes, min_pass_rate, check_runs)
    failing = [attempt for attempt in attempts if not attempt.passed]
    shown = passed[-1] if stats.gate_passed else failing[0]
    # Every run was paid for: the case costs them all, not the one it shows.
    costs = [attempt.cost_usd for attempt in attempts if attempt.cost_usd is not None]
    judging = [attempt.judge_cost_usd for attempt in attempts if attempt.judge_cost_usd is not None]
    cost, judge_cost = (sum(paid) if paid else None for paid in (costs, judging))
    return replace(shown, repeats=stats, cost_usd=cost, judge_cost_usd=judge_cost)
