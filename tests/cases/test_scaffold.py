"""`zeroclaw_eval/cases/scaffold.py`: every scaffold is admitted, passes in replay and
fails against an empty run; facts that cannot make such a case are refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import admit_case, run_replay
from zeroclaw_eval.cases.scaffold import (
    TEXT_ANSWER,
    TEXT_INPUT,
    ScaffoldSpec,
    argument_needle,
    parse_arguments,
    scaffold_fixture,
)
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.grading.vacuity import find_vacuous

SPECS = {
    "text": ScaffoldSpec("greet"),
    "text-with-needle": ScaffoldSpec(
        "capital", "Capital of France?", answer="It is Paris.", needles=("Paris",)
    ),
    "echo": ScaffoldSpec("echo_hi", "Echo hi", "echo", '{"message": "hi"}', "hi"),
    "echo-no-args": ScaffoldSpec("echo_bare", tool="echo"),
    "workspace-tool": ScaffoldSpec("listing", tool="list_dir", arguments='{"path": "."}'),
    "tool-and-needle": ScaffoldSpec(
        "echo_n", tool="echo", arguments='{"message": "x"}', answer="x!", needles=("x",)
    ),
}


@pytest.mark.parametrize("spec", SPECS.values(), ids=SPECS.keys())
def test_a_scaffold_is_admitted_passes_in_replay_and_is_not_vacuous(
    tmp_path: Path, spec: ScaffoldSpec
) -> None:
    case = admit_case(tmp_path, scaffold_fixture(spec))
    assert find_vacuous(case) is None
    report = run_replay(case)
    assert report.status == "passed", [g.detail for g in report.grades if not g.passed]


def test_without_flags_the_case_is_one_turn_of_text() -> None:
    fixture = scaffold_fixture(ScaffoldSpec("greet"))
    assert fixture == {
        "model_name": "greet",
        "turns": [
            {"user_input": TEXT_INPUT, "steps": [{"response": {"type": "text", "content": TEXT_ANSWER}}]}
        ],
        "expects": {"response_contains": [TEXT_ANSWER]},
    }


def test_a_tool_case_checks_the_dispatch_and_offers_a_tool_other_than_echo() -> None:
    fixture = scaffold_fixture(ScaffoldSpec("w", "List it", "list_dir", '{"path": "docs"}', "Listed."))
    assert fixture["tools"] == ["list_dir"]
    call = fixture["turns"][0]["steps"][0]["response"]["tool_calls"][0]
    assert call == {"id": "call_1", "name": "list_dir", "arguments": {"path": "docs"}}
    assert fixture["expects"] == {
        "tools_used": ["list_dir"],
        "exact_tool_calls": 1,
        "tool_arguments_contain": [{"tool": "list_dir", "needle": "docs", "call_index": 0}],
        "all_tools_succeeded": True,
    }
    assert "tools" not in scaffold_fixture(ScaffoldSpec("e", tool="echo"))


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ({"message": "hi"}, "hi"),
        ({"n": 1, "deep": {"list": ["", "found"]}}, "found"),
        ({"message": "", "count": 2}, '{"message":"","count":2}'),
        ({}, None),
    ],
    ids=["string", "nested", "no-string", "empty"],
)
def test_the_argument_needle_is_a_string_the_call_holds(
    arguments: dict[str, Any], needle: str | None
) -> None:
    assert argument_needle(arguments) == needle


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        (ScaffoldSpec("x", answer="It is Paris.", needles=("Rome",)), "does not contain the needle 'Rome'"),
        (ScaffoldSpec("x", arguments='{"a": 1}'), "name the tool with --tool"),
        (ScaffoldSpec("x", tool="echo", arguments="[1]"), "--args must be a JSON object"),
        (ScaffoldSpec("x", tool="echo", arguments='{"a": 1, "a": 2}'), 'duplicate key "a"'),
        (ScaffoldSpec("x", tool="echo", arguments="{"), "--args is not valid JSON"),
    ],
    ids=["needle-not-in-answer", "args-without-tool", "args-not-object", "duplicate-key", "bad-json"],
)
def test_facts_that_cannot_make_a_passing_case_are_refused(spec: ScaffoldSpec, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        scaffold_fixture(spec)


def test_parse_arguments_keeps_the_object() -> None:
    assert parse_arguments('{"message": "東京", "n": [1, 2]}') == {"message": "東京", "n": [1, 2]}
