"""`zeroclaw eval check` (`zeroclaw_eval.cli.commands.check`): admission only, a `path:line:col:` line
per problem, and the exit codes 0, 1 and 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.builders import PASSING, TYPO_FIXTURE, echo_fixture, line_col, write_fixture
from tests.support.invoke import Runner


def test_admitted_fixtures_exit_zero(cli: Runner, tmp_path: Path) -> None:
    write_fixture(tmp_path / "suite", "a.json", PASSING)
    write_fixture(tmp_path / "suite", "b.json", PASSING)
    result = cli("eval", "check", "suite", cwd=tmp_path)
    assert result.code == 0, result.stdout + result.stderr
    assert result.stdout == "PASSED: 2 fixtures admitted\n"


def test_each_problem_is_one_line_at_its_field(cli: Runner, tmp_path: Path) -> None:
    write_fixture(tmp_path / "suite", "good.json", PASSING)
    write_fixture(tmp_path / "suite", "typo.json", TYPO_FIXTURE)
    line, col = line_col(TYPO_FIXTURE, '"tool_used"')
    result = cli("eval", "check", "suite/typo.json", "suite/good.json", cwd=tmp_path)
    assert result.code == 1
    assert result.stdout.splitlines() == [
        f"suite/typo.json:{line}:{col}: /expects/tool_used: unknown expectation key;"
        " did you mean tools_used?",
        "FAILED: 1 of 2 fixtures rejected (1 problem)",
    ]


def test_every_problem_of_every_fixture_is_reported(cli: Runner, tmp_path: Path) -> None:
    write_fixture(tmp_path, "one.json", TYPO_FIXTURE)
    write_fixture(tmp_path, "two.json", echo_fixture({"min_tool_calls": 0, "tools_used": [""]}))
    write_fixture(tmp_path, "three.json", b"{not json")
    result = cli("eval", "check", "one.json", "two.json", "three.json", cwd=tmp_path)
    assert result.code == 1
    lines = result.stdout.splitlines()
    assert [line.split(":", 1)[0] for line in lines[:-1]] == [
        "one.json",
        "two.json",
        "two.json",
        "three.json",
    ]
    assert "/expects/min_tool_calls: min_tool_calls: 0 is vacuous" in result.stdout
    assert "/expects/tools_used/0: zero-length entry" in result.stdout
    assert "three.json:1:2: invalid JSON" in result.stdout
    assert lines[-1] == "FAILED: 3 of 3 fixtures rejected (4 problems)"


def test_without_paths_the_configured_suite_is_checked(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "zeroclaw.toml").write_text('[eval]\nsuite_dir = "cases"\n', encoding="utf-8")
    write_fixture(tmp_path / "cases", "typo.json", TYPO_FIXTURE)
    result = cli("eval", "check", cwd=tmp_path)
    assert result.code == 1
    assert result.stdout.startswith("cases/typo.json:")


def test_a_file_named_twice_is_checked_once(cli: Runner, tmp_path: Path) -> None:
    write_fixture(tmp_path / "suite", "a.json", PASSING)
    result = cli("eval", "check", "suite", "suite/a.json", cwd=tmp_path)
    assert result.stdout == "PASSED: 1 fixture admitted\n"


def test_nothing_runs_so_a_vacuous_fixture_is_admitted(cli: Runner, tmp_path: Path) -> None:
    # Whether a case can fail is `zeroclaw eval vacuity`; check is admission only.
    write_fixture(tmp_path, "cap.json", echo_fixture({"max_tool_calls": 0}))
    assert cli("eval", "check", "cap.json", cwd=tmp_path).code == 0
    assert cli("eval", "vacuity", "--suite", ".", cwd=tmp_path).code == 1


def test_tools_are_checked_against_the_known_ones_unless_an_agent_command_runs_its_own(
    cli: Runner, tmp_path: Path
) -> None:
    write_fixture(tmp_path, "own.json", {**PASSING, "tools": ["get_weather"]})
    result = cli("eval", "check", "own.json", cwd=tmp_path)
    assert result.code == 1
    assert "/tools/0: unknown tool 'get_weather'" in result.stdout
    assert cli("eval", "check", "own.json", "--agent-cmd", "node agent.mjs", cwd=tmp_path).code == 0


def test_an_empty_folder_fails_and_points_at_nested_suites(cli: Runner, tmp_path: Path) -> None:
    write_fixture(tmp_path / "evals" / "regression", "a.json", PASSING)
    result = cli("eval", "check", "evals", cwd=tmp_path)
    assert result.code == 1
    assert result.stdout.splitlines() == [
        "FAILED: no fixtures found in evals (a gate that ran nothing certifies nothing)",
        "a suite is one folder, not searched recursively: regression/ under evals hold fixtures;"
        " name one of them",
    ]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["missing.json"], "Error: no such fixture file or suite folder: missing.json"),
        (["notes.txt"], "Error: notes.txt is not a fixture: fixtures are .json files"),
        ([], "Error: no such fixture file or suite folder: "),
        (["--config", "missing.toml", "."], "Error: config file not found"),
        (["--format", "json"], "No such option"),
    ],
    ids=["missing-file", "not-json", "no-default-suite", "missing-config", "unknown-option"],
)
def test_usage_errors_exit_two(cli: Runner, tmp_path: Path, args: list[str], words: str) -> None:
    (tmp_path / "notes.txt").write_text("not a fixture", encoding="utf-8")
    result = cli("eval", "check", *args, cwd=tmp_path)
    assert result.code == 2
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_help_teaches_with_examples_and_names_vacuity(cli: Runner) -> None:
    result = cli("eval", "check", "--help")
    assert result.code == 0
    assert "zeroclaw eval check evals/regression/echo_single_dispatch_round_trip.json" in result.stdout
    assert "path:line:col: /json/pointer: message" in result.stdout
    assert "zeroclaw eval vacuity" in result.stdout


def test_a_forged_file_name_or_model_name_stays_on_its_line(cli: Runner, tmp_path: Path) -> None:
    forged = {**PASSING, "model_name": "x\n::error::forged", "expects": {"tool_used": ["echo"]}}
    write_fixture(tmp_path / "suite", "a\n::error::named.json", forged)
    for command in (("check", "suite"), ("list", "suite")):
        result = cli("eval", *command, cwd=tmp_path)
        assert result.code == 1, command
        assert not [row for row in result.stdout.splitlines() if row.startswith("::")], result.stdout
        assert "a\\n::error::named.json" in result.stdout
