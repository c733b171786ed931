"""`zeroclaw_eval.grading.turn_checks`: every turn's answer checked, not only the last;
and the admission rule of the family (a turn the fixture does not have)."""

from __future__ import annotations

from pathlib import Path

from tests.support.builders import fixture_text, line_col, only_problem_at, position, reject, run_grades
from zeroclaw_eval.boundary.record import RunRecord, TurnRecord

TWO_TURNS = RunRecord(turns=[TurnRecord(0, "weather?", "It is sunny."), TurnRecord(1, "and Rome?", "Rainy.")])


def test_each_turns_answer_is_graded_by_its_index() -> None:
    grades = run_grades(
        {
            "turn_response_contains": [
                {"turn": 0, "needle": "sunny"},
                {"turn": 1, "needle": "Rainy"},
                {"turn": 0, "needle": "Rainy"},
            ]
        },
        TWO_TURNS,
    )
    assert [grades[f"turn_response_contains[{i}]"].passed for i in range(3)] == [True, True, False]
    failed = grades["turn_response_contains[2]"]
    assert failed.detail == (
        'expected the answer of turn 0 (0-based) to contain "Rainy"; found "It is sunny."'
    )
    assert failed.field.pointer == "/expects/turn_response_contains/2"


def test_a_turn_the_run_never_answered_fails_saying_so() -> None:
    cut_short = RunRecord(turns=[TurnRecord(0, "weather?", "It is sunny."), TurnRecord(1, "and Rome?", None)])
    grades = run_grades(
        {"turn_response_contains": [{"turn": 1, "needle": "Rainy"}, {"turn": 3, "needle": "x"}]}, cut_short
    )
    assert not grades["turn_response_contains[0]"].passed
    assert grades["turn_response_contains[1]"].detail.endswith(
        "the run has no answer of that turn (2 turn(s) ran)"
    )


def test_an_empty_run_fails_every_turn_check() -> None:
    grades = run_grades({"turn_response_contains": [{"turn": 0, "needle": "sunny"}]}, RunRecord())
    assert not grades["turn_response_contains[0]"].passed


def test_a_turn_the_fixture_does_not_have_is_rejected_at_its_index(tmp_path: Path) -> None:
    text = fixture_text('{"turn_response_contains": [{"turn": 1, "needle": "ok"}]}')
    problem = only_problem_at(reject(tmp_path, text), "/expects/turn_response_contains/0/turn")
    assert (
        problem.message == "turn 1 (0-based) is not a turn of this fixture, which has 1; no run can answer it"
    )
    assert position(problem) == line_col(text, '1, "needle"')


def test_an_empty_needle_is_rejected(tmp_path: Path) -> None:
    text = fixture_text('{"turn_response_contains": [{"turn": 0, "needle": ""}]}')
    assert (
        "empty needle"
        in only_problem_at(reject(tmp_path, text), "/expects/turn_response_contains/0/needle").message
    )
