"""`zeroclaw_eval.grading.trajectory`: the trajectory check in every mode and argument
mode, with its first divergence; its admission rules; and a real run graded by it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import echo_fixture, only_problem_at, reject, tool_call, tools_step, write_fixture
from tests.support.invoke import Runner
from zeroclaw_eval.boundary.record import RecordedCall
from zeroclaw_eval.cases.model import Trajectory
from zeroclaw_eval.grading.trajectory import grade_trajectory


def calls(*made: tuple[str, Any] | tuple[str, Any, bool]) -> list[RecordedCall]:
    return [
        RecordedCall(
            0, f"c{i}", made_call[0], made_call[1], "r", made_call[2] if len(made_call) > 2 else True
        )
        for i, made_call in enumerate(made)
    ]


def verdict(trajectory: dict[str, Any], run: list[RecordedCall]) -> tuple[bool, str, str]:
    grade = grade_trajectory(Trajectory.model_validate(trajectory), run)
    return grade.passed, grade.field.pointer, grade.detail


A = ("get_weather", {"city": "Paris", "units": "C"})
B = ("save_note", {"text": "hi"})
EXPECTED = [{"tool": "get_weather", "args": {"city": "Paris", "units": "C"}}, {"tool": "save_note"}]


@pytest.mark.parametrize(
    ("mode", "run", "passes"),
    [
        ("strict", calls(A, B), True),
        ("strict", calls(B, A), False),
        ("strict", calls(A, B, B), False),
        ("strict", calls(A), False),
        ("unordered", calls(B, A), True),
        ("unordered", calls(A, B, B), False),
        ("unordered", calls(A), False),
        ("superset", calls(B, ("echo", {}), A), True),
        ("superset", calls(A), False),
        ("subset", calls(B), True),
        ("subset", calls(A, B), True),
        ("subset", calls(A, ("echo", {})), False),
        ("subset", calls(), False),
    ],
)
def test_each_mode_compares_the_dispatch_list_as_documented(
    mode: str, run: list[RecordedCall], passes: bool
) -> None:
    assert verdict({"mode": mode, "calls": EXPECTED}, run)[0] is passes


@pytest.mark.parametrize(
    ("args_match", "received", "passes"),
    [
        ("exact", {"city": "Paris", "units": "C"}, True),
        ("exact", {"city": "Paris"}, False),
        ("subset", {"city": "Paris", "units": "C", "day": "mon"}, True),
        ("subset", {"city": "Paris"}, False),
        ("superset", {"city": "Paris"}, True),
        ("superset", {"city": "Paris", "day": "mon"}, False),
        (["city"], {"city": "Paris", "units": "F", "at": "12:00"}, True),
        (["city"], {"city": "Lima", "units": "C"}, False),
        (["city"], {"units": "C"}, False),
    ],
)
def test_each_argument_mode(args_match: Any, received: dict[str, Any], passes: bool) -> None:
    entry = {"tool": "get_weather", "args": {"city": "Paris", "units": "C"}, "args_match": args_match}
    assert verdict({"calls": [entry]}, calls(("get_weather", received)))[0] is passes


def test_arguments_compare_as_json_values() -> None:
    entry = {"tool": "t", "args": {"n": 1, "tags": ["a"]}}
    assert verdict({"calls": [entry]}, calls(("t", {"tags": ["a"], "n": 1.0})))[0]
    assert not verdict({"calls": [entry]}, calls(("t", {"n": True, "tags": ["a"]})))[0]


def test_a_call_whose_arguments_are_not_an_object_matches_only_exact_text_free_modes() -> None:
    assert verdict({"calls": [{"tool": "t"}]}, calls(("t", "{broken")))[0]
    assert not verdict(
        {"calls": [{"tool": "t", "args": {}, "args_match": "subset"}]}, calls(("t", "{broken"))
    )[0]


def test_status_asks_for_the_outcome() -> None:
    failed = calls(("t", {}, False))
    assert verdict({"calls": [{"tool": "t", "status": "error"}]}, failed)[0]
    assert not verdict({"calls": [{"tool": "t", "status": "ok"}]}, failed)[0]


def test_the_unordered_modes_match_optimally_not_greedily() -> None:
    # The first expected entry fits both calls; a greedy pairing would take the call the
    # second entry needs.
    trajectory = {
        "mode": "unordered",
        "calls": [{"tool": "t"}, {"tool": "t", "args": {"x": 2}}],
    }
    assert verdict(trajectory, calls(("t", {"x": 2}), ("t", {"x": 1})))[0]


def test_the_verdict_names_the_first_divergence_and_points_at_its_entry() -> None:
    ok, pointer, detail = verdict({"calls": EXPECTED}, calls(A, ("save_notes", {"text": "hi"})))
    assert not ok
    assert pointer == "/expects/trajectory/calls/1"
    assert detail.startswith(
        'call 1 (0-based) is save_notes({"text":"hi"}) ok, not the expected save_note(…)'
    )
    ok, pointer, detail = verdict({"mode": "superset", "calls": EXPECTED}, calls(B))
    assert pointer == "/expects/trajectory/calls/0"
    assert "no call matches expected call 0 (0-based), get_weather" in detail
    ok, pointer, detail = verdict({"mode": "unordered", "calls": EXPECTED}, calls(B, A, ("echo", {})))
    assert pointer == "/expects/trajectory/calls"
    assert "call 2 (0-based), echo({}) ok, matches no expected call" in detail


@pytest.mark.parametrize(
    ("trajectory", "extra", "pointer", "words"),
    [
        ({"calls": []}, {}, "/expects/trajectory/calls", "a run that makes no call passes it"),
        ({"mode": "subset", "calls": []}, {}, "/expects/trajectory/calls", "no run can pass it"),
        (
            {"calls": [{"tool": "echo", "args_match": "subset"}]},
            {},
            "/expects/trajectory/calls/0/args_match",
            "add args",
        ),
        (
            {"calls": [{"tool": "echo", "args": {}, "args_match": "ignore"}]},
            {},
            "/expects/trajectory/calls/0/args",
            "never compared",
        ),
        (
            {"calls": [{"tool": "echo", "args": {"a": 1}, "args_match": ["b"]}]},
            {},
            "/expects/trajectory/calls/0/args_match/0",
            "'b' is not among args",
        ),
        (
            {"calls": [{"tool": "echo"}, {"tool": "echo"}]},
            {"max_tool_calls": 1},
            "/expects/trajectory/calls",
            "needs 2 call(s) but max_tool_calls allows 1",
        ),
        (
            {"calls": [{"tool": "echo"}]},
            {"exact_tool_calls": 2},
            "/expects/trajectory/calls",
            "needs 1 call(s) but exact_tool_calls allows 2",
        ),
        (
            {"calls": [{"tool": "file_read"}]},
            {"tools_not_used": ["file_read"]},
            "/expects/trajectory/calls/0/tool",
            "in tools_not_used",
        ),
        (
            {"calls": [{"tool": "echo", "status": "error"}]},
            {"all_tools_succeeded": True},
            "/expects/trajectory/calls/0/status",
            "needs this call to fail",
        ),
    ],
)
def test_admission_refuses_a_trajectory_no_run_can_pass_or_an_empty_run_passes(
    tmp_path: Path, trajectory: dict[str, Any], extra: dict[str, Any], pointer: str, words: str
) -> None:
    rejected = reject(tmp_path, echo_fixture({"trajectory": trajectory, **extra}))
    assert words in only_problem_at(rejected, pointer).message


def test_a_real_run_is_graded_and_a_failure_is_annotated_at_the_entry(cli: Runner, tmp_path: Path) -> None:
    steps = [
        tools_step(tool_call("echo", {"message": "one"}, "a"), tool_call("echo", {"message": "two"}, "b")),
        {"response": {"type": "text", "content": "done"}},
    ]
    fixture = {
        "model_name": "two-echoes",
        "turns": [{"user_input": "Echo one and two", "steps": steps}],
        "expects": {
            "trajectory": {
                "mode": "strict",
                "calls": [
                    {"tool": "echo", "args": {"message": "one"}, "status": "ok"},
                    {"tool": "echo", "args": {"message": "three"}},
                ],
            }
        },
    }
    write_fixture(tmp_path / "evals" / "regression", "two.json", fixture)
    result = cli("eval", "run", "--format", "github", cwd=tmp_path, env={"GITHUB_WORKSPACE": str(tmp_path)})
    assert result.code == 1
    assert "::error file=evals/regression/two.json,line=" in result.stdout
    assert "trajectory" in result.stdout
    assert (
        'call 1 (0-based) is echo({"message":"two"}) ok, not the expected echo({"message":"three"})'
        in result.stdout
    )


def test_the_calls_found_are_shown_in_the_words_of_the_entries_they_stand_against() -> None:
    # Expected and found are diffed on the HTML page and in the comment: a call is shown
    # as its entry writes one (tool, args, status "ok" | "error"), leaving out what the
    # entry leaves out, so only what differs shows as changed.
    trajectory = {
        "mode": "strict",
        "calls": [
            {"tool": "get_weather", "args": {"city": "Paris", "units": "C"}, "status": "ok"},
            {"tool": "save_note"},
        ],
    }
    grade = grade_trajectory(Trajectory.model_validate(trajectory), calls(A, B))
    assert grade.passed
    assert grade.actual == grade.expected
    failed = grade_trajectory(Trajectory.model_validate(trajectory), calls((*A, False), B, A))
    assert not failed.passed
    assert failed.actual == [
        {"tool": "get_weather", "args": {"city": "Paris", "units": "C"}, "status": "error"},
        {"tool": "save_note"},
        {"tool": "get_weather", "args": {"city": "Paris", "units": "C"}, "status": "ok"},
    ]
