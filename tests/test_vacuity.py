"""The vacuity check: a fixture that an empty run already satisfies is found and named.

Unit tests grade small fixtures through `zeroclaw_eval.vacuity`; the end-to-end tests
run `zeroclaw eval vacuity` through the installed console script.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.builders import line_of, write_fixture
from tests.invoke import run_cli
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.fixtures.admission import load_fixture
from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.grading.vacuity import (
    VacuousCase,
    check_vacuity as check_suite,
    empty_run_grades,
    find_vacuous,
)
from zeroclaw_eval.run.tools import BUILTIN_TOOLS

ECHO_STEPS = [
    {
        "response": {
            "type": "tool_calls",
            "input_tokens": 10,
            "output_tokens": 5,
            "tool_calls": [{"id": "c1", "name": "echo", "arguments": {"message": "hello"}}],
        }
    },
    {"response": {"type": "text", "content": "The echo said: hello"}},
]


def fixture(expects: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A one-turn fixture that echoes hello, with `expects` and any extra top-level keys."""
    return {
        "model_name": "vacuity-probe",
        **extra,
        "turns": [{"user_input": "Echo hello", "steps": ECHO_STEPS}],
        "expects": expects,
    }


def admit(tmp_path: Path, expects: dict[str, Any], name: str = "probe.json", **extra: Any) -> Case:
    path = write_fixture(tmp_path, name, fixture(expects, **extra))
    case = load_fixture(path, BUILTIN_TOOLS)
    assert isinstance(case, Case), case
    return case


SEEDED = {"setup": {"workspace_files": {"notes/seeded.txt": "seeded content"}}}

VACUOUS: dict[str, tuple[dict[str, Any], dict[str, Any], list[str]]] = {
    "lone max_tool_calls 0": ({"max_tool_calls": 0}, {}, ["max_tool_calls"]),
    "lone exact_tool_calls 0": ({"exact_tool_calls": 0}, {}, ["exact_tool_calls"]),
    "only negative checks": (
        {
            "response_not_contains": ["error"],
            "tools_not_used": ["file_write"],
            "workspace": {"file_absent": ["out.txt"]},
        },
        {},
        ["response_not_contains[0]", "tools_not_used[0]", "workspace.file_absent[0]"],
    ),
    "all_tools_succeeded true alone": ({"all_tools_succeeded": True}, {}, ["all_tools_succeeded"]),
    "file_absent alone": ({"workspace": {"file_absent": ["out.txt"]}}, {}, ["workspace.file_absent[0]"]),
    "budget caps only": (
        {
            "budget": {
                "max_input_tokens": 100,
                "max_output_tokens": 100,
                "max_total_tokens": 200,
                "max_duration_ms": 5000,
                "max_llm_calls": 2,
            }
        },
        {},
        [
            "budget.max_input_tokens",
            "budget.max_output_tokens",
            "budget.max_total_tokens",
            "budget.max_duration_ms",
            "budget.max_llm_calls",
        ],
    ),
    "regex that matches the empty response": ({"response_matches": ["^.*$"]}, {}, ["response_matches[0]"]),
    "file_exists on a seeded file": (
        {"workspace": {"file_exists": ["notes/seeded.txt", "notes"]}},
        SEEDED,
        ["workspace.file_exists[0]", "workspace.file_exists[1]"],
    ),
    "file_contains on seeded content": (
        {"workspace": {"file_contains": {"notes/seeded.txt": ["seeded"]}}},
        SEEDED,
        ['workspace.file_contains["notes/seeded.txt"][0]'],
    ),
}


@pytest.mark.parametrize(("expects", "extra", "check_ids"), VACUOUS.values(), ids=VACUOUS.keys())
def test_vacuous_fixture_is_found_with_every_check(
    tmp_path: Path, expects: dict[str, Any], extra: dict[str, Any], check_ids: list[str]
) -> None:
    found = find_vacuous(admit(tmp_path, expects, **extra))
    assert isinstance(found, VacuousCase)
    assert found.name == "probe.json"
    assert found.path == tmp_path / "probe.json"
    assert found.model_name == "vacuity-probe"
    assert found.check_ids == check_ids
    assert all(check.passed for check in found.checks)


POSITIVE: dict[str, dict[str, Any]] = {
    "tools_used": {"tools_used": ["echo"]},
    "min_tool_calls": {"min_tool_calls": 1},
    "exact_tool_calls": {"exact_tool_calls": 1},
    "tool_arguments_contain": {"tool_arguments_contain": [{"tool": "echo", "needle": "hello"}]},
    "tool_results_contain": {"tool_results_contain": [{"tool": "echo", "needle": "hello"}]},
    "all_tools_succeeded false": {"all_tools_succeeded": False},
    "response_contains": {"response_contains": ["hello"]},
    "response_matches": {"response_matches": ["\\w+"]},
    "response_json": {"response_json": {"/status": "ok"}},
    "file_exists on a file the agent makes": {"workspace": {"file_exists": ["out.txt"]}},
    "file_contains on a file the agent makes": {"workspace": {"file_contains": {"out.txt": ["hi"]}}},
    "one positive beside negative checks": {
        "max_tool_calls": 0,
        "tools_not_used": ["file_write"],
        "all_tools_succeeded": True,
        "response_contains": ["hello"],
    },
}


@pytest.mark.parametrize("expects", POSITIVE.values(), ids=POSITIVE.keys())
def test_a_check_an_empty_run_fails_makes_the_fixture_not_vacuous(
    tmp_path: Path, expects: dict[str, Any]
) -> None:
    assert find_vacuous(admit(tmp_path, expects)) is None


def test_setup_is_applied_and_nothing_else(tmp_path: Path) -> None:
    case = admit(
        tmp_path,
        {"workspace": {"file_absent": ["notes/seeded.txt"], "file_exists": ["notes/seeded.txt"]}},
        **SEEDED,
    )
    grades = {g.check_id: g.passed for g in empty_run_grades(case.trace)}
    assert grades == {"workspace.file_exists[0]": True, "workspace.file_absent[0]": False}


def test_the_empty_run_spends_nothing(tmp_path: Path) -> None:
    bounds = {key: 0 for key in ("max_input_tokens", "max_output_tokens", "max_total_tokens")}
    case = admit(tmp_path, {"budget": {**bounds, "max_duration_ms": 0, "max_llm_calls": 0}})
    assert [g.actual for g in empty_run_grades(case.trace)] == [0, 0, 0, 0, 0]


def test_the_empty_run_leaves_no_workspace_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = admit(tmp_path / "suite", {"workspace": {"file_exists": ["notes/seeded.txt"]}}, **SEEDED)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert find_vacuous(case) is not None
    assert list(scratch.iterdir()) == []


def test_vacuous_checks_point_at_their_fixture_field(tmp_path: Path) -> None:
    case = admit(tmp_path, {"response_not_contains": ["error"], "max_tool_calls": 3})
    found = find_vacuous(case)
    assert found is not None
    text = case.path.read_text(encoding="utf-8")
    lines = {check.check_id: check.field.line for check in found.checks}
    assert lines == {
        "response_not_contains[0]": line_of(text, '"error"'),
        "max_tool_calls": line_of(text, '"max_tool_calls"'),
    }


def test_check_suite_lists_vacuous_and_rejected_fixtures_apart(tmp_path: Path) -> None:
    admit(tmp_path, {"max_tool_calls": 0}, name="b_lone_cap.json")
    admit(tmp_path, {"tools_used": ["echo"]}, name="c_real.json")
    admit(tmp_path, {"all_tools_succeeded": True}, name="a_lone_success.json")
    write_fixture(tmp_path, "d_typo.json", fixture({"tool_used": ["echo"]}))
    report = check_suite(tmp_path)
    assert [case.name for case in report.vacuous] == ["a_lone_success.json", "b_lone_cap.json"]
    assert [fixture.name for fixture in report.rejected] == ["d_typo.json"]
    assert (report.checked, report.total) == (3, 4)
    assert report.exit_code() == 1


@pytest.mark.parametrize(
    ("fixtures", "code"),
    [
        ({"real.json": {"tools_used": ["echo"]}}, 0),
        ({"real.json": {"tools_used": ["echo"]}, "lone.json": {"max_tool_calls": 0}}, 1),
        ({"real.json": {"tools_used": ["echo"]}, "typo.json": {"tool_used": ["echo"]}}, 1),
        ({}, 1),
    ],
    ids=["all-can-fail", "one-vacuous", "one-rejected", "empty-suite"],
)
def test_check_suite_exit_code(tmp_path: Path, fixtures: dict[str, dict[str, Any]], code: int) -> None:
    for name, expects in fixtures.items():
        write_fixture(tmp_path, name, fixture(expects))
    assert check_suite(tmp_path).exit_code() == code


def test_check_suite_of_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="suite folder not found"):
        check_suite(tmp_path / "missing")


# End to end, through the installed `zeroclaw` script.


def test_cli_exits_zero_when_every_fixture_can_fail(tmp_path: Path) -> None:
    write_fixture(tmp_path / "suite", "real.json", fixture({"tools_used": ["echo"]}))
    result = run_cli("eval", "vacuity", "--suite", "suite", cwd=tmp_path)
    assert result.code == 0, result.stdout + result.stderr
    assert "PASSED: 1 fixture, each failing a check against an empty run" in result.stdout


def test_cli_names_each_vacuous_fixture_and_its_checks(tmp_path: Path) -> None:
    suite = tmp_path / "evals" / "regression"
    write_fixture(suite, "real.json", fixture({"tools_used": ["echo"]}))
    path = write_fixture(suite, "lone_cap.json", fixture({"max_tool_calls": 0}))
    write_fixture(
        suite, "negatives.json", fixture({"tools_not_used": ["file_write"], "all_tools_succeeded": True})
    )
    result = run_cli("eval", "vacuity", "--suite", "evals/regression", cwd=tmp_path)
    assert result.code == 1, result.stdout + result.stderr
    line = line_of(path.read_text(encoding="utf-8"), '"max_tool_calls"')
    assert (
        "✗ lone_cap.json  vacuity-probe  (vacuous: its one check passes against an empty run)"
        in result.stdout
    )
    assert f"max_tool_calls [tool]  evals/regression/lone_cap.json:{line}:" in result.stdout
    assert "expected at most 0 tool call(s); found 0 (none)" in result.stdout
    assert "✗ negatives.json" in result.stdout
    assert "tools_not_used[0] [tool]  evals/regression/negatives.json:" in result.stdout
    assert "all_tools_succeeded [tool]  evals/regression/negatives.json:" in result.stdout
    assert "real.json" not in result.stdout
    assert "FAILED: 2 vacuous, 0 rejected of 3 fixtures" in result.stdout


def test_cli_reports_a_rejected_fixture_with_its_problem(tmp_path: Path) -> None:
    write_fixture(tmp_path, "typo.json", fixture({"tool_used": ["echo"]}))
    result = run_cli("eval", "vacuity", "--suite", ".", cwd=tmp_path)
    assert result.code == 1
    assert "✗ typo.json  (rejected)" in result.stdout
    assert "typo.json:" in result.stdout
    assert "/expects/tool_used: unknown expectation key; did you mean tools_used?" in result.stdout
    assert "FAILED: 0 vacuous, 1 rejected of 1 fixture" in result.stdout


def test_cli_fails_an_empty_suite(tmp_path: Path) -> None:
    result = run_cli("eval", "vacuity", "--suite", str(tmp_path))
    assert result.code == 1
    assert "no fixtures found" in result.stdout


def test_cli_reads_the_default_suite_from_the_config(tmp_path: Path) -> None:
    (tmp_path / "zeroclaw.toml").write_text('[eval]\nsuite_dir = "cases"\n', encoding="utf-8")
    write_fixture(tmp_path / "cases", "lone_cap.json", fixture({"max_tool_calls": 0}))
    result = run_cli("eval", "vacuity", cwd=tmp_path)
    assert result.code == 1
    assert "zeroclaw eval vacuity: cases (1 fixture)" in result.stdout
    assert "cases/lone_cap.json:" in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--suite", "no/such/folder"], "Error: suite folder not found: no/such/folder"),
        (["--config", "missing.toml"], "Error: config file not found"),
        (["--format", "json"], "No such option"),
    ],
    ids=["missing-suite", "missing-config", "unknown-option"],
)
def test_cli_usage_errors_exit_two(tmp_path: Path, args: list[str], words: str) -> None:
    result = run_cli("eval", "vacuity", *args, cwd=tmp_path)
    assert result.code == 2
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_bad_config_setting_exits_two(tmp_path: Path) -> None:
    (tmp_path / "zeroclaw.toml").write_text('[eval]\nsuite_dri = "cases"\n', encoding="utf-8")
    result = run_cli("eval", "vacuity", cwd=tmp_path)
    assert result.code == 2
    assert "unknown setting; did you mean suite_dir?" in result.stderr


def test_cli_help_explains_the_empty_run() -> None:
    result = run_cli("eval", "vacuity", "--help")
    assert result.code == 0
    assert "grading it against an empty run" in result.stdout
    assert "--suite" in result.stdout
    assert "Exit codes" in result.stdout
