"""`zeroclaw eval mutate` (`zeroclaw_eval.cli.commands.mutate`): the verdict as text, JSON and
GitHub annotations, and its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.builders import (
    HOSTILE_ANSWER,
    echo_fixture,
    line_of,
    scripted_fixture,
    text_step,
    write_fixture,
)
from tests.support.invoke import invoke, run_cli


def test_survivors_are_listed_with_a_check_that_kills_them(tmp_path: Path) -> None:
    write_fixture(tmp_path / "suite", "weak.json", echo_fixture({"tools_used": ["echo"]}))
    result = invoke("eval", "mutate", "--suite", "suite", cwd=tmp_path)
    assert result.code == 1, result.stdout + result.stderr
    out = result.stdout
    assert "✗ weak.json  " in out
    assert 'survived alter_argument[turn 1, call 0, /message]: "hello" -> "hellx"' in out
    assert (
        'kill it: add {"tool": "echo", "needle": "hello", "call_index": 0} to "tool_arguments_contain"' in out
    )
    assert "weak.json: no mutant killed by operator" in out
    assert "mutation score " in out


def test_min_score_gates_on_the_score(tmp_path: Path) -> None:
    write_fixture(tmp_path / "suite", "weak.json", echo_fixture({"tools_used": ["echo"]}))
    assert invoke("eval", "mutate", "suite", "--min-score", "1", cwd=tmp_path).code == 0
    assert invoke("eval", "mutate", "suite", "--min-score", "100", cwd=tmp_path).code == 1
    wrong = invoke("eval", "mutate", "suite", "--min-score", "101", cwd=tmp_path)
    assert wrong.code == 2
    assert "101" in wrong.stderr


def test_json_lists_every_mutant_with_its_fate(tmp_path: Path) -> None:
    write_fixture(tmp_path / "suite", "weak.json", echo_fixture({"tools_used": ["echo"]}))
    result = invoke("eval", "mutate", "suite", "--format", "json", cwd=tmp_path)
    document = result.json()
    assert document["format_version"] == 1
    assert document["passed"] is False
    (case,) = document["fixtures"]
    assert case["path"] == "suite/weak.json"
    assert case["total"] == len(case["mutants"])
    assert case["killed"] < case["total"]
    survivor = next(m for m in case["mutants"] if m["name"] == "alter_argument[turn 1, call 0, /message]")
    assert survivor["killed"] is False
    assert survivor["suggested_check"] == {
        "tool_arguments_contain": [{"tool": "echo", "needle": "hello", "call_index": 0}]
    }
    killed = next(m for m in case["mutants"] if m["name"] == "drop_call[turn 1, call 0]")
    assert killed["killed_by"] == ["tools_used[0]"]
    assert document["score"] == 100 * case["killed"] / case["total"]


def test_output_writes_the_verdict_to_a_file_and_the_table_to_stdout(tmp_path: Path) -> None:
    write_fixture(tmp_path / "suite", "weak.json", echo_fixture({"tools_used": ["echo"]}))
    result = invoke("eval", "mutate", "suite", "--format", "json", "-o", "out/m.json", cwd=tmp_path)
    assert result.code == 1
    assert json.loads((tmp_path / "out" / "m.json").read_text(encoding="utf-8"))["fixtures"]
    assert "mutation score" in result.stdout


def test_under_github_actions_survivors_are_annotated_at_expects(tmp_path: Path) -> None:
    path = write_fixture(tmp_path / "suite", "weak.json", echo_fixture({"tools_used": ["echo"]}))
    result = invoke("eval", "mutate", "suite", cwd=tmp_path, env={"GITHUB_ACTIONS": "true"})
    line = line_of(path.read_text(encoding="utf-8"), '"expects"')
    warnings = [row for row in result.stderr.splitlines() if row.startswith("::warning ")]
    assert warnings
    assert all(
        row.startswith(f"::warning file=suite/weak.json,line={line},endLine={line},col=") for row in warnings
    )
    # Property values escape `,` and `:` as the runner requires.
    assert any("surviving mutant alter_argument[turn 1%2C call 0%2C /message]" in row for row in warnings)
    errors = [row for row in result.stderr.splitlines() if row.startswith("::error ")]
    assert errors
    assert "no mutant killed by operator" in errors[0]


def test_hostile_fixture_text_never_starts_a_workflow_command(tmp_path: Path) -> None:
    fixture = scripted_fixture([("hi", [text_step(HOSTILE_ANSWER)])], {"response_contains": ["::error"]})
    write_fixture(tmp_path / "suite", "x\n::error::forged.json", fixture)
    result = invoke("eval", "mutate", "suite", cwd=tmp_path, env={"GITHUB_ACTIONS": "true"})
    for row in (result.stdout + result.stderr).splitlines():
        assert not row.startswith("::") or row.startswith(("::warning file=", "::error file=")), row
        assert not row.lstrip().startswith("##["), row


def test_the_shipped_regression_suite_kills_every_mutant() -> None:
    """Through the installed console script: the suite meets the per-operator rule."""
    result = run_cli("eval", "mutate", "--format", "json", cwd=Path(__file__).resolve().parents[3])
    document = json.loads(result.stdout)
    assert result.code == 0, document["failures"]
    assert document["score"] >= 90
    survivors = [m["name"] for f in document["fixtures"] for m in f["mutants"] if not m["killed"]]
    assert survivors == []
