"""The statistics of repeated live runs (`run --repeat K`): how sure a pass rate is.

- A case's pass rate, `passed` of `runs`, gets a Wilson score interval: unlike the
  textbook `p ± z·sqrt(p(1-p)/n)` it stays inside [0, 1] and keeps a width at 0 of K or
  K of K, where a model that passed 10 of 10 times may still fail one time in four.
- A suite's pass rate is the mean of its cases' rates, with a standard error taken over
  clusters (cases a fixture puts in one `cluster` are averaged first: ten paraphrases of
  one task are one piece of evidence, not ten) and a Student-t interval on that many
  units less one degree of freedom, so a suite of three clusters is not credited with
  the normal distribution's narrow 1.96.
- A case that never passed in five or more runs is suspect: the task may be broken
  rather than the agent.

Why written here: the quantile of Student's t is all this needs of a statistics library
(scipy would be a 40 MB dependency for one function); the regularized incomplete beta
function gives its CDF, and bisection inverts it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import NormalDist

#: The share of intervals that cover the true rate.
CONFIDENCE = 0.95
#: The normal quantile of a two-sided 95 % interval (1.95996…).
Z95 = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)
#: Runs without a pass from which a case is called suspect.
SUSPECT_RUNS = 5


def wilson_interval(passed: int, runs: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a pass rate of `passed` in `runs` (runs ≥ 1)."""
    if runs < 1 or not 0 <= passed <= runs:
        raise ValueError(f"{passed} passed of {runs} runs is no pass rate")
    rate = passed / runs
    scale = 1 + z * z / runs
    centre = (rate + z * z / (2 * runs)) / scale
    spread = z * math.sqrt(rate * (1 - rate) / runs + z * z / (4 * runs * runs)) / scale
    # Rounding can leave a bound a hair outside [0, 1] or off the exact 0 and 1 it is.
    low = 0.0 if passed == 0 else max(0.0, centre - spread)
    high = 1.0 if passed == runs else min(1.0, centre + spread)
    return low, high


def suspect_note(passed: int, runs: int) -> str | None:
    """Why a case that never passed deserves a look at its task, or None."""
    if passed or runs < SUSPECT_RUNS:
        return None
    return f"suspect: 0 of {runs} runs passed; check that the task can be done before blaming the agent"


def check_flips(
    check_passes: Mapping[str, int], check_runs: Mapping[str, int] | None, runs: int
) -> dict[str, int]:
    """Per check that flipped: the runs in which it went against its usual result (the
    fewer of its passes and its failures); a check that never flipped is left out."""
    flips: dict[str, int] = {}
    for check, passes in check_passes.items():
        graded = (check_runs or {}).get(check, runs)
        fewer = min(passes, graded - passes)
        if fewer > 0:
            flips[check] = fewer
    return flips


@dataclass(frozen=True, slots=True)
class SuiteRate:
    """A suite's pass rate over repeated runs, and how sure it is."""

    #: The mean of the clusters' pass rates (a case without a cluster is its own).
    mean: float
    #: The standard error of that mean, over the clusters (0 with one cluster).
    standard_error: float
    #: The Student-t 95 % interval, clipped to [0, 1] (the whole of it with one cluster).
    low: float
    high: float
    #: Clusters the mean is taken over, and the cases in them.
    clusters: int
    cases: int


def suite_rate(rates: Iterable[tuple[str | None, float]]) -> SuiteRate | None:
    """The suite's rate from each case's (cluster, pass rate); None without a case."""
    grouped: dict[str, list[float]] = {}
    units: list[float] = []
    cases = 0
    for cluster, rate in rates:
        cases += 1
        if cluster is None:
            units.append(rate)
        else:
            grouped.setdefault(cluster, []).append(rate)
    units.extend(sum(members) / len(members) for members in grouped.values())
    if not units:
        return None
    count = len(units)
    mean = sum(units) / count
    if count < 2:  # one unit: no spread to measure, so no claim of one
        return SuiteRate(mean, 0.0, 0.0, 1.0, count, cases)
    variance = sum((unit - mean) ** 2 for unit in units) / (count - 1)
    error = math.sqrt(variance / count)
    margin = t_quantile(0.5 + CONFIDENCE / 2, count - 1) * error
    return SuiteRate(mean, error, max(0.0, mean - margin), min(1.0, mean + margin), count, cases)


def t_quantile(probability: float, df: int) -> float:
    """The `probability` quantile of Student's t with `df` degrees of freedom."""
    if not 0 < probability < 1 or df < 1:
        raise ValueError(f"no t quantile at {probability} with {df} degrees of freedom")
    if probability < 0.5:
        return -t_quantile(1 - probability, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < probability:
        high *= 2
    for _ in range(200):  # to the float's precision long before the count runs out
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if t_cdf(middle, df) < probability:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def t_cdf(t: float, df: int) -> float:
    """P(T ≤ t) for Student's t with `df` degrees of freedom."""
    tail = _incomplete_beta(df / 2, 0.5, df / (df + t * t)) / 2
    return 1 - tail if t > 0 else tail


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction
    (modified Lentz), on the side where the fraction converges fast."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - _incomplete_beta(b, a, 1 - x)
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return math.exp(log_front) * fraction / a


#: The chance of a false alarm `--fail-on significant-regression` accepts by default.
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class PairedChange:
    """A change against a base run of the same cases, as a paired sign test sees it."""

    #: Cases whose pass rate fell (a pass that now fails, for a case run once), and rose.
    worse: int
    better: int
    #: The one-sided p-value: the chance of at least `worse` of the `worse + better`
    #: cases that moved falling, were a fall and a rise equally likely (no change).
    p_value: float
    #: The cases paired, moved or not: the test can say "significant" only when
    #: 0.5 ** cases is below the level (`too_few`).
    cases: int = 0

    def significant(self, alpha: float) -> bool:
        """Whether the fall is too large to be noise at the `alpha` level."""
        return self.worse > self.better and self.p_value < alpha

    def too_few(self, alpha: float) -> bool:
        """Whether there are too few paired cases for any fall to reach `alpha`: every
        one of them failing would still read as noise, so the test certifies nothing."""
        return self.cases < MIN_PAIRED or 0.5**self.cases >= alpha


#: Fewer paired cases than this, the sign test is no gate at any level it accepts.
MIN_PAIRED = 5


def sign_test(worse: int, better: int) -> float:
    """P(at least `worse` of `worse + better` fair coin flips fall): exact while the
    count is small, by the regularized incomplete beta function above that (the sum of
    binomial terms of a million flips would hold a run for minutes)."""
    moved = worse + better
    if worse == 0:
        return 1.0
    if moved <= 1000:
        tail: int = sum(math.comb(moved, k) for k in range(worse, moved + 1))
        return tail / (1 << moved)
    return _incomplete_beta(worse, better + 1, 0.5)


def paired_change(pairs: Iterable[tuple[float, float]]) -> PairedChange:
    """The sign test (exact McNemar, for cases run once) over (base rate, head rate) pairs
    of the same cases: the cases that did not move carry no evidence either way."""
    worse = better = cases = 0
    for before, after in pairs:
        cases += 1
        if after < before:
            worse += 1
        elif after > before:
            better += 1
    return PairedChange(worse, better, sign_test(worse, better), cases)


def fisher_worse(before_passed: int, before_runs: int, after_passed: int, after_runs: int) -> float:
    """One case's runs before and after a change (`--repeat` on both sides), as two
    samples of one pass rate: the one-sided p of Fisher's exact test that the rate fell.
    The runs of the two sides are not paired (run 3 before has nothing to do with run 3
    after), so it is the hypergeometric chance, with the passes of both sides fixed, that
    the after side holds this few of them or fewer."""
    total, passes = before_runs + after_runs, before_passed + after_passed
    if after_runs == 0 or before_runs == 0:
        return 1.0
    ways = math.comb(total, after_runs)
    low = max(0, after_runs - (total - passes))
    tail = sum(
        math.comb(passes, k) * math.comb(total - passes, after_runs - k) for k in range(low, after_passed + 1)
    )
    return min(1.0, tail / ways)
