"""`report.statistics`: the intervals of repeated live runs, against published values and,
end to end, against a loopback model whose answers pass with a known probability."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.builders import write_fixture
from tests.support.chat_model import chat_model
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
from zeroclaw_eval.report.codec import report_from_dict, report_to_dict
from zeroclaw_eval.report.statistics import (
    check_flips,
    paired_change,
    suite_rate,
    suspect_note,
    t_cdf,
    t_quantile,
    wilson_interval,
)
from zeroclaw_eval.runner import RunOptions, run_suite


@pytest.mark.parametrize(
    ("df", "quantile"),
    # Student's t, two-sided 95 % (the 0.975 quantile), as printed in every table.
    [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (20, 2.086), (30, 2.042), (120, 1.980)],
)
def test_the_t_quantile_is_the_tables(df: int, quantile: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(quantile, abs=5e-4)
    assert t_cdf(t_quantile(0.975, df), df) == pytest.approx(0.975, abs=1e-9)
    assert t_quantile(0.025, df) == pytest.approx(-quantile, abs=5e-4)


@pytest.mark.parametrize(
    ("passed", "runs", "low", "high"),
    # Wilson score intervals at 95 % (Newcombe 1998, and by hand from the formula).
    [(0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0), (5, 10, 0.2366, 0.7634), (81, 263, 0.2553, 0.3662)],
)
def test_the_wilson_interval_is_the_published_one(passed: int, runs: int, low: float, high: float) -> None:
    assert wilson_interval(passed, runs) == pytest.approx((low, high), abs=5e-4)


def test_a_rate_that_is_not_one_is_refused() -> None:
    for passed, runs in ((3, 2), (-1, 2), (0, 0)):
        with pytest.raises(ValueError, match="no pass rate"):
            wilson_interval(passed, runs)


def test_a_case_that_never_passed_five_runs_is_suspect_and_four_say_too_little() -> None:
    assert suspect_note(0, 4) is None
    assert suspect_note(1, 20) is None
    note = suspect_note(0, 5)
    assert note is not None
    assert note.startswith("suspect: 0 of 5 runs passed")


def test_a_checks_flips_are_the_runs_against_its_usual_result() -> None:
    # 7 of 10 passed: 3 flips; 1 of 4 graded: 1 flip; never failing: not listed.
    flips = check_flips({"a": 7, "b": 1, "c": 10}, {"b": 4}, 10)
    assert flips == {"a": 3, "b": 1}


def test_cases_of_one_cluster_count_as_one_unit() -> None:
    # A cluster of {1.0, 0.0} is one unit at 0.5; with two lone cases, three units.
    rate = suite_rate([("a", 1.0), ("a", 0.0), (None, 0.2), (None, 0.8)])
    assert rate is not None
    assert (rate.clusters, rate.cases) == (3, 4)
    assert rate.mean == pytest.approx(0.5)
    # sd of (0.5, 0.2, 0.8) is 0.3; the error 0.3 / sqrt(3); t with 2 degrees of freedom.
    assert rate.standard_error == pytest.approx(0.3 / 3**0.5)
    margin = 4.3027 * 0.3 / 3**0.5
    assert (rate.low, rate.high) == pytest.approx((max(0.0, 0.5 - margin), min(1.0, 0.5 + margin)), abs=1e-3)
    # Unclustered, the same four are four units: a narrower claim, as it should be.
    loose = suite_rate([(None, 1.0), (None, 0.0), (None, 0.2), (None, 0.8)])
    assert loose is not None
    assert loose.clusters == 4


def test_one_unit_claims_no_interval_and_no_case_no_rate() -> None:
    rate = suite_rate([("a", 0.6), ("a", 0.8)])
    assert rate is not None
    assert (rate.mean, rate.low, rate.high, rate.clusters) == (pytest.approx(0.7), 0.0, 1.0, 1)
    assert suite_rate([]) is None


# --- end to end: a loopback model that passes with a known probability ----------------------

#: The probability the loopback model answers with the word the cases look for.
TRUE_RATE = 0.7
CASES, RUNS = 200, 10


@pytest.fixture
def coin_model() -> Iterator[str]:
    """A model whose answer holds "yes" with TRUE_RATE (seeded: the same every run)."""
    coin = random.Random(2026)
    usage = {"prompt_tokens": 5, "completion_tokens": 1}
    with chat_model(lambda _: ("yes" if coin.random() < TRUE_RATE else "no", usage)) as url:
        yield url


def test_repeated_runs_intervals_cover_the_true_pass_rate(tmp_path: Path, coin_model: str) -> None:
    # 200 cases, each run 10 times against a model that passes 70 % of the time: a 95 %
    # interval must cover 0.7 for at least 90 % of the cases (seeded: the same every run).
    suite = tmp_path / "suite"
    for number in range(CASES):
        fixture = {
            "model_name": f"coin-{number}",
            "cluster": f"task-{number // 4}",  # four paraphrases of each of 50 tasks
            "turns": [{"user_input": f"Toss {number}"}],
            "expects": {"response_contains": ["yes"]},
        }
        write_fixture(suite, f"coin_{number:03}.json", fixture)
    settings = ProviderSettings(base_url=coin_model, model="coin", max_retries=0)
    live = LiveOptions(settings, "sk-test")
    options = RunOptions(mode="live", live=live, repeat=RUNS, case_timeout_secs=10.0)
    options = RunOptions(mode="live", live=live, repeat=RUNS, case_timeout_secs=10.0)
    report = run_suite(suite, options)
    stats = [case.repeats for case in report.cases]
    assert len(stats) == CASES
    assert all(s is not None and s.runs == RUNS for s in stats)
    covered = sum(low <= TRUE_RATE <= high for low, high in (s.interval for s in stats if s is not None))
    assert covered >= 0.9 * CASES, f"{covered} of {CASES} intervals cover {TRUE_RATE}"
    # The suite's rate over 50 clusters: its t interval covers the true rate too.
    rate = report.repeat_rate()
    assert rate is not None
    assert (rate.clusters, rate.cases) == (50, CASES)
    assert rate.low <= TRUE_RATE <= rate.high
    assert rate.high - rate.low < 0.15  # 2,000 runs pin the rate down
    # The JSON report carries what the reporters show, and reads back to the same numbers.
    data = report_to_dict(report)
    assert data["repeat_rate"]["clusters"] == 50
    assert data["cases"][0]["cluster"] == "task-0"
    assert data["cases"][0]["repeats"]["interval"] == list(report.cases[0].repeats.interval)  # type: ignore[union-attr]
    again = report_from_dict(json.loads(json.dumps(data)))
    assert again.repeat_rate() == rate


def test_the_sign_test_counts_only_the_cases_that_moved() -> None:
    # 16 fell, none rose, 24 stayed: the 24 say nothing; 0.5 ** 16 of a chance.
    pairs = [(1.0, 0.0)] * 16 + [(1.0, 1.0)] * 20 + [(0.0, 0.0)] * 4
    change = paired_change(pairs)
    assert (change.worse, change.better) == (16, 0)
    assert change.p_value == pytest.approx(0.5**16)
    assert change.significant(0.05)
    # 3 fell and 1 rose: P(at least 3 of 4 fall) = 5 / 16, within noise.
    mixed = paired_change([(0.9, 0.5), (0.7, 0.6), (1.0, 0.9), (0.2, 0.4)])
    assert (mixed.worse, mixed.better, mixed.p_value) == (3, 1, 5 / 16)
    assert not mixed.significant(0.05)
    # More rose than fell is never a significant regression, whatever the level.
    assert not paired_change([(0.0, 1.0)] * 10).significant(0.999)
    assert paired_change([]).p_value == 1.0


def test_a_saved_reports_paired_test_is_re_derived_from_its_counts() -> None:
    from zeroclaw_eval.report.baseline import Baseline
    from zeroclaw_eval.report.model import CaseReport, SuiteReport
    from zeroclaw_eval.report.schema import ReportShapeError

    paired = paired_change([(1.0, 0.0)] * 5)
    baseline = Baseline("b.json", "sha256:0", "1", "significant-regression", paired=paired, alpha=0.01)
    cases = [CaseReport(f"c{n}.json", f"s/c{n}.json", grades=[]) for n in range(5)]
    report = SuiteReport("s", "live", cases, baseline=baseline)
    data = report_to_dict(report)
    assert data["baseline"]["paired"] == {"worse": 5, "better": 0, "p_value": 1 / 32, "cases": 5}
    data["baseline"]["paired"]["p_value"] = 0.9  # a file's say-so is not the test's
    again = report_from_dict(json.loads(json.dumps(data)))
    assert again.baseline is not None
    assert again.baseline.paired == paired
    assert again.baseline.alpha == 0.01
    # Counts no run of the report made are refused, never summed (10**15 terms would hang).
    data["baseline"]["paired"] |= {"worse": 10**15, "better": 10**15, "cases": 2 * 10**15}
    with pytest.raises(ReportShapeError, match="pairs more cases than the report's 5"):
        report_from_dict(json.loads(json.dumps(data)))


def test_too_few_paired_cases_certify_nothing_at_the_level() -> None:
    # Four cases all falling: p = 1/16, never below 0.05; with five the test can tell.
    four = paired_change([(1.0, 0.0)] * 4)
    assert not four.significant(0.05)
    assert four.too_few(0.05)
    assert not paired_change([(1.0, 0.0)] * 5 + [(1.0, 1.0)] * 35).too_few(0.05)
    assert paired_change([(1.0, 1.0)] * 20).too_few(1e-9)  # 2**-20 is above it


def test_fishers_test_is_the_tea_tastings() -> None:
    # Fisher's lady tasting tea: 3 of 4 right against 1 of 4, one-sided p = 17/70.
    from zeroclaw_eval.report.statistics import fisher_worse

    assert fisher_worse(3, 4, 1, 4) == pytest.approx(17 / 70)
    assert fisher_worse(1, 4, 3, 4) == pytest.approx(1 - 1 / 70)  # a rise is no fall
    assert fisher_worse(5, 5, 5, 5) == 1.0
    assert fisher_worse(0, 0, 3, 4) == 1.0  # a side with no run says nothing


def test_the_comment_tests_each_repeated_case_whose_rate_moved() -> None:
    from zeroclaw_eval.report.model import CaseReport, RepeatStats, SuiteReport
    from zeroclaw_eval.reporters.pull_request import pull_request_comment

    def suite(rates: dict[str, tuple[int, int]]) -> SuiteReport:
        cases = [
            CaseReport(name, f"evals/{name}.json", repeats=RepeatStats(runs, passed, {}, 0.5))
            for name, (passed, runs) in rates.items()
        ]
        return SuiteReport("evals", "live", cases)

    base = suite({"fell": (9, 10), "slipped": (9, 10), "rose": (3, 10), "same": (5, 10)})
    head = suite({"fell": (3, 10), "slipped": (8, 10), "rose": (9, 10), "same": (5, 10)})
    comment = pull_request_comment(base, head)
    assert "### Pass rates that moved (3)" in comment
    assert "`evals/fell.json`: 9/10 to 3/10 runs passing, significant (one-sided p = 0.0099)" in comment
    assert "`evals/slipped.json`: 9/10 to 8/10 runs passing, within noise (p = 0.5)" in comment
    assert "`evals/rose.json`: 3/10 to 9/10 runs passing, better" in comment
    assert "same.json`: 5/10" not in comment
