"""`zeroclaw eval run` (`zeroclaw_eval.cli.commands.run`): exit codes, output files, configuration, help."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.support.builders import FAILING, PASSING, write_fixture
from tests.support.invoke import Runner
from zeroclaw_eval.report.codec import FORMAT_VERSION


def test_failing_check_exits_one_and_shows_expected_and_found(cli: Runner, project: Path) -> None:
    path = write_fixture(project / "evals" / "regression", "wrong.json", FAILING)
    result = cli("eval", "run", cwd=project)
    assert result.code == 1
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if '"goodbye"' in text)
    assert f"evals/regression/wrong.json:{line}:" in result.stdout
    assert 'expected the final response to contain "goodbye"; found "hello"' in result.stdout


def test_empty_suite_fails(cli: Runner, tmp_path: Path) -> None:
    result = cli("eval", "run", "--suite", str(tmp_path))
    assert result.code == 1
    assert "no fixtures found" in result.stdout


def test_suite_loading_is_not_recursive(cli: Runner, tmp_path: Path) -> None:
    write_fixture(tmp_path / "nested", "deep.json", FAILING)
    write_fixture(tmp_path, "top.json", PASSING)
    result = cli("eval", "run", "--suite", str(tmp_path), "--format", "json")
    assert [c["name"] for c in result.json()["cases"]] == ["top.json"]
    assert result.code == 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--suite", "no/such/folder"], "no such fixture file or suite folder: no/such/folder"),
        (["--mode", "live"], "[eval].live_provider is empty, so live mode is off"),
        (["--format", "yaml"], "unknown report format 'yaml'; choose from: table, json"),
        (["--config", "missing.toml"], "config file not found"),
        (["--bogus"], "No such option"),
    ],
)
def test_usage_errors_exit_two_without_traceback(
    cli: Runner, project: Path, args: list[str], words: str
) -> None:
    result = cli("eval", "run", *args, cwd=project)
    assert result.code == 2
    assert words in result.stderr


def test_output_file_is_written_and_announced(cli: Runner, project: Path) -> None:
    result = cli("eval", "run", "--format", "json", "--output", "reports/eval.json", cwd=project)
    assert result.code == 0
    assert result.stdout == ""
    written = project / "reports" / "eval.json"
    assert "Wrote json to reports/eval.json" in result.stderr
    data = json.loads(written.read_text(encoding="utf-8"))
    assert data["format_version"] == FORMAT_VERSION
    assert data["counts"] == {
        "passed": 1,
        "failed": 0,
        "error": 0,
        "rejected": 0,
        "xfailed": 0,
        "xpassed": 0,
        "total": 1,
    }
    assert [p.name for p in written.parent.iterdir()] == ["eval.json"]  # no temp file left
    umask = os.umask(0)
    os.umask(umask)
    assert written.stat().st_mode & 0o777 == 0o666 & ~umask  # not the temp file's private 0600


def test_zeroclaw_toml_sets_the_suite_and_flags_override_it(cli: Runner, project: Path) -> None:
    write_fixture(project / "other", "wrong.json", FAILING)
    (project / "zeroclaw.toml").write_text('[eval]\nsuite_dir = "other"\n', encoding="utf-8")
    assert cli("eval", "run", cwd=project).code == 1
    assert cli("eval", "run", "--suite", "evals/regression", cwd=project).code == 0


def test_pyproject_table_is_read(cli: Runner, project: Path) -> None:
    write_fixture(project / "other", "wrong.json", FAILING)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.zeroclaw.eval]\nsuite_dir = "other"\n', encoding="utf-8"
    )
    result = cli("eval", "run", "--format", "json", cwd=project)
    assert result.json()["suite"] == "other"


@pytest.mark.parametrize(
    ("toml", "words"),
    [
        ('[eval]\nsuite_dirs = "x"\n', "suite_dirs: unknown setting; did you mean suite_dir?"),
        ("[eval]\ncase_timeout_secs = -1\n", "case_timeout_secs"),
        ('[eval]\nmode = "fast"\n', "mode"),
        ("[eval\n", "invalid TOML"),
        ('[eval]\nagent = "no_such_module_zc:factory"\n', "cannot import module 'no_such_module_zc'"),
        ('[eval]\nagent = "json"\n', "not of the form 'module:callable'"),
    ],
)
def test_bad_configuration_exits_two_naming_the_setting(
    cli: Runner, project: Path, toml: str, words: str
) -> None:
    (project / "zeroclaw.toml").write_text(toml, encoding="utf-8")
    result = cli("eval", "run", cwd=project)
    assert result.code == 2, result.stdout
    assert words in result.stderr
    assert "zeroclaw.toml" in result.stderr or "agent" in result.stderr


def test_no_colour_when_not_a_tty(cli: Runner, project: Path) -> None:
    assert "\x1b[" not in cli("eval", "run", cwd=project).stdout


def test_help_teaches_the_exit_codes(cli: Runner) -> None:
    result = cli("eval", "run", "--help")
    assert result.code == 0
    for words in ("--suite", "--mode", "--format", "--output", "--config", "Exit codes"):
        assert words in result.stdout
    assert cli("--version").stdout.startswith("zeroclaw-eval, version ")


def test_repository_default_suite_passes(cli: Runner) -> None:
    """`zeroclaw eval run` in the repository root: the project's own gate is green."""
    root = Path(__file__).resolve().parents[3]
    result = cli("eval", "run", cwd=root)
    assert result.code == 0, result.stdout
    assert "PASSED:" in result.stdout


AGENTS = """
def helper(data):
    return data["missing"]


class Broken:
    def __init__(self, context):
        self.context = context

    async def run_turn(self, user_input):
        return helper({})


def make(context):
    return Broken(context)


def bad_factory(context):
    raise KeyError("no config")
"""


@pytest.fixture
def agents(project: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    """A module of agents beside the project's config, under a name of this test's own."""
    name = f"zc_agents_{request.node.name.replace('[', '_').replace(']', '')}"
    (project / f"{name}.py").write_text(AGENTS, encoding="utf-8")
    write_fixture(project / "evals" / "regression", "second.json", PASSING)
    monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the config's folder is put on it
    return name


def test_a_raising_agent_shows_its_frames_under_verbose(cli: Runner, project: Path, agents: str) -> None:
    (project / "zeroclaw.toml").write_text(f'[eval]\nagent = "{agents}:make"\n', encoding="utf-8")
    quiet = cli("eval", "run", cwd=project)
    assert quiet.code == 1
    assert "run error: turn 1: the agent raised KeyError: 'missing'" in quiet.stdout
    assert "(-v shows where the agent raised)" in quiet.stdout
    assert "Traceback" not in quiet.stdout
    verbose = cli("eval", "run", "-v", cwd=project)
    assert "      Traceback (most recent call last):" in verbose.stdout
    assert f'{agents}.py", line 3, in helper' in verbose.stdout
    assert '          return data["missing"]' in verbose.stdout
    assert "zeroclaw_eval" not in verbose.stdout


@pytest.mark.parametrize("jobs", ["1", "3"])
def test_a_factory_that_raises_is_reported_once_with_exit_two(
    cli: Runner, project: Path, agents: str, jobs: str
) -> None:
    (project / "zeroclaw.toml").write_text(f'[eval]\nagent = "{agents}:bad_factory"\n', encoding="utf-8")
    suite = project / "evals" / "regression"
    for copy in ("second.json", "third.json"):  # several cases, each failing to make its agent
        (suite / copy).write_bytes((suite / "echo_hello.json").read_bytes())
    result = cli("eval", "run", "--jobs", jobs, cwd=project)
    assert result.code == 2
    assert result.stdout == ""
    assert result.stderr.count("Error: the agent factory bad_factory raised KeyError: 'no config'") == 1
    assert 'raise KeyError("no config")' in result.stderr


def test_repeat_is_refused_in_replay(cli: Runner, tmp_path: Path) -> None:
    write_fixture(tmp_path / "suite", "a.json", PASSING)
    result = cli("eval", "run", "suite", "--repeat", "3", cwd=tmp_path)
    assert result.code == 2
    assert "a replay gives the same run every time" in result.stderr
    result = cli("eval", "run", "suite", "--min-pass-rate", "0.5", cwd=tmp_path)
    assert result.code == 2
    assert "give --repeat K too" in result.stderr
