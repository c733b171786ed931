"""`zeroclaw_eval.grading.families`: the one table of check families holds every place that
must agree on a family: the fixture model, the schema, admission, grading, mutation
testing and the fixture reference page. Each test fails when a family (or a key of one)
is missing from one of them."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import record_of
from zeroclaw_eval.boundary.record import ModelStep, RecordedCall
from zeroclaw_eval.cases.contradictions import contradiction_rules
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.cases.rules import EXPECTS_RULES
from zeroclaw_eval.cases.schema import fixture_schema
from zeroclaw_eval.grading.families import FAMILIES, observable
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.mutate.mutant import OPERATORS

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference" / "fixture-format.md"

#: A check of each key, as a fixture declares it: a family's new key needs one here.
EXAMPLES: dict[str, Any] = {
    "response_contains": ["hello"],
    "turn_response_contains": [{"turn": 0, "needle": "hel"}],
    "response_not_contains": ["sorry"],
    "response_matches": ["^hel+o"],
    "response_json": {"/ok": True},
    "judge": [{"rubric": "Is it polite?"}],
    "tools_used": ["echo"],
    "tools_not_used": ["file_write"],
    "min_tool_calls": 1,
    "max_tool_calls": 2,
    "exact_tool_calls": 1,
    "all_tools_succeeded": True,
    "tool_arguments_contain": [{"tool": "echo", "needle": "hi"}],
    "tool_results_contain": [{"tool": "echo", "needle": "hi"}],
    "trajectory": {"mode": "strict", "calls": [{"tool": "echo"}]},
    "system_prompt_contains": ["Be brief"],
    "tools_offered": ["echo"],
    "workspace": {"file_exists": ["out.txt"]},
    "budget": {"max_total_tokens": 100},
}


def _keys() -> list[str]:
    return [key for family in FAMILIES for key in family.keys]


def test_every_key_of_expects_is_in_exactly_one_family() -> None:
    counted = Counter(_keys())
    assert [key for key, n in counted.items() if n > 1] == []
    assert set(counted) == set(Expects.model_fields)
    assert len({family.name for family in FAMILIES}) == len(FAMILIES)


def test_every_key_is_in_the_schema_and_the_reference_page() -> None:
    expects = fixture_schema()["$defs"]["Expects"]["properties"]
    page = REFERENCE.read_text(encoding="utf-8")
    for key in _keys():
        assert key in expects, f"{key} is not in the fixture schema"
        assert re.search(rf"`{key}[`.]", page), f"{key} is not in {REFERENCE.relative_to(ROOT)}"


def test_the_admission_rules_are_the_families_rules() -> None:
    # Every family's rules are held, and the only rules no family owns are those of
    # pairs across families.
    owned = {family.rules for family in FAMILIES if family.rules is not None}
    assert owned | {contradiction_rules} == set(EXPECTS_RULES)
    assert contradiction_rules not in owned


def test_every_mutation_operator_changes_what_some_family_reads() -> None:
    claimed = {operator for family in FAMILIES for operator in family.operators}
    assert claimed <= set(OPERATORS), sorted(claimed - set(OPERATORS))
    assert set(OPERATORS) <= claimed, f"no family reads what {sorted(set(OPERATORS) - claimed)} change"


@pytest.mark.parametrize("family", FAMILIES, ids=[family.name for family in FAMILIES])
def test_grade_grades_each_key_of_each_family(family: Any) -> None:
    assert set(family.keys) <= set(EXAMPLES), "give each new key an example in EXAMPLES"
    record = record_of("hello", [RecordedCall(0, "c1", "echo", {"message": "hi"}, "hi", True)])
    for key in family.keys:
        grades = grade(Expects.model_validate({key: EXAMPLES[key]}), record)
        assert grades, f"grade() graded nothing of {key}"
        assert all(g.check_id.startswith(key) and g.category == family.category for g in grades), grades


def test_what_a_family_reads_is_what_observable_tells_apart() -> None:
    record = record_of("hello", [RecordedCall(0, "c1", "echo", {"message": "hi"}, "hi", True)])
    changed = {
        "response": record_of("goodbye", record.calls),
        "tool": record_of("hello", [RecordedCall(0, "c1", "echo", {"message": "hi"}, "ho", True)]),
        "budget": record_of("hello", record.calls, [ModelStep(0, "hello", [], 10, 2)]),
    }
    for name, other in changed.items():
        (family,) = [family for family in FAMILIES if family.name == name]
        assert family.reads(other) != family.reads(record)
        assert observable(other) != observable(record)


def test_the_tool_family_reads_each_calls_tool_arguments_as_sent_result_and_outcome() -> None:
    # Two runs the tool family reads alike are graded alike by every tool check: a run
    # that differs in any of these must read differently.
    (family,) = [family for family in FAMILIES if family.name == "tool"]

    def reads(*calls: RecordedCall) -> object:
        return family.reads(record_of("hello", list(calls)))

    sent = RecordedCall(0, "c1", "echo", {"message": "hi"}, "hi", True)
    # A call's id and turn reach no tool check.
    assert reads(sent) == reads(RecordedCall(1, "c9", "echo", {"message": "hi"}, "hi", True))
    for other in (
        RecordedCall(0, "c1", "shout", {"message": "hi"}, "hi", True),  # another tool
        RecordedCall(0, "c1", "echo", {"message": "ho"}, "hi", True),  # other arguments
        RecordedCall(0, "c1", "echo", '{"message":"hi"}', "hi", True),  # the same, as raw text
        RecordedCall(0, "c1", "echo", {"message": "hi"}, "hi", False),  # failed
    ):
        assert reads(other) != reads(sent), other
    # The order of calls to one tool is read; across tools it reaches no check.
    shout = RecordedCall(0, "c2", "shout", {}, "", True)
    again = RecordedCall(0, "c3", "echo", {"message": "ho"}, "ho", True)
    assert reads(sent, shout) == reads(shout, sent)
    assert reads(sent, again) != reads(again, sent)
