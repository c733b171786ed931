"""The cases two runs share, compared pair by pair: the paired sign test of their
measured rates (`--fail-on significant-regression`, the pull-request comment) and what
they cost on each side (`--max-cost-increase`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from zeroclaw_eval.report.baseline import matched
from zeroclaw_eval.report.model import CaseReport
from zeroclaw_eval.report.statistics import PairedChange, paired_change


def paired_against(
    cases: Sequence[CaseReport], base: Sequence[CaseReport], pairs: Mapping[int, int] | None = None
) -> PairedChange:
    """The paired sign test of `cases` against the `base` run's cases they match
    (`pairs`, as `baseline.matched` gives them; matched here when not given): each
    pair's measured rates, rejected fixtures left out."""
    pairs = matched(cases, base) if pairs is None else pairs
    rates = ((base[j].measured_rate, cases[i].measured_rate) for i, j in pairs.items())
    return paired_change(
        (before, after) for before, after in rates if before is not None and after is not None
    )


def paired_cost(cases: Sequence[CaseReport], indexes: Iterable[int]) -> float | None:
    """What the cases at `indexes` cost together; None when one of them has no cost."""
    total = 0.0
    for index in indexes:
        cost = cases[index].cost_usd
        if cost is None:
            return None
        total += cost
    return total
