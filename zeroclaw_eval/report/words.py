"""Counts in words, the one way every output spells them: `1 case`, `2 cases`."""

from __future__ import annotations

from collections.abc import Mapping


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`1 case`, `2 cases` (`many` for a plural not made with -s)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


#: Why an empty suite fails every command that gates on it.
NOTHING_RAN = "a gate that ran nothing certifies nothing"


#: What a run error is, said wherever run errors are counted: a reader who sees "2 errors"
#: takes them for a crash of the gate, where most are the agent's own.
RUN_ERROR_MEANING = (
    "A run error is a case that could not finish: the agent raised, timed out or strayed from"
    " its script, or a live provider failed; each case says which."
)


def diagnostic_words(counts: Mapping[str, int]) -> str | None:
    """What a report's diagnostic checks are (`counts`: `SuiteReport.diagnostic_checks`),
    said wherever they are counted: judge checks reported that decide no case, since no
    person's labels calibrated their judge; None for a report that has none."""
    total, failed = counts["total"], counts["failed"]
    if not total:
        return None
    return (
        f"{plural(total, 'judge check')} diagnostic, {failed} of them failed: a judge no calibration"
        " backs (zeroclaw eval calibrate) is reported but decides no case ([eval].judge_gate)"
    )


def percent(share: float) -> str:
    """A share as a whole percentage: `82%`."""
    return f"{share:.0%}"


def interval_words(low: float, high: float) -> str:
    """A 95 % interval of a rate: `95% interval 40% to 89%`."""
    return f"95% interval {low:.0%} to {high:.0%}"


def suite_rate_words(mean: float, low: float, high: float, clusters: int, cases: int) -> str:
    """A suite's pass rate over repeated runs, with its interval and what it counts."""
    units = (
        plural(cases, "case")
        if clusters == cases
        else f"{plural(clusters, 'cluster')} of {plural(cases, 'case')}"
    )
    if clusters < 2:
        return f"pass rate over repeated runs: {percent(mean)} (one unit: no interval; over {units})"
    return f"pass rate over repeated runs: {percent(mean)} ({interval_words(low, high)}, over {units})"


def paired_words(worse: int, better: int, p_value: float, alpha: float, too_few: int | None = None) -> str:
    """A paired sign test against a base run, and what it concludes at `alpha`
    (`too_few`: the count of paired cases, when too few for any fall to reach it)."""
    moved = f"{plural(worse, 'case')} worse, {better} better"
    if too_few is not None:
        return (
            f"paired sign test: {moved}: {plural(too_few, 'paired case')} are too few for the test at"
            f" {alpha:g} (even all of them falling would read as noise), so it certifies nothing"
        )
    if worse > better and p_value < alpha:
        return f"paired sign test: {moved}: significant (one-sided p = {p_value:.2g}, below {alpha:g})"
    return f"paired sign test: {moved}: within noise (one-sided p = {p_value:.2g})"
