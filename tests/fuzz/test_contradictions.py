"""Admission refuses every pair of checks no run can satisfy together: for any fixture
admission lets through, some run passes every check. The test builds that run from the
checks (a witness: the calls, their arguments, results and outcomes, each turn's answer)
and grades it with the real grader; a fixture it cannot build a run for must have been
refused. The checks drawn are those of the dispatch list and the answers, over a few
tools and needles so that they meet and clash often."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, strategies as st

from zeroclaw_eval import Case, RejectedFixture, load_fixture
from zeroclaw_eval.boundary.record import RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.grading.grader import grade

TOOLS = ["echo", "file_read", "list_dir"]
#: A tool none of the checks names: what a run may call to make up a count.
OTHER = "other_tool"
NEEDLES = ["x", "y", "xy", "z"]

_tool = st.sampled_from(TOOLS)
_needle = st.sampled_from(NEEDLES)
_count = st.integers(min_value=0, max_value=4)
_dispatch = st.builds(
    lambda tool, needle, index: {
        "tool": tool,
        "needle": needle,
        **({} if index is None else {"call_index": index}),
    },
    _tool,
    _needle,
    st.none() | st.integers(min_value=0, max_value=2),
)
_entry = st.builds(
    lambda tool, status: {"tool": tool, **({} if status is None else {"status": status})},
    _tool,
    st.none() | st.sampled_from(["ok", "error"]),
)
_trajectory = st.builds(
    lambda mode, calls: {"mode": mode, "calls": calls},
    st.sampled_from(["strict", "unordered", "subset", "superset"]),
    st.lists(_entry, min_size=1, max_size=3),
)


@st.composite
def expectations(draw: st.DrawFn) -> tuple[int, dict[str, Any]]:
    """A number of turns and an `expects` of a few checks, each key drawn or left out."""
    turns = draw(st.integers(min_value=1, max_value=2))
    pool: dict[str, st.SearchStrategy[Any]] = {
        "tools_used": st.lists(_tool, min_size=1, max_size=2, unique=True),
        "tools_not_used": st.lists(_tool, min_size=1, max_size=2, unique=True),
        "min_tool_calls": st.integers(min_value=1, max_value=4),
        "max_tool_calls": _count,
        "exact_tool_calls": _count,
        "all_tools_succeeded": st.booleans(),
        "tool_arguments_contain": st.lists(_dispatch, min_size=1, max_size=2),
        "tool_results_contain": st.lists(_dispatch, min_size=1, max_size=2),
        "trajectory": _trajectory,
        "response_contains": st.lists(_needle, min_size=1, max_size=2),
        "response_not_contains": st.lists(_needle, min_size=1, max_size=2),
        "turn_response_contains": st.lists(
            st.builds(
                lambda turn, needle: {"turn": turn, "needle": needle}, st.integers(0, turns - 1), _needle
            ),
            min_size=1,
            max_size=2,
        ),
    }
    keys = draw(st.lists(st.sampled_from(sorted(pool)), min_size=1, max_size=5, unique=True))
    return turns, {key: draw(pool[key]) for key in keys}


def _admit(turns: int, expects: dict[str, Any]) -> Case | RejectedFixture:
    fixture = {
        "model_name": "witnessed",
        "turns": [
            {"user_input": f"turn {t}", "steps": [{"response": {"type": "text", "content": "ok"}}]}
            for t in range(turns)
        ],
        "expects": expects,
    }
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "case.json"
        path.write_text(json.dumps(fixture, indent=2), encoding="utf-8")
        return load_fixture(path)


class NoWitness(Exception):
    """The checks ask for something no run can do: admission should have said so."""


def _calls(expects: Expects) -> list[tuple[str, str | None]]:
    """The calls of a run passing the dispatch-list checks, as (tool, "ok"/"error"/None)."""
    needed: Counter[str] = Counter()
    for tool in expects.tools_used:
        needed[tool] = max(needed[tool], 1)
    for check in [*expects.tool_arguments_contain, *expects.tool_results_contain]:
        needed[check.tool] = max(needed[check.tool], (check.call_index or 0) + 1)
    trajectory = expects.trajectory
    mode = trajectory.mode if trajectory is not None else None
    entries = [(entry.tool, entry.status) for entry in trajectory.calls] if trajectory is not None else []
    succeed = expects.all_tools_succeeded
    spare: list[tuple[str, str | None]] = []
    if mode in ("strict", "unordered"):
        calls = list(entries)
    elif mode == "subset":
        # Some of the entries, each once: those the needs name, then any one; none to a
        # tool not to be used, none failed where every call must succeed; a failure first
        # where one is needed.
        spare = [
            (tool, status)
            for tool, status in entries
            if tool not in expects.tools_not_used and not (succeed and status == "error")
        ]
        spare.sort(key=lambda entry: entry[1] == "ok" if succeed is False else entry[1] == "error")
        calls = []
        for tool, count in needed.items():
            for _ in range(count):
                pick = next((entry for entry in spare if entry[0] == tool), None)
                if pick is None:
                    raise NoWitness(f"the subset trajectory lists too few calls to {tool}")
                spare.remove(pick)
                calls.append(pick)
        if not calls and spare:
            calls.append(spare.pop(0))
        if succeed is False and all(status == "ok" for _, status in calls):
            pick = next((entry for entry in spare if entry[1] != "ok"), None)
            if pick is not None:
                spare.remove(pick)
                calls.append(pick)
    else:
        calls = list(entries)
        have = Counter(tool for tool, _ in calls)
        calls += [(tool, None) for tool, count in needed.items() for _ in range(count - have[tool])]
    if succeed is False and all(status == "ok" for _, status in calls) and mode in (None, "superset"):
        calls.append((OTHER, "error"))
    least = max(expects.min_tool_calls or 0, expects.exact_tool_calls or 0)
    while len(calls) < least:
        if mode in (None, "superset"):
            calls.append((OTHER, None))
        elif mode == "subset" and spare:
            calls.append(spare.pop(0))
        else:
            raise NoWitness("the trajectory allows too few calls")
    return calls


def witness(expects: Expects, turns: int) -> RunRecord:
    """A run that passes every check of `expects` (NoWitness: none can)."""
    calls = _calls(expects)
    succeed_all = expects.all_tools_succeeded
    if succeed_all and any(status == "error" for _, status in calls):
        raise NoWitness("a call must fail, and every call succeed")
    failing = expects.all_tools_succeeded is False and not any(status == "error" for _, status in calls)
    recorded = []
    for index, (tool, status) in enumerate(calls):
        success = status != "error" and (succeed_all or not failing or status == "ok")
        if not success:
            failing = False  # one failure is enough
        arguments = " ".join(c.needle for c in expects.tool_arguments_contain if c.tool == tool)
        result = " ".join(c.needle for c in expects.tool_results_contain if c.tool == tool)
        recorded.append(RecordedCall(0, f"c{index}", tool, {"v": arguments}, result, success))
    said = {t: [c.needle for c in expects.turn_response_contains if c.turn == t] for t in range(turns)}
    said[turns - 1] += expects.response_contains
    answers = ["|".join(said[t]) or "done" for t in range(turns)]
    return RunRecord(
        turns=[TurnRecord(t, f"turn {t}", answers[t]) for t in range(turns)],
        calls=recorded,
    )


@example(
    turns_and_expects=(
        1,
        {
            "trajectory": {"mode": "strict", "calls": [{"tool": "echo", "status": "ok"}]},
            "all_tools_succeeded": False,
        },
    )
)
@example(
    turns_and_expects=(
        1,
        {"trajectory": {"mode": "subset", "calls": [{"tool": "echo"}]}, "exact_tool_calls": 0},
    )
)
@example(
    turns_and_expects=(1, {"tool_results_contain": [{"tool": "echo", "needle": "x"}], "max_tool_calls": 0})
)
@example(
    turns_and_expects=(
        1,
        {
            "trajectory": {"mode": "superset", "calls": [{"tool": "echo", "status": "ok"}]},
            "all_tools_succeeded": False,
            "max_tool_calls": 1,
        },
    )
)
@given(turns_and_expects=expectations())
def test_an_admitted_fixture_has_a_run_that_passes_every_check(
    turns_and_expects: tuple[int, dict[str, Any]],
) -> None:
    turns, expects = turns_and_expects
    admitted = _admit(turns, expects)
    if isinstance(admitted, RejectedFixture):
        return  # the other test holds each refusal to a contradiction
    try:
        run = witness(admitted.trace.expects, turns)
    except NoWitness as why:
        pytest.fail(f"admitted, but no run can pass it ({why}): {expects}")
    failed = [g for g in grade(admitted.trace.expects, run) if not g.passed]
    assert not failed, (expects, [(g.check_id, g.detail) for g in failed])


#: Pairs of checks no run can satisfy together, and the two pointers the refusal names.
CONTRADICTIONS = [
    (
        {
            "trajectory": {"mode": "strict", "calls": [{"tool": "echo", "status": "ok"}]},
            "all_tools_succeeded": False,
        },
        "/expects/all_tools_succeeded",
        "/expects/trajectory/calls",
    ),
    (
        {"trajectory": {"mode": "subset", "calls": [{"tool": "echo"}]}, "exact_tool_calls": 0},
        "/expects/exact_tool_calls",
        "/expects/trajectory/mode",
    ),
    (
        {"tool_results_contain": [{"tool": "echo", "needle": "x", "call_index": 1}], "max_tool_calls": 1},
        "/expects/max_tool_calls",
        "/expects/tool_results_contain/0",
    ),
    (
        {"all_tools_succeeded": False, "exact_tool_calls": 0},
        "/expects/exact_tool_calls",
        "/expects/all_tools_succeeded",
    ),
    (
        {"tool_arguments_contain": [{"tool": "echo", "needle": "x"}], "tools_not_used": ["echo"]},
        "/expects/tool_arguments_contain/0/tool",
        "/expects/tools_not_used/0",
    ),
    (
        {"trajectory": {"mode": "unordered", "calls": [{"tool": "echo"}]}, "tools_used": ["file_read"]},
        "/expects/tools_used/0",
        "trajectory (unordered)",
    ),
    (
        {"trajectory": {"mode": "subset", "calls": [{"tool": "echo"}]}, "min_tool_calls": 2},
        "/expects/min_tool_calls",
        "trajectory (subset)",
    ),
    (
        {
            "trajectory": {"mode": "strict", "calls": [{"tool": "echo"}]},
            "tool_results_contain": [{"tool": "echo", "needle": "x", "call_index": 1}],
        },
        "/expects/tool_results_contain/0",
        "trajectory (strict)",
    ),
    (
        {"turn_response_contains": [{"turn": 0, "needle": "xy"}], "response_not_contains": ["x"]},
        "/expects/turn_response_contains/0/needle",
        "/expects/response_not_contains/0",
    ),
    (
        {"workspace": {"file_exists": ["out/a.txt"], "file_absent": ["out"]}},
        "/expects/workspace/file_absent/0",
        "/expects/workspace/file_exists/0",
    ),
    (
        {"workspace": {"file_contains": {"notes.txt": ["x"]}, "file_absent": ["./notes.txt"]}},
        "/expects/workspace/file_absent/0",
        "/expects/workspace/file_contains/notes.txt",
    ),
]


@pytest.mark.parametrize(("expects", "at", "names"), CONTRADICTIONS)
def test_a_contradictory_pair_is_refused_naming_both_checks(
    expects: dict[str, Any], at: str, names: str
) -> None:
    refused = _admit(1, expects)
    assert isinstance(refused, RejectedFixture), expects
    messages = [p.message for p in refused.problems if p.field.pointer == at]
    assert messages, [(p.field.pointer, p.message) for p in refused.problems]
    assert any(names in message and "no run can pass" in message for message in messages), messages
    # Each check alone is admitted: it is the pair that no run can satisfy.
    for key in expects:
        alone = _admit(1, {key: expects[key]})
        assert isinstance(alone, Case) or key == "workspace", (key, getattr(alone, "problems", None))
