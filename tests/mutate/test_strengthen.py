"""`zeroclaw_eval.mutate.strengthen`: a new fixture gets the checks that kill every mutant
it would let survive, each proven on its own run, and stays a passing case."""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import admit_case, run_replay
from zeroclaw_eval.cases.scaffold import ScaffoldSpec, scaffold_fixture
from zeroclaw_eval.grading.vacuity import find_vacuous
from zeroclaw_eval.mutate.engine import mutate_case
from zeroclaw_eval.mutate.strengthen import strengthen
from zeroclaw_eval.runner import RunOptions
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS

SPECS = {
    "text": ScaffoldSpec("greet"),
    "echo": ScaffoldSpec("echo_hi", tool="echo", arguments='{"message": "hi"}'),
    "echo-no-args": ScaffoldSpec("echo_bare", tool="echo"),
    "file-write": ScaffoldSpec("save", tool="file_write", arguments='{"path": "a.txt", "content": "x"}'),
    "sentences": ScaffoldSpec("chat", answer="Hello there. It is 12 o'clock.", needles=("Hello",)),
}


@pytest.mark.parametrize("spec", SPECS.values(), ids=SPECS.keys())
def test_a_strengthened_scaffold_kills_every_mutant_and_still_passes_and_can_fail(
    tmp_path: Path, spec: ScaffoldSpec
) -> None:
    scaffold = scaffold_fixture(spec)
    before = asyncio.run(mutate_case(admit_case(tmp_path, scaffold, "before.json")))
    assert before.survivors  # what the scaffold alone lets through

    data, mutation = asyncio.run(strengthen(copy.deepcopy(scaffold), tmp_path / "case.json", RunOptions()))
    assert mutation.problem is None
    assert mutation.outcomes
    assert not mutation.survivors, [o.name for o in mutation.survivors]
    case = admit_case(tmp_path, data)
    assert run_replay(case).status == "passed"
    assert find_vacuous(case) is None
    # What the scaffold checked is still checked: checks are only added.
    for key, value in scaffold["expects"].items():
        kept = data["expects"][key]
        assert (kept[: len(value)] if isinstance(value, list) else kept) == value


def test_the_checks_come_from_the_run(tmp_path: Path) -> None:
    # What echo answers and what file_write leaves are the tools' business: the run shows them.
    data, _ = asyncio.run(
        strengthen(scaffold_fixture(SPECS["file-write"]), tmp_path / "case.json", RunOptions())
    )
    expects: dict[str, Any] = data["expects"]
    assert expects["tool_results_contain"] == [
        {"tool": "file_write", "needle": "wrote 1 characters to a.txt", "call_index": 0}
    ]
    assert expects["workspace"] == {"file_exists": ["a.txt"], "file_contains": {"a.txt": ["x"]}}
    assert expects["budget"] == {"max_llm_calls": 2}


def test_a_fixture_that_is_not_admitted_is_refused(tmp_path: Path) -> None:
    data = scaffold_fixture(ScaffoldSpec("shell", tool="shell"))
    with pytest.raises(ValueError, match="not admitted: /tools/0: unknown tool 'shell'"):
        asyncio.run(strengthen(data, tmp_path / "case.json", RunOptions()))
    assert "shell" not in BUILTIN_TOOLS
