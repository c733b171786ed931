"""The pull-request comment's pass rates that moved: each case repeated (`--repeat`) on both
sides whose pass rate changed, tested alone by Fisher's exact test (one-sided, at the
gate's default level, 0.05), said as significant, within noise or better."""

from __future__ import annotations

import re

from zeroclaw_eval.report.model import CaseReport, RepeatStats, SuiteReport
from zeroclaw_eval.reporters.pull_request import pull_request_comment


def repeated(name: str, passed: int | None, runs: int = 10) -> CaseReport:
    """A case at `evals/NAME.json` that passed `passed` of its `runs` runs (None: run once)."""
    case = CaseReport(name, f"evals/{name}.json")
    if passed is not None:
        case.repeats = RepeatStats(runs, passed, {})
    return case


def suite(*cases: CaseReport) -> SuiteReport:
    return SuiteReport("evals", "live", list(cases))


def moved(comment: str) -> str | None:
    """The section of the pass rates that moved (None: the comment has none)."""
    found = re.search(r"### Pass rates that moved \(\d+\)\n\n(?:- .*\n)+\n", comment)
    return found[0] if found else None


def test_a_significant_fall_is_listed_with_its_one_sided_p_value() -> None:
    comment = pull_request_comment(suite(repeated("fe|ll", 9)), suite(repeated("fe|ll", 3)))
    assert moved(comment) == (  # the path as it is, its pipe unescaped: this is no table
        "### Pass rates that moved (1)\n\n"
        "- `evals/fe|ll.json`: 9/10 to 3/10 runs passing, significant (one-sided p = 0.0099)\n\n"
    )


def test_a_small_fall_is_within_noise_and_a_rise_is_better() -> None:
    base = suite(repeated("slipped", 9), repeated("rose", 3, runs=5))
    head = suite(repeated("slipped", 8), repeated("rose", 9))
    assert moved(pull_request_comment(base, head)) == (
        "### Pass rates that moved (2)\n\n"
        "- `evals/slipped.json`: 9/10 to 8/10 runs passing, within noise (p = 0.5)\n"
        "- `evals/rose.json`: 3/5 to 9/10 runs passing, better\n\n"
    )


def test_a_fall_whose_p_value_is_the_level_itself_is_within_noise() -> None:
    # 3 of 3 runs to 0 of 3: p = 1/20, exactly the level; significant is below it, as in the
    # gate's sign test.
    comment = pull_request_comment(suite(repeated("edge", 3, runs=3)), suite(repeated("edge", 0, runs=3)))
    assert "- `evals/edge.json`: 3/3 to 0/3 runs passing, within noise (p = 0.05)\n" in comment


def test_the_same_rate_over_other_run_counts_has_not_moved() -> None:
    comment = pull_request_comment(suite(repeated("same", 5)), suite(repeated("same", 2, runs=4)))
    assert moved(comment) is None
    assert "Pass rates that moved" not in comment


def test_a_case_repeated_on_one_side_only_or_new_has_no_rate_to_compare() -> None:
    base = suite(repeated("once-before", None), repeated("repeated-before", 9))
    head = suite(repeated("once-before", 2), repeated("repeated-before", None), repeated("new", 1))
    assert "Pass rates that moved" not in pull_request_comment(base, head)


def test_each_case_is_compared_with_its_own_base_case() -> None:
    # The base lists them in another order; a case is matched by its path, not its place,
    # and one that did not move (b) ends nothing: the cases after it are compared too.
    base = suite(repeated("a", 9), repeated("b", 2))
    head = suite(repeated("b", 2), repeated("a", 3), repeated("c", 5))
    assert moved(pull_request_comment(base, head)) == (
        "### Pass rates that moved (1)\n\n"
        "- `evals/a.json`: 9/10 to 3/10 runs passing, significant (one-sided p = 0.0099)\n\n"
    )


def test_without_a_baseline_no_rate_has_moved() -> None:
    assert "Pass rates that moved" not in pull_request_comment(None, suite(repeated("a", 3)))
