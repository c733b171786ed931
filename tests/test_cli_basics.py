"""End to end: exit codes, output files, configuration, custom agents, colour, help."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders import PASSING, write_fixture
from tests.invoke import Runner, console_script
from zeroclaw_eval.report.codec import FORMAT_VERSION

FAILING = {**PASSING, "expects": {"response_contains": ["goodbye"]}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder whose default suite (evals/regression) holds one passing case."""
    write_fixture(tmp_path / "evals" / "regression", "echo_hello.json", PASSING)
    return tmp_path


def test_default_suite_passes_with_exit_zero(zeroclaw: Runner, project: Path) -> None:
    result = zeroclaw("eval", "run", cwd=project)
    assert result.code == 0, result.stdout + result.stderr
    assert "✓ echo_hello.json" in result.stdout
    assert "PASSED: 1 cases (1 passed, 0 failed)" in result.stdout


def test_failing_check_exits_one_and_shows_expected_and_found(zeroclaw: Runner, project: Path) -> None:
    path = write_fixture(project / "evals" / "regression", "wrong.json", FAILING)
    result = zeroclaw("eval", "run", cwd=project)
    assert result.code == 1
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if '"goodbye"' in text)
    assert f"evals/regression/wrong.json:{line}:" in result.stdout
    assert 'expected the final response to contain "goodbye"; found "hello"' in result.stdout


def test_empty_suite_fails(zeroclaw: Runner, tmp_path: Path) -> None:
    result = zeroclaw("eval", "run", "--suite", str(tmp_path))
    assert result.code == 1
    assert "no fixtures found" in result.stdout


def test_suite_loading_is_not_recursive(zeroclaw: Runner, tmp_path: Path) -> None:
    write_fixture(tmp_path / "nested", "deep.json", FAILING)
    write_fixture(tmp_path, "top.json", PASSING)
    result = zeroclaw("eval", "run", "--suite", str(tmp_path), "--format", "json")
    assert [c["name"] for c in result.json()["cases"]] == ["top.json"]
    assert result.code == 0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--suite", "no/such/folder"], "suite folder not found"),
        (["--mode", "live"], "[eval].live_provider is empty, so live mode is off"),
        (["--format", "yaml"], "unknown report format 'yaml'; choose from: table, json"),
        (["--config", "missing.toml"], "config file not found"),
        (["--bogus"], "No such option"),
    ],
)
def test_usage_errors_exit_two_without_traceback(
    zeroclaw: Runner, project: Path, args: list[str], words: str
) -> None:
    result = zeroclaw("eval", "run", *args, cwd=project)
    assert result.code == 2
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_output_file_is_written_and_announced(zeroclaw: Runner, project: Path) -> None:
    result = zeroclaw("eval", "run", "--format", "json", "--output", "reports/eval.json", cwd=project)
    assert result.code == 0
    assert result.stdout == ""
    written = project / "reports" / "eval.json"
    assert "Wrote json to reports/eval.json" in result.stderr
    data = json.loads(written.read_text(encoding="utf-8"))
    assert data["format_version"] == FORMAT_VERSION
    assert data["counts"] == {"passed": 1, "failed": 0, "error": 0, "rejected": 0, "total": 1}
    assert [p.name for p in written.parent.iterdir()] == ["eval.json"]  # no temp file left
    umask = os.umask(0)
    os.umask(umask)
    assert written.stat().st_mode & 0o777 == 0o666 & ~umask  # not the temp file's private 0600


def test_zeroclaw_toml_sets_the_suite_and_flags_override_it(zeroclaw: Runner, project: Path) -> None:
    write_fixture(project / "other", "wrong.json", FAILING)
    (project / "zeroclaw.toml").write_text('[eval]\nsuite_dir = "other"\n', encoding="utf-8")
    assert zeroclaw("eval", "run", cwd=project).code == 1
    assert zeroclaw("eval", "run", "--suite", "evals/regression", cwd=project).code == 0


def test_pyproject_table_is_read(zeroclaw: Runner, project: Path) -> None:
    write_fixture(project / "other", "wrong.json", FAILING)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.zeroclaw.eval]\nsuite_dir = "other"\n', encoding="utf-8"
    )
    result = zeroclaw("eval", "run", "--format", "json", cwd=project)
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
    zeroclaw: Runner, project: Path, toml: str, words: str
) -> None:
    (project / "zeroclaw.toml").write_text(toml, encoding="utf-8")
    result = zeroclaw("eval", "run", cwd=project)
    assert result.code == 2, result.stdout
    assert words in result.stderr
    assert "zeroclaw.toml" in result.stderr or "agent" in result.stderr
    assert "Traceback" not in result.stderr


CUSTOM_AGENT = '''
class OneShot:
    """Calls echo twice in one go, whatever the model says, then answers from the tool."""

    def __init__(self, context):
        self.context = context

    async def run_turn(self, user_input):
        first = await self.context.tools.call("echo", '{"message": "from custom agent"}', "x1")
        await self.context.tools.call("no_such_tool", {}, "x2")
        await self.context.provider.complete([{"role": "user", "content": user_input}], [])
        return "custom: " + first.content


def make(context):
    return OneShot(context)
'''


def test_custom_agent_factory_is_recorded_at_the_same_boundary(zeroclaw: Runner, tmp_path: Path) -> None:
    (tmp_path / "my_agents.py").write_text(CUSTOM_AGENT, encoding="utf-8")
    (tmp_path / "zeroclaw.toml").write_text('[eval]\nagent = "my_agents:make"\n', encoding="utf-8")
    fixture = {
        "model_name": "custom",
        "turns": [{"user_input": "go", "steps": [{"response": {"type": "text", "content": "ignored"}}]}],
        "expects": {
            "tool_arguments_contain": [{"tool": "echo", "needle": "from custom agent", "call_index": 0}],
            "tools_used": ["no_such_tool"],
            "all_tools_succeeded": False,
            "response_contains": ["custom: from custom agent"],
        },
    }
    write_fixture(tmp_path / "evals" / "regression", "custom.json", fixture)
    # No PYTHONPATH: the folder of zeroclaw.toml is where the agent module is looked up.
    result = zeroclaw("eval", "run", "--format", "json", cwd=tmp_path)
    assert result.code == 0, result.stdout
    calls = result.json()["cases"][0]["record"]["calls"]
    assert [(c["name"], c["success"]) for c in calls] == [("echo", True), ("no_such_tool", False)]


def test_no_colour_when_not_a_tty(zeroclaw: Runner, project: Path) -> None:
    assert "\x1b[" not in zeroclaw("eval", "run", cwd=project).stdout


def _run_on_tty(project: Path, env: dict[str, str]) -> str:
    primary, secondary = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | env
    with subprocess.Popen(
        [console_script(), "eval", "run"], cwd=project, stdout=secondary, stderr=secondary, env=environment
    ) as process:
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
    os.close(primary)
    return b"".join(chunks).decode("utf-8", errors="replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_colour_on_a_tty_unless_no_color(project: Path) -> None:
    assert "\x1b[32m" in _run_on_tty(project, {})
    assert "\x1b[" not in _run_on_tty(project, {"NO_COLOR": "1"})


def test_python_dash_m_runs_the_same_cli(project: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "zeroclaw_eval", "eval", "run"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert "✓ echo_hello.json" in result.stdout


def test_help_teaches_the_exit_codes(zeroclaw: Runner) -> None:
    result = zeroclaw("eval", "run", "--help")
    assert result.code == 0
    for words in ("--suite", "--mode", "--format", "--output", "--config", "Exit codes"):
        assert words in result.stdout
    assert zeroclaw("--version").stdout.startswith("zeroclaw-eval, version ")


def test_repository_default_suite_passes(zeroclaw: Runner) -> None:
    """`zeroclaw eval run` in the repository root: the project's own gate is green."""
    root = Path(__file__).resolve().parent.parent
    result = zeroclaw("eval", "run", cwd=root)
    assert result.code == 0, result.stdout
    assert "PASSED:" in result.stdout
