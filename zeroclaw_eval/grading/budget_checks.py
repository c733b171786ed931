"""The budget family: what a run spent (tokens, LLM calls, wall time) against the
inclusive upper bounds of `budget`; and what it cost (`cost_check`), which only a priced
live run knows."""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.grading.details import number_text
from zeroclaw_eval.grading.result import BUDGET, GradeResult, make_grade
from zeroclaw_eval.tools.workspace import Workspace


def budget_checks(
    expects: Expects, record: RunRecord, workspace: Workspace | None, words: bool
) -> Iterator[GradeResult]:
    """Every bound of `expects.budget` (none when it declares no budget), against `record`."""
    if expects.budget is None:
        return iter(())
    return _budget_checks(expects, record, words)


def reads_spending(record: RunRecord) -> Hashable:
    """What the budget family reads of a run: its tokens and LLM calls (its wall time is
    never the same twice, so it is left out)."""
    return record.input_tokens, record.output_tokens, record.llm_calls


def _budget_checks(expects: Expects, record: RunRecord, words: bool) -> Iterator[GradeResult]:
    assert expects.budget is not None
    spent = {
        "max_input_tokens": (record.input_tokens, "input tokens"),
        "max_output_tokens": (record.output_tokens, "output tokens"),
        "max_total_tokens": (record.input_tokens + record.output_tokens, "tokens in all"),
        "max_duration_ms": (round(record.duration_ms, 3), "ms of wall time"),
        "max_llm_calls": (record.llm_calls, "LLM calls"),
    }
    for key, (value, unit) in spent.items():
        bound = getattr(expects.budget, key)
        if bound is not None:
            ok = value <= bound
            detail = (
                f"expected at most {number_text(bound)} {unit}; spent {number_text(value)}"
                if words or not ok
                else ""
            )
            yield make_grade(f"budget.{key}", BUDGET, f"/expects/budget/{key}", ok, detail, bound, value)


def cost_check(expects: Expects, cost: float | None, priced: bool) -> list[GradeResult]:
    """`budget.max_cost_usd` against what the run's model requests cost (`report.cost`),
    in a run whose provider is `priced`; nothing in any other run: a replay bills nothing,
    and a bound no bill measured is not certified either way. A priced run whose cost
    is unknown (a reply said no usage) fails the bound: a cost nobody measured is no
    cost within it."""
    bound = expects.budget.max_cost_usd if expects.budget is not None else None
    if bound is None or not priced:
        return []
    pointer = "/expects/budget/max_cost_usd"
    if cost is None:
        detail = f"expected at most ${bound:g}; the cost is unknown: a reply of the provider said no usage"
        return [make_grade("budget.max_cost_usd", BUDGET, pointer, False, detail, bound, None)]
    ok = cost <= bound
    detail = f"expected at most ${bound:g}; cost ${cost:.6f}"
    return [make_grade("budget.max_cost_usd", BUDGET, pointer, ok, detail, bound, cost)]
