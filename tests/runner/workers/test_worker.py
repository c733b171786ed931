"""`runner.workers.worker`: what a forked worker sends back, and the board it shares."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.builders import FAILING, PASSING, write_fixture
from zeroclaw_eval.runner import run_suite
from zeroclaw_eval.runner.workers.worker import Board, pickled


def test_reports_travel_whole(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write_fixture(suite, "a_passes.json", PASSING)
    write_fixture(suite, "b_fails.json", FAILING)
    write_fixture(suite, "c_rejected.json", {"model_name": "x"})
    reports = run_suite(suite).cases
    assert [r.status for r in reports] == ["passed", "failed", "rejected"]
    assert pickle.loads(pickled(reports)) == reports


@dataclass(frozen=True, slots=True)
class Plain:
    name: str
    values: list[int] = field(default_factory=list)


@dataclass
class Checked:
    """Rebuilding by calling the class would run `__post_init__` again."""

    count: int
    doubled: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.doubled = self.count * 2


@dataclass(init=False)
class OwnInit:
    """Its own `__init__` takes other arguments than its fields."""

    total: int

    def __init__(self, left: int, right: int) -> None:
        self.total = left + right


@dataclass
class KeywordOnly:
    """Its field is no positional argument of `__init__`."""

    name: str
    count: int = field(default=0, kw_only=True)


class Subclassed(Plain):
    """A subclass's own `__init__` in place of the one dataclasses wrote."""

    def __init__(self, first: str, second: str) -> None:
        super().__init__(first + second)


def test_dataclasses_the_class_cannot_rebuild_are_pickled_as_pickle_does() -> None:
    values = [
        Plain("a", [1, 2]),
        Checked(3),
        OwnInit(2, 5),
        {"key": (Plain("b"), 1.5)},
        KeywordOnly("k", count=4),
        Subclassed("x", "y"),
    ]
    back = pickle.loads(pickled(values))
    assert back == values
    assert back[1].doubled == 6
    assert back[2].total == 7
    assert (back[4].count, back[5].name) == (4, "xy")


def test_a_plain_dataclass_travels_as_its_class_and_values() -> None:
    # Rebuilt by calling the class: no state to set field by field after an empty object
    # is made, which is what pickle does by default (and what makes it slow to load).
    assert len(pickled([Plain("a")] * 2)) < len(pickle.dumps([Plain("a")] * 2, pickle.HIGHEST_PROTOCOL))


def test_the_board_counts_every_chunk_up_to_the_one_in_hand() -> None:
    board = Board(3)
    board.slot = 0
    board.add()
    board.slot = 2
    board.add()
    board.add()
    assert board.count == 3  # chunks 0 to 2
    board.slot = 1
    assert board.count == 1  # chunks 0 and 1: what comes after is not counted
    assert not board.stopping
    assert not board.cancelling
    board.stop()
    assert (board.stopping, board.cancelling) == (True, False)
    board.stop(cancel=True)
    assert board.cancelling
