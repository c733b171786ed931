"""`zeroclaw_eval.report.baseline`: every change a case can make since a baseline, how
cases are matched, what a reader is shown, and the JSON shape both ways."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from zeroclaw_eval.report.baseline import (
    CHANGES,
    FIXED,
    NEW,
    NEW_FAILURE,
    REMOVED,
    STILL_FAILING,
    STILL_PASSING,
    Baseline,
    HistoryPoint,
    RemovedCase,
    baseline_to_dict,
    change,
    changed_cases,
    compare,
    counts,
    describe_changes,
    history_to_list,
)
from zeroclaw_eval.report.codec import report_from_dict, report_to_dict
from zeroclaw_eval.report.model import SuiteReport

STATUSES = ("passed", "failed", "error", "rejected")


@dataclass
class Case:
    """A case as the comparison reads one."""

    path: str
    status: str = "passed"
    id: str | None = None
    change: str | None = None

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@pytest.mark.parametrize("before", STATUSES)
@pytest.mark.parametrize("now", STATUSES)
def test_every_transition_between_statuses(before: str, now: str) -> None:
    expected = {
        (True, True): STILL_PASSING,
        (True, False): NEW_FAILURE,
        (False, True): FIXED,
        (False, False): STILL_FAILING,
    }[(before == "passed", now == "passed")]
    assert change(now, before) == expected
    changes, removed = compare([Case("evals/x.json", now)], [Case("evals/x.json", before)])
    assert (changes, removed) == ([expected], [])


@pytest.mark.parametrize("now", STATUSES)
def test_a_case_the_baseline_lacks_is_new_whatever_its_status(now: str) -> None:
    assert compare([Case("evals/new.json", now)], [Case("evals/old.json")]) == (
        [NEW],
        [RemovedCase("old.json", "evals/old.json", None, "passed")],
    )


def test_removed_cases_keep_their_baseline_status_and_order() -> None:
    previous = [
        Case("evals/a.json", "failed", "T-1"),
        Case("evals/kept.json"),
        Case("evals/b.json", "rejected"),
    ]
    changes, removed = compare([Case("evals/kept.json", "failed")], previous)
    assert changes == [NEW_FAILURE]
    assert removed == [
        RemovedCase("a.json", "evals/a.json", "T-1", "failed"),
        RemovedCase("b.json", "evals/b.json", None, "rejected"),
    ]


def test_changes_follow_the_current_fixture_order() -> None:
    previous = [Case("evals/b.json", "failed"), Case("evals/a.json")]
    current = [Case("evals/a.json", "error"), Case("evals/b.json"), Case("evals/c.json")]
    assert compare(current, previous) == ([NEW_FAILURE, FIXED, NEW], [])


def test_a_path_written_with_backslashes_matches_its_posix_form() -> None:
    assert compare([Case("evals/x.json")], [Case("evals\\x.json", "failed")]) == ([FIXED], [])


def test_a_renamed_fixture_keeps_its_history_through_its_id() -> None:
    changes, removed = compare(
        [Case("evals/renamed.json", "failed", "T-7")], [Case("evals/old.json", id="T-7")]
    )
    assert (changes, removed) == ([NEW_FAILURE], [])


def test_the_path_wins_over_the_id() -> None:
    """A case whose path matches is never re-matched by id, and its partner is taken."""
    previous = [Case("evals/a.json", "failed", "T-1"), Case("evals/b.json", "passed", "T-1")]
    changes, removed = compare([Case("evals/a.json", "passed", "T-1")], previous)
    assert changes == [FIXED]
    assert [case.path for case in removed] == ["evals/b.json"]


@pytest.mark.parametrize(
    ("current_ids", "previous_ids"),
    [(["T-1", "T-1"], ["T-1"]), (["T-1"], ["T-1", "T-1"])],
    ids=["shared-now", "shared-before"],
)
def test_an_id_shared_by_two_cases_matches_nothing(current_ids: list[str], previous_ids: list[str]) -> None:
    current = [Case(f"evals/new{i}.json", id=case_id) for i, case_id in enumerate(current_ids)]
    previous = [Case(f"evals/old{i}.json", id=case_id) for i, case_id in enumerate(previous_ids)]
    changes, removed = compare(current, previous)
    assert changes == [NEW] * len(current)
    assert len(removed) == len(previous)


def test_a_case_without_an_id_is_matched_by_path_only() -> None:
    assert compare([Case("evals/new.json")], [Case("evals/old.json")])[0] == [NEW]


def test_counts_hold_every_change_and_the_removed() -> None:
    removed = [RemovedCase("r.json", "evals/r.json", None, "passed")]
    numbers = counts([NEW_FAILURE, NEW_FAILURE, STILL_PASSING, None], removed)
    assert list(numbers) == list(CHANGES)
    assert numbers == {
        NEW_FAILURE: 2,
        FIXED: 0,
        STILL_FAILING: 0,
        NEW: 0,
        REMOVED: 1,
        STILL_PASSING: 1,
    }


def test_described_counts_name_only_what_happened() -> None:
    removed = [RemovedCase("r.json", "evals/r.json", None, "passed")]
    assert describe_changes([FIXED, NEW_FAILURE, STILL_PASSING, STILL_PASSING], removed) == (
        "1 new failure, 1 fixed, 1 removed, 2 still passing"
    )
    assert describe_changes([], []) == "no cases on either side"


def test_readers_are_shown_the_changed_cases_new_failures_first() -> None:
    cases = [
        Case("evals/a.json", change=NEW),
        Case("evals/b.json", change=STILL_PASSING),
        Case("evals/c.json", "failed", change=STILL_FAILING),
        Case("evals/d.json", change=FIXED),
        Case("evals/e.json", "error", change=NEW_FAILURE),
        Case("evals/f.json", "failed", change=NEW_FAILURE),
    ]
    removed = [RemovedCase("g.json", "evals/g.json", None, "failed")]
    rows = changed_cases(cases, removed)
    assert [(r.change, r.path, r.status, r.index) for r in rows] == [
        (NEW_FAILURE, "evals/e.json", "error", 4),
        (NEW_FAILURE, "evals/f.json", "failed", 5),
        (FIXED, "evals/d.json", "passed", 3),
        (NEW, "evals/a.json", "passed", 0),
        (REMOVED, "evals/g.json", "failed", None),
    ]


def test_the_json_shape_round_trips() -> None:
    baseline = Baseline(
        "reports/previous.json",
        "sha256:" + "0" * 64,
        "1.2.3",
        "new-failures",
        [RemovedCase("r.json", "evals/r.json", "T-9", "passed")],
    )
    data = baseline_to_dict(baseline, [FIXED, None])
    assert data == {
        "path": "reports/previous.json",
        "digest": "sha256:" + "0" * 64,
        "tool_version": "1.2.3",
        "fail_on": "new-failures",
        "counts": {NEW_FAILURE: 0, FIXED: 1, STILL_FAILING: 0, NEW: 0, REMOVED: 1, STILL_PASSING: 0},
        "removed": [{"name": "r.json", "path": "evals/r.json", "id": "T-9", "status": "passed"}],
        "paired": None,
        "alpha": 0.05,
        "cost_before_usd": None,
        "cost_after_usd": None,
        "max_cost_increase": None,
    }
    report = SuiteReport("s", "replay", [], 1.0, "0.1.0", baseline=baseline)
    assert report_from_dict(report_to_dict(report)).baseline == baseline
    assert baseline_to_dict(None, []) is None


def test_history_round_trips_and_knows_its_rate() -> None:
    history = [HistoryPoint(1, 4), HistoryPoint(0, 0)]
    report = SuiteReport("s", "replay", [], 1.0, "0.1.0", history=history)
    assert report_from_dict(report_to_dict(report)).history == history
    assert [point.rate for point in history] == [0.25, 0.0]
    assert history_to_list(None) is None
