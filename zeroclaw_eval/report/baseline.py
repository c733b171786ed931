"""What changed since a baseline report, and the pass-rate history a report may carry.

A run compared with an earlier report of the same suite (`--baseline FILE`) marks each
of its cases: `new_failure` (passed in the baseline, does not pass now), `fixed` (did
not pass, passes now), `still_failing`, `still_passing`, or `new` (not in the baseline);
the baseline's cases this run does not have are listed as `removed`. "Passes" means
status `passed`; a failed check, a run error and a rejected fixture all do not.

Cases are matched by their path as the reports store it (relative to the run's working
directory, `/`-separated): a suite run from the same folder names each fixture the same
way every time, whatever machine or checkout it runs in. A case whose path has no match
is then matched by its fixture `id`, when exactly one case on each side has that id, so
a fixture renamed with its tracker id kept keeps its history. Nothing else is guessed:
file names alone can repeat across suites.

This module knows cases only by the few attributes it reads (`CaseLike`), so the report
model can hold a `Baseline` without a circular import.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from zeroclaw_eval.report.statistics import DEFAULT_ALPHA, PairedChange

NEW_FAILURE, FIXED, STILL_FAILING, STILL_PASSING, NEW, REMOVED = (
    "new_failure",
    "fixed",
    "still_failing",
    "still_passing",
    "new",
    "removed",
)
#: Every change, in the order reports count them.
CHANGES = (NEW_FAILURE, FIXED, STILL_FAILING, NEW, REMOVED, STILL_PASSING)
#: How a change reads to a person.
LABELS = {change: change.replace("_", " ") for change in CHANGES}
#: The changes a reader is shown case by case; `still_failing` and `still_passing` are
#: only counted.
SHOWN = (NEW_FAILURE, FIXED, NEW, REMOVED)

#: `--fail-on` policies: any case that does not pass fails the run (the default); only a
#: new failure since the baseline does (`is_new_failure`); or, for live suites whose cases
#: pass and fail by chance, only a fall of the cases the baseline shares that a paired
#: sign test calls significant (`statistics.paired_change`), besides what no noise
#: explains: a new case that fails, a rejected fixture, a pass under a strict `xfail`.
FAIL_ON_ANY, FAIL_ON_NEW_FAILURES, FAIL_ON_SIGNIFICANT = "any", "new-failures", "significant-regression"
FAIL_ON = (FAIL_ON_ANY, FAIL_ON_NEW_FAILURES, FAIL_ON_SIGNIFICANT)


def is_new_failure(change: str | None, passed: bool) -> bool:
    """Whether a case is a new failure, what `--fail-on new-failures` gates on and the
    pull-request comment lists first: it does not pass now (`passed`: it passed, or failed
    as its `xfail` mark expected) and did not fail in the baseline. That is a regression
    (`new_failure`), or a case the change adds that does not pass (`new`): the gate is a
    ratchet, and a change may not land a failing case unless the case says it is
    expected to fail (`xfail`). A case still failing was failing before the change, and a
    removed case is listed, never gated."""
    return not passed and change in (NEW_FAILURE, NEW)


_PASSED = "passed"


class CaseLike(Protocol):
    """What the comparison reads of a case (a `CaseReport` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def id(self) -> str | None: ...
    @property
    def status(self) -> str: ...
    @property
    def change(self) -> str | None: ...


@dataclass(frozen=True)
class RemovedCase:
    """A case of the baseline that this run does not have, as the baseline had it."""

    name: str
    path: str
    id: str | None
    status: str


@dataclass(frozen=True)
class Baseline:
    """The report a run was compared with, and what it means for the gate."""

    #: The baseline file as given on the command line.
    path: str
    #: `sha256:` and the hex digest of the file's bytes: which baseline, exactly.
    digest: str
    #: The zeroclaw-eval version that wrote it.
    tool_version: str
    #: `any`, `new-failures` or `significant-regression` (see `FAIL_ON`).
    fail_on: str = FAIL_ON_ANY
    removed: list[RemovedCase] = field(default_factory=list)
    #: The paired sign test of the cases both runs have (None: not taken, as in a report
    #: of a version before it), and the level `significant-regression` gates at.
    paired: PairedChange | None = None
    alpha: float = DEFAULT_ALPHA
    #: What the cases both runs have cost in the baseline's run and in this one (None: a
    #: case of them not priced, or a reply that said no usage); the most that cost may
    #: grow, in percent, before the gate fails (`--max-cost-increase`; None: no bound).
    #: The same cases on both sides: a shard or a `-k` run compared with a whole suite's
    #: cost would always look cheaper.
    cost_before: float | None = None
    cost_after: float | None = None
    max_cost_increase: float | None = None

    def cost_exceeded(self) -> str | None:
        """Why this run fails `--max-cost-increase`, or None when it does not: the cost
        of the cases both runs have grew past the bound, or either side has no cost to
        compare (a gate that cannot measure fails, rather than pass what it never saw)."""
        bound, cost = self.max_cost_increase, self.cost_after
        if bound is None:
            return None
        if cost is None or self.cost_before is None:
            which = "this run" if cost is None else "the baseline"
            said = f"--max-cost-increase {bound:g}%: {which} has no cost"
            return f"{said} (a live run with a priced provider has one)"
        growth = (cost - self.cost_before) / self.cost_before * 100 if self.cost_before else 0.0
        if (self.cost_before == 0 and cost > 0) or growth > bound:
            grew = f"+{growth:.0f}%" if self.cost_before else "from nothing"
            return f"cost {grew} against the baseline, above --max-cost-increase {bound:g}%"
        return None


@dataclass(frozen=True)
class ChangedCase:
    """A case a reader is shown under "changes since baseline"."""

    change: str
    name: str
    path: str
    #: Its status now; for a removed case, in the baseline.
    status: str
    #: Its position among the report's cases (None for a removed case).
    index: int | None


def changed_cases(cases: Sequence[CaseLike], removed: Sequence[RemovedCase]) -> list[ChangedCase]:
    """The cases whose change a reader is shown (`SHOWN`), new failures first, each kind
    in fixture order, removed ones last."""
    shown = [
        ChangedCase(c.change, c.name, c.path, c.status, i) for i, c in enumerate(cases) if c.change in SHOWN
    ]
    shown.extend(ChangedCase(REMOVED, c.name, c.path, c.status, None) for c in removed)
    return sorted(shown, key=lambda row: SHOWN.index(row.change))


@dataclass(frozen=True)
class HistoryPoint:
    """One earlier run of a suite, as a pass-rate history line records it."""

    passed: int
    total: int

    @property
    def rate(self) -> float:
        """Cases passed in proportion to all (0.0 for a run of none)."""
        return self.passed / self.total if self.total else 0.0


def _key(path: str) -> str:
    # A report written on Windows stores its paths with backslashes.
    return path.replace("\\", "/")


def matched(current: Sequence[CaseLike], previous: Sequence[CaseLike]) -> dict[int, int]:
    """Which `previous` case each `current` case is, by index: by path, else by a
    fixture `id` that exactly one case on each side has (see the module's words)."""
    by_path = {_key(case.path): index for index, case in enumerate(previous)}
    found = {i: by_path[_key(case.path)] for i, case in enumerate(current) if _key(case.path) in by_path}
    taken = set(found.values())
    mine = _unique_ids(current, set(found))
    theirs = _unique_ids(previous, taken)
    for case_id, index in mine.items():
        if case_id in theirs:
            found[index] = theirs[case_id]
            taken.add(theirs[case_id])
    return found


def compare(current: Sequence[CaseLike], previous: Sequence[CaseLike]) -> tuple[list[str], list[RemovedCase]]:
    """The change of each `current` case (in its order), and the `previous` cases this
    run does not have (in theirs)."""
    pairs = matched(current, previous)
    changes = [
        change(case.status, previous[pairs[i]].status if i in pairs else None)
        for i, case in enumerate(current)
    ]
    taken = set(pairs.values())
    removed = [RemovedCase(c.name, c.path, c.id, c.status) for j, c in enumerate(previous) if j not in taken]
    return changes, removed


def _unique_ids(cases: Sequence[CaseLike], skip: set[int]) -> dict[str, int]:
    """The index of each case outside `skip` whose `id` no other such case shares, by id."""
    left = [(index, case.id) for index, case in enumerate(cases) if index not in skip and case.id is not None]
    counted = Counter(case_id for _, case_id in left)
    return {case_id: index for index, case_id in left if counted[case_id] == 1}


def change(now: str, before: str | None) -> str:
    """The change from status `before` (None: the case was not in the baseline) to `now`."""
    if before is None:
        return NEW
    if before == _PASSED:
        return STILL_PASSING if now == _PASSED else NEW_FAILURE
    return FIXED if now == _PASSED else STILL_FAILING


def counts(changes: Iterable[str | None], removed: Sequence[RemovedCase]) -> dict[str, int]:
    """How many cases made each change, every change present (removed included)."""
    counted = Counter(changes)
    return {name: len(removed) if name == REMOVED else counted[name] for name in CHANGES}


def describe_changes(changes: Iterable[str | None], removed: Sequence[RemovedCase]) -> str:
    """`1 new failure, 2 fixed, …`: how many cases made each change that happened."""
    numbers = counts(changes, removed)
    return ", ".join(f"{numbers[c]} {LABELS[c]}" for c in CHANGES if numbers[c]) or "no cases on either side"


def baseline_to_dict(baseline: Baseline | None, changes: Iterable[str | None]) -> dict[str, Any] | None:
    """The JSON report's `baseline` object (None without one)."""
    if baseline is None:
        return None
    return {
        "path": baseline.path,
        "digest": baseline.digest,
        "tool_version": baseline.tool_version,
        "fail_on": baseline.fail_on,
        "counts": counts(changes, baseline.removed),
        "removed": [asdict(case) for case in baseline.removed],
        "paired": asdict(baseline.paired) if baseline.paired is not None else None,
        "alpha": baseline.alpha,
        "cost_before_usd": baseline.cost_before,
        "cost_after_usd": baseline.cost_after,
        "max_cost_increase": baseline.max_cost_increase,
    }


def history_to_list(history: Sequence[HistoryPoint] | None) -> list[dict[str, int]] | None:
    """The JSON report's `history` list (None without one)."""
    return None if history is None else [asdict(point) for point in history]
