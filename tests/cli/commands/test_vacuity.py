"""`zeroclaw eval vacuity` (`cli/commands/vacuity.py`): the verdict, its text and its exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.builders import echo_fixture, line_of, write_fixture
from tests.support.invoke import invoke


def test_cli_exits_zero_when_every_fixture_can_fail(tmp_path: Path) -> None:
    write_fixture(tmp_path / "suite", "real.json", echo_fixture({"tools_used": ["echo"]}))
    result = invoke("eval", "vacuity", "--suite", "suite", cwd=tmp_path)
    assert result.code == 0, result.stdout + result.stderr
    assert "PASSED: 1 fixture, each failing a check against an empty run" in result.stdout


def test_cli_names_each_vacuous_fixture_and_its_checks(tmp_path: Path) -> None:
    suite = tmp_path / "evals" / "regression"
    write_fixture(suite, "real.json", echo_fixture({"tools_used": ["echo"]}))
    path = write_fixture(suite, "lone_cap.json", echo_fixture({"max_tool_calls": 0}))
    write_fixture(
        suite, "negatives.json", echo_fixture({"tools_not_used": ["file_write"], "all_tools_succeeded": True})
    )
    result = invoke("eval", "vacuity", "--suite", "evals/regression", cwd=tmp_path)
    assert result.code == 1, result.stdout + result.stderr
    line = line_of(path.read_text(encoding="utf-8"), '"max_tool_calls"')
    assert (
        "✗ lone_cap.json  echo-hello  (vacuous: its one check passes against an empty run)" in result.stdout
    )
    assert f"max_tool_calls [tool]  evals/regression/lone_cap.json:{line}:" in result.stdout
    assert "expected at most 0 tool call(s); found 0 (none)" in result.stdout
    assert "✗ negatives.json" in result.stdout
    assert "tools_not_used[0] [tool]  evals/regression/negatives.json:" in result.stdout
    assert "all_tools_succeeded [tool]  evals/regression/negatives.json:" in result.stdout
    assert "real.json" not in result.stdout
    assert "FAILED: 2 vacuous, 0 rejected of 3 fixtures" in result.stdout


def test_cli_takes_fixture_files_and_folders_as_run_does(tmp_path: Path) -> None:
    suite = tmp_path / "evals" / "regression"
    write_fixture(suite, "real.json", echo_fixture({"tools_used": ["echo"]}))
    write_fixture(suite, "lone_cap.json", echo_fixture({"max_tool_calls": 0}))
    write_fixture(tmp_path / "smoke", "also_real.json", echo_fixture({"tools_used": ["echo"]}))
    one = invoke("eval", "vacuity", "evals/regression/real.json", "smoke", cwd=tmp_path)
    assert one.code == 0, one.stdout + one.stderr
    assert "zeroclaw eval vacuity: evals/regression/real.json smoke (2 fixtures)" in one.stdout
    both = invoke("eval", "vacuity", "evals/regression", cwd=tmp_path)
    assert both.code == 1
    assert "✗ lone_cap.json" in both.stdout
    clash = invoke("eval", "vacuity", "smoke", "--suite", "evals/regression", cwd=tmp_path)
    assert clash.code == 2
    assert "give fixture paths or --suite, not both" in clash.stderr


def test_cli_reports_a_rejected_fixture_with_its_problem(tmp_path: Path) -> None:
    write_fixture(tmp_path, "typo.json", echo_fixture({"tool_used": ["echo"]}))
    result = invoke("eval", "vacuity", "--suite", ".", cwd=tmp_path)
    assert result.code == 1
    assert "✗ typo.json  (rejected)" in result.stdout
    assert "typo.json:" in result.stdout
    assert "/expects/tool_used: unknown expectation key; did you mean tools_used?" in result.stdout
    assert "FAILED: 0 vacuous, 1 rejected of 1 fixture" in result.stdout


def test_cli_fails_an_empty_suite(tmp_path: Path) -> None:
    result = invoke("eval", "vacuity", "--suite", str(tmp_path))
    assert result.code == 1
    assert "no fixtures found" in result.stdout


def test_cli_reads_the_default_suite_from_the_config(tmp_path: Path) -> None:
    (tmp_path / "zeroclaw.toml").write_text('[eval]\nsuite_dir = "cases"\n', encoding="utf-8")
    write_fixture(tmp_path / "cases", "lone_cap.json", echo_fixture({"max_tool_calls": 0}))
    result = invoke("eval", "vacuity", cwd=tmp_path)
    assert result.code == 1
    assert "zeroclaw eval vacuity: cases (1 fixture)" in result.stdout
    assert "cases/lone_cap.json:" in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--suite", "no/such/folder"], "Error: no such fixture file or suite folder: no/such/folder"),
        (["--config", "missing.toml"], "Error: config file not found"),
        (["--format", "json"], "No such option"),
    ],
    ids=["missing-suite", "missing-config", "unknown-option"],
)
def test_cli_usage_errors_exit_two(tmp_path: Path, args: list[str], words: str) -> None:
    result = invoke("eval", "vacuity", *args, cwd=tmp_path)
    assert result.code == 2
    assert words in result.stderr


def test_cli_bad_config_setting_exits_two(tmp_path: Path) -> None:
    (tmp_path / "zeroclaw.toml").write_text('[eval]\nsuite_dri = "cases"\n', encoding="utf-8")
    result = invoke("eval", "vacuity", cwd=tmp_path)
    assert result.code == 2
    assert "unknown setting; did you mean suite_dir?" in result.stderr


def test_cli_help_explains_the_empty_run() -> None:
    result = invoke("eval", "vacuity", "--help")
    assert result.code == 0
    assert "grading it against an empty run" in result.stdout
    assert "--suite" in result.stdout
    assert "Exit codes" in result.stdout


HOSTILE_NAME = "m\x1b]0;t\x07\n::add-mask::zeroclaw_user\n::error file=x.py::FORGED ##[error]y"


def test_hostile_fixture_text_is_shown_not_obeyed(tmp_path: Path) -> None:
    write_fixture(tmp_path, "lone_cap.json", echo_fixture({"max_tool_calls": 0}, model_name=HOSTILE_NAME))
    result = invoke("eval", "vacuity", "--suite", ".", cwd=tmp_path)
    assert result.code == 1
    assert "\x1b" not in result.stdout
    assert "\x07" not in result.stdout
    assert "m\\x1b]0;t\\x07\\n::add-mask::zeroclaw_user\\n::error file=x.py::FORGED" in result.stdout
    assert result.stderr == ""  # no annotations outside GitHub Actions


def test_under_github_actions_it_is_protected_annotated_and_summarised(tmp_path: Path) -> None:
    from tests.support.ci_log import annotations, executed_commands

    path = write_fixture(
        tmp_path, "lone_cap.json", echo_fixture({"max_tool_calls": 0}, model_name=HOSTILE_NAME)
    )
    write_fixture(tmp_path, "x\n::error::F.json", echo_fixture({"tools_not_used": ["file_write"]}))
    summary = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_WORKSPACE": str(tmp_path)}
    result = invoke("eval", "vacuity", "--suite", ".", cwd=tmp_path, env=env)
    assert result.code == 1
    assert [c.name for c in executed_commands(result.stdout)] == ["stop-commands"]
    found = annotations(result.stderr)
    assert len(found) == len(executed_commands(result.stderr)) == 2
    line = line_of(path.read_text(encoding="utf-8"), '"max_tool_calls"')
    cap = next(a for a in found if a.properties["file"] == "lone_cap.json")
    assert cap.properties["line"] == str(line)
    assert cap.properties["title"] == "lone_cap.json: max_tool_calls is vacuous"
    assert cap.message.startswith("passes against an empty run: expected at most 0 tool call(s)")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## zeroclaw eval vacuity FAILED: `.`")
    assert f"| `lone_cap.json` | `max_tool_calls` | `lone_cap.json:{line}` |" in text
    assert "`x ::error::F.json`" in text


def test_annotations_can_be_turned_off(tmp_path: Path) -> None:
    write_fixture(tmp_path, "lone_cap.json", echo_fixture({"max_tool_calls": 0}))
    summary = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    result = invoke("eval", "vacuity", "--suite", ".", "--no-annotations", cwd=tmp_path, env=env)
    assert result.code == 1
    assert result.stderr == ""
    assert not summary.exists()
