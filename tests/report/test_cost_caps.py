"""Bounds on what a live run spends: a case's `budget.max_cost_usd` (graded in a priced
live run only) and the suite's `--max-cost` (no case starts once it is reached, and the
gate fails), against a loopback chat model that reports its usage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import PASSING as PASSING_REPLAY, write_fixture
from tests.support.chat_model import chat_model
from tests.support.invoke import Runner

#: 1,000,000 input tokens at $2.50 and 100,000 output at $10: $3.50 a reply.
USAGE = {"prompt_tokens": 1_000_000, "completion_tokens": 100_000}
ENV = {"CAP_KEY": "sk-test"}


def _project(
    folder: Path, url: str, cases: int = 1, budget: dict[str, Any] | None = None, prices: bool = True
) -> None:
    for number in range(cases):
        expects: dict[str, Any] = {"response_contains": ["hi"]}
        if budget is not None:
            expects["budget"] = budget
        fixture = {"model_name": f"hi-{number}", "turns": [{"user_input": "Say hi"}], "expects": expects}
        write_fixture(folder / "suite", f"hi_{number}.json", fixture)
    priced = "[providers.models.main.prices]\ninput = 2.5\noutput = 10.0\n" if prices else ""
    (folder / "zeroclaw.toml").write_text(
        '[eval]\nmode = "live"\nlive_provider = "main"\nsuite_dir = "suite"\n'
        f'[providers.models.main]\nbase_url = "{url}"\nmodel = "m"\napi_key_env = "CAP_KEY"\n{priced}',
        encoding="utf-8",
    )


def _cost_grade(result: Any) -> dict[str, Any] | None:
    (case,) = result.json()["cases"]
    found = [g for g in case.get("grades", []) if g["check_id"] == "budget.max_cost_usd"]
    return found[0] if found else None


def test_a_case_that_costs_more_than_its_bound_fails_it(cli: Runner, tmp_path: Path) -> None:
    with chat_model(lambda _: ("hi", USAGE)) as url:
        _project(tmp_path, url, budget={"max_cost_usd": 3.0})
        over = cli("eval", "run", "--format", "json", cwd=tmp_path, env=ENV)
        assert over.code == 1, over.stdout + over.stderr
        grade = _cost_grade(over)
        assert grade is not None
        assert grade["passed"] is False
        assert grade["detail"] == "expected at most $3; cost $3.500000"
        assert (grade["expected"], grade["actual"]) == (3.0, 3.5)
        assert grade["field"]["pointer"] == "/expects/budget/max_cost_usd"
        assert grade["field"]["line"] is not None  # it points at the bound in the fixture
        _project(tmp_path, url, budget={"max_cost_usd": 3.5})  # inclusive
        assert cli("eval", "run", cwd=tmp_path, env=ENV).code == 0


def test_a_case_whose_cost_is_unknown_fails_its_bound(cli: Runner, tmp_path: Path) -> None:
    with chat_model(lambda _: ("hi", None)) as url:  # a reply that says no usage
        _project(tmp_path, url, budget={"max_cost_usd": 100.0})
        result = cli("eval", "run", "--format", "json", cwd=tmp_path, env=ENV)
    assert result.code == 1
    grade = _cost_grade(result)
    assert grade is not None
    assert "the cost is unknown" in grade["detail"]
    assert (grade["expected"], grade["actual"]) == (100.0, None)
    assert grade["field"]["pointer"] == "/expects/budget/max_cost_usd"


def test_the_bound_is_not_graded_where_nothing_is_billed(cli: Runner, tmp_path: Path) -> None:
    # An unpriced live run and a replay bill nothing: the bound certifies nothing there.
    with chat_model(lambda _: ("hi", USAGE)) as url:
        _project(tmp_path, url, budget={"max_cost_usd": 0.0}, prices=False)
        result = cli("eval", "run", "--format", "json", "--details", "all", cwd=tmp_path, env=ENV)
    assert result.code == 0, result.stdout
    assert _cost_grade(result) is None
    write_fixture(
        tmp_path / "replayed",
        "hi.json",
        {**PASSING_REPLAY, "expects": {**PASSING_REPLAY["expects"], "budget": {"max_cost_usd": 0.0}}},
    )
    replayed = cli(
        "eval", "run", "replayed", "--mode", "replay", "--format", "json", "--details", "all", cwd=tmp_path
    )
    assert replayed.code == 0, replayed.stdout
    assert _cost_grade(replayed) is None


def test_max_cost_stops_starting_cases_once_reached_and_fails_the_gate(cli: Runner, tmp_path: Path) -> None:
    with chat_model(lambda _: ("hi", USAGE)) as url:
        _project(tmp_path, url, cases=3)
        stopped = cli("eval", "run", "--max-cost", "5", "--report", "json=eval.json", cwd=tmp_path, env=ENV)
        assert stopped.code == 1, stopped.stdout + stopped.stderr
        # $3.50 spent after the first case, under $5: the second starts; $7 after it: no third.
        assert "2 cases (2 passed, 0 failed, 1 not run (--max-cost reached))" in stopped.stdout
        assert "FAILED: spent $7.0000, above --max-cost $5; 1 case(s) not started" in stopped.stdout
        data = json.loads((tmp_path / "eval.json").read_text(encoding="utf-8"))
        assert data["max_cost_usd"] == 5
        assert data["exit_code"] == 1
        rendered = cli("eval", "render", "eval.json", cwd=tmp_path)  # the bound is kept in the report
        assert rendered.code == 0  # render draws a report; it gates nothing
        assert "above --max-cost $5" in rendered.stdout
        enough = cli("eval", "run", "--max-cost", "10.5", cwd=tmp_path, env=ENV)
        assert enough.code == 0, enough.stdout


@pytest.mark.parametrize(
    ("args", "prices", "said"),
    [
        (("--max-cost", "5", "--mode", "replay"), True, "a replay spends nothing"),
        (("--max-cost", "5"), False, "--max-cost needs the live provider's prices"),
        (("--max-cost", "-1"), True, "--max-cost -1: an amount in US dollars, 0 or more"),
    ],
)
def test_a_max_cost_no_run_can_keep_is_a_usage_error(
    cli: Runner, tmp_path: Path, args: tuple[str, ...], prices: bool, said: str
) -> None:
    with chat_model(lambda _: ("hi", USAGE)) as url:
        _project(tmp_path, url, prices=prices)
        result = cli("eval", "run", *args, cwd=tmp_path, env=ENV)
    assert result.code == 2
    assert said in result.stderr
