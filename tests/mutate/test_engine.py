"""Mutation runs (`zeroclaw_eval.mutate.engine`): which mutants a case gets, which of them
its checks kill, and the check suggested for each survivor."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import (
    admit_case,
    echo_fixture,
    scripted_fixture,
    text_step,
    tool_call,
    tools_step,
)
from zeroclaw_eval.mutate.engine import mutate_case
from zeroclaw_eval.mutate.mutant import OPERATORS
from zeroclaw_eval.mutate.report import FixtureMutation, MutantOutcome


def mutated(tmp_path: Path, fixture: dict[str, Any]) -> FixtureMutation:
    return asyncio.run(mutate_case(admit_case(tmp_path, fixture)))


def by_name(result: FixtureMutation) -> dict[str, MutantOutcome]:
    return {outcome.name: outcome for outcome in result.outcomes}


#: Two turns: a write then a read of the same file in one step (so their order matters),
#: an echo in the second turn, token counts, and answers with lines and numbers.
RICH_TURNS = [
    (
        "Save v1 and read it back",
        [
            tools_step(
                tool_call("file_write", {"path": "out.txt", "content": "v1"}, "w"),
                tool_call("file_read", {"path": "out.txt"}, "r"),
                tokens=(10, 5),
            ),
            text_step("Saved 1 file.", tokens=(12, 3)),
        ],
    ),
    ("Echo b2", [tools_step(tool_call("echo", {"message": "b2"})), text_step("Echoed b2.\nAll 2 done.")]),
]
RICH_TOOLS = {"tools": ["file_write", "file_read"]}


def test_every_operator_applies_to_a_run_that_has_what_it_changes(tmp_path: Path) -> None:
    result = mutated(tmp_path, scripted_fixture(RICH_TURNS, {"tools_used": ["echo"]}, **RICH_TOOLS))
    assert result.problem is None
    assert {outcome.operator for outcome in result.outcomes} == set(OPERATORS)
    names = set(by_name(result))
    for expected in (
        "drop_call[turn 1, call 0]",
        "rename_tool[turn 2, call 0]",
        "alter_argument[turn 1, call 0, /content]",
        "drop_argument[turn 1, call 1, path]",
        "fail_call[turn 2, call 0]",
        "swap_calls[turn 1, calls 0 and 1]",
        "alter_response[final response, emptied]",
        "alter_response[final response, line 1 dropped]",
        "alter_response[final response, number 2]",
        "alter_turn_order[turns 1 and 2]",
        "skip_write[out.txt]",
        "write_elsewhere[out.txt]",
        "alter_file[out.txt]",
        "inflate_budget[tokens]",
        "inflate_budget[llm_calls]",
    ):
        assert expected in names, sorted(names)


def test_a_case_with_only_tools_used_lets_wrong_arguments_and_answers_survive(tmp_path: Path) -> None:
    result = mutated(tmp_path, echo_fixture({"tools_used": ["echo"]}))
    outcomes = by_name(result)
    argument = outcomes["alter_argument[turn 1, call 0, /message]"]
    assert not argument.killed
    assert (argument.before, argument.after) == ('"hello"', '"hellx"')
    assert (
        argument.suggestion
        == 'add {"tool": "echo", "needle": "hello", "call_index": 0} to "tool_arguments_contain"'
    )
    answer = outcomes["alter_response[final response, emptied]"]
    assert not answer.killed
    assert answer.suggestion == 'add "hello" to "response_contains"'
    # Dropping the only call to a tool the case requires is seen.
    assert outcomes["drop_call[turn 1, call 0]"].killed_by == ("tools_used[0]",)
    assert "alter_argument" in result.unseen_operators


def test_each_suggested_check_keeps_the_case_green_and_kills_its_mutant(tmp_path: Path) -> None:
    weak = mutated(tmp_path / "weak", echo_fixture({"tools_used": ["echo"]}))
    survivors = [outcome for outcome in weak.outcomes if not outcome.killed]
    assert survivors
    for outcome in survivors:
        assert outcome.check is not None, outcome.name
        expects: dict[str, Any] = {"tools_used": ["echo"], **outcome.check}
        stronger = mutated(tmp_path / outcome.name.replace("/", "_"), echo_fixture(expects))
        assert stronger.problem is None  # the real run still passes
        assert by_name(stronger)[outcome.name].killed, outcome.name


@pytest.mark.parametrize(
    ("check", "operators"),
    [
        (
            {"workspace": {"file_contains": {"out.txt": ["v1"]}}},
            ["skip_write", "write_elsewhere", "alter_file"],
        ),
        ({"tool_results_contain": [{"tool": "file_read", "needle": "v1"}]}, ["swap_calls"]),
        ({"budget": {"max_llm_calls": 4, "max_total_tokens": 30}}, ["inflate_budget"]),
        ({"response_contains": ["Echoed b2.\nAll 2 done."]}, ["alter_response", "alter_turn_order"]),
        ({"turn_response_contains": [{"turn": 0, "needle": "Saved 1 file."}]}, ["alter_turn_order"]),
    ],
)
def test_a_check_on_what_an_operator_changes_kills_every_mutant_of_it(
    tmp_path: Path, check: dict[str, Any], operators: list[str]
) -> None:
    weak = mutated(tmp_path / "weak", scripted_fixture(RICH_TURNS, {"tools_used": ["echo"]}, **RICH_TOOLS))
    strong = mutated(
        tmp_path / "strong", scripted_fixture(RICH_TURNS, {"tools_used": ["echo"], **check}, **RICH_TOOLS)
    )
    for operator in operators:
        assert any(not o.killed for o in weak.outcomes if o.operator == operator), operator
        mine = [o for o in strong.outcomes if o.operator == operator]
        assert mine
        assert all(o.killed for o in mine), [o.name for o in mine if not o.killed]


def test_a_swap_that_no_check_could_see_is_not_a_mutant(tmp_path: Path) -> None:
    # An echo and a list_dir do not depend on each other: in either order every tool
    # gets and returns the same, so no check can tell the swap from the run.
    steps = [
        tools_step(tool_call("echo", {"message": "a"}, "e"), tool_call("list_dir", {"path": "."}, "l")),
        text_step("done"),
    ]
    result = mutated(
        tmp_path, scripted_fixture([("go", steps)], {"tools_used": ["echo"]}, tools=["list_dir"])
    )
    assert result.problem is None
    assert not [o for o in result.outcomes if o.operator == "swap_calls"]


def test_calls_to_one_tool_are_never_swapped(tmp_path: Path) -> None:
    steps = [
        tools_step(tool_call("echo", {"message": "a"}, "1"), tool_call("echo", {"message": "b"}, "2")),
        text_step("ok"),
    ]
    result = mutated(tmp_path, scripted_fixture([("go", steps)], {"tools_used": ["echo"]}))
    assert not [o for o in result.outcomes if o.operator == "swap_calls"]
    assert "duplicate_call[turn 1, call 1]" in by_name(result)


def test_a_case_that_does_not_pass_is_not_mutated(tmp_path: Path) -> None:
    result = mutated(tmp_path, echo_fixture({"response_contains": ["goodbye"]}))
    assert result.outcomes == ()
    assert result.problem == "does not pass in replay: response_contains[0] failed"


def test_mutant_workspaces_are_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    result = mutated(tmp_path / "case", scripted_fixture(RICH_TURNS, {"tools_used": ["echo"]}, **RICH_TOOLS))
    assert any(o.operator == "alter_file" for o in result.outcomes)
    assert list(temp.iterdir()) == []


def test_a_seeded_file_the_run_left_alone_is_no_mutant_however_its_path_is_spelt(tmp_path: Path) -> None:
    fixture = echo_fixture({"tools_used": ["echo"]}, setup={"workspace_files": {"./notes/a.txt": "A"}})
    result = mutated(tmp_path, fixture)
    assert result.problem is None
    assert not [o for o in result.outcomes if o.operator in ("skip_write", "write_elsewhere", "alter_file")]


def test_an_empty_result_or_file_is_never_grown(tmp_path: Path) -> None:
    # Only "contains" checks read results and files; none that passes can see "" become "x".
    steps = [
        tools_step(tool_call("file_write", {"path": "empty.txt", "content": ""}, "w")),
        text_step("done"),
    ]
    fixture = scripted_fixture([("go", steps)], {"tools_used": ["file_write"]}, tools=["file_write"])
    names = set(by_name(mutated(tmp_path, fixture)))
    assert "skip_write[empty.txt]" in names
    assert "alter_file[empty.txt]" not in names
    assert "alter_result[turn 1, call 0]" in names  # its result ("wrote 0 characters ...") is not empty


def test_a_renamed_call_never_takes_a_name_the_checks_mention(tmp_path: Path) -> None:
    fixture = echo_fixture({"exact_tool_calls": 1, "tools_not_used": ["file_read", "file_write", "list_dir"]})
    rename = by_name(mutated(tmp_path, fixture))["rename_tool[turn 1, call 0]"]
    assert rename.after not in ("file_read", "file_write", "list_dir")
    assert not rename.killed  # no check sees which tool ran, so it survives


def test_a_number_is_pinned_by_its_member_when_the_bare_number_is_not_enough(tmp_path: Path) -> None:
    arguments = {"n": 3, "message": "the 3 of " + "x" * 80}
    steps = [tools_step(tool_call("echo", arguments)), text_step("ok")]
    result = mutated(tmp_path, scripted_fixture([("go", steps)], {"tools_used": ["echo"]}))
    outcome = by_name(result)["alter_argument[turn 1, call 0, /n]"]
    assert outcome.check == {"tool_arguments_contain": [{"tool": "echo", "needle": '"n":3', "call_index": 0}]}


def test_a_suggestion_for_a_file_already_checked_adds_a_needle_not_a_second_key(tmp_path: Path) -> None:
    steps = [
        tools_step(tool_call("file_write", {"path": "out.txt", "content": "alpha beta"}, "w")),
        text_step("ok"),
    ]
    checks = {"tools_used": ["file_write"], "workspace": {"file_contains": {"out.txt": ["alpha"]}}}
    result = mutated(tmp_path, scripted_fixture([("go", steps)], checks, tools=["file_write"]))
    outcome = by_name(result)["alter_file[out.txt]"]
    assert outcome.suggestion == 'add "alpha beta" to "out.txt" in "workspace.file_contains"'


def test_a_workspace_nested_deeper_than_a_recursive_walk_goes_is_mutated(tmp_path: Path) -> None:
    deep = "/".join(["d"] * 1200) + "/x.txt"
    steps = [tools_step(tool_call("file_write", {"path": deep, "content": "v"}, "w")), text_step("ok")]
    fixture = scripted_fixture([("go", steps)], {"tools_used": ["file_write"]}, tools=["file_write"])
    result = mutated(tmp_path, fixture)
    assert result.problem is None
    assert f"alter_file[{deep}]" in by_name(result)


def test_a_weak_trajectory_lets_a_reordering_survive_and_a_strict_one_is_suggested(tmp_path: Path) -> None:
    unordered = {
        "mode": "unordered",
        "calls": [{"tool": "file_write"}, {"tool": "file_read"}, {"tool": "echo"}],
    }
    weak = mutated(tmp_path / "weak", scripted_fixture(RICH_TURNS, {"trajectory": unordered}, **RICH_TOOLS))
    swap = by_name(weak)["swap_calls[turn 1, calls 0 and 1]"]
    assert not swap.killed  # the same calls, in another order: an unordered trajectory passes
    strict = {"mode": "strict", "calls": [{"tool": "file_write"}, {"tool": "file_read"}, {"tool": "echo"}]}
    # The check a reordering is about, proven: the real run passes it, the reordered one not.
    assert swap.check == {"trajectory": strict}
    assert swap.suggestion is not None
    assert swap.suggestion.startswith('set "trajectory": {"mode": "strict"')
    strong = mutated(tmp_path / "strong", scripted_fixture(RICH_TURNS, {"trajectory": strict}, **RICH_TOOLS))
    assert by_name(strong)["swap_calls[turn 1, calls 0 and 1]"].killed_by == ("trajectory",)


def test_the_trajectory_suggestion_reads_and_applies_as_one_value() -> None:
    from zeroclaw_eval.mutate.suggest import add_check, describe

    check = {"trajectory": {"mode": "strict", "calls": [{"tool": "echo"}]}}
    assert describe(check) == 'set "trajectory": {"mode": "strict", "calls": [{"tool": "echo"}]}'
    expects: dict[str, Any] = {
        "trajectory": {"mode": "unordered", "calls": [{"tool": "echo"}, {"tool": "x"}]}
    }
    add_check(expects, check)
    assert expects["trajectory"] == check["trajectory"]


def test_a_turn_order_survivor_is_offered_a_check_of_the_turns_answer(tmp_path: Path) -> None:
    # The calls are checked, the answers not: swapping two turns that call nothing can
    # only be told by what each turn answered.
    turns = [
        ("Hello", [text_step("Hi there.")]),
        ("Bye", [text_step("Goodbye.")]),
        ("Echo x", [tools_step(tool_call("echo", {"message": "x"})), text_step("Echoed x.")]),
    ]
    result = mutated(
        tmp_path, scripted_fixture(turns, {"tools_used": ["echo"], "response_contains": ["Echoed x."]})
    )
    survivor = by_name(result)["alter_turn_order[turns 1 and 2]"]
    assert not survivor.killed
    assert survivor.check == {"turn_response_contains": [{"turn": 0, "needle": "Hi there."}]}
