"""The real boundary: the installed console scripts, run as subprocesses on files on disk.

The many behaviours of the command are tested in-process (tests/cli/); these few runs
check what only a real process shows: the scripts are installed and agree, exit codes
reach the shell, a terminal gets colour, an agent module is imported from the project
folder, annotations reach a CI log, and a live run talks to `zeroclaw eval serve` in
another process over loopback.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.builders import HOSTILE_ANSWER_FIXTURE, PASSING, write_fixture
from tests.support.ci_log import executed_commands
from tests.support.invoke import Runner, console_script, run_cli


@pytest.mark.parametrize("script", ["zeroclaw", "zeroclaw-eval"])
def test_default_suite_passes_with_exit_zero(project: Path, script: str) -> None:
    result = run_cli("eval", "run", cwd=project, script=script)
    assert result.code == 0, result.stdout + result.stderr
    assert "✓ echo_hello.json" in result.stdout
    assert "PASSED: 1 case (1 passed, 0 failed)" in result.stdout


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
    result = zeroclaw("eval", "run", "--format", "json", "--details", "all", cwd=tmp_path)
    assert result.code == 0, result.stdout
    calls = result.json()["cases"][0]["record"]["calls"]
    assert [(c["name"], c["success"]) for c in calls] == [("echo", True), ("no_such_tool", False)]


def _run_on_tty(project: Path, env: dict[str, str]) -> str:
    primary, secondary = pty.openpty()
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | env
    with subprocess.Popen(
        [console_script(), "eval", "run"], cwd=project, stdout=secondary, stderr=secondary, env=environment
    ) as process:
        os.close(secondary)
        chunks = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            # A hung command must fail the test, not hang it: wait for output a second at a time.
            if not select.select([primary], [], [], 1.0)[0]:
                continue
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=5)
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


def test_annotations_reach_the_log_and_forge_nothing(tmp_path: Path) -> None:
    write_fixture(tmp_path / "evals" / "regression", "hostile.json", HOSTILE_ANSWER_FIXTURE)
    env = {"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(tmp_path)}
    result = run_cli("eval", "run", cwd=tmp_path, env=env)
    assert result.code == 1
    executed = executed_commands(result.stdout + result.stderr)
    # The table is fenced off from the runner; the annotations are ours alone.
    errors = [c for c in executed if c.name == "error"]
    assert [c.properties.get("file") for c in errors] == ["evals/regression/hostile.json"]
    assert {c.name for c in executed} == {"stop-commands", "error"}


class ServeProcess:
    """`zeroclaw eval serve` in its own process, on a free loopback port."""

    def __init__(self, suite: Path) -> None:
        args = [console_script(), "eval", "serve", "--suite", str(suite), "--port", "0"]
        # stderr is not read while serving: sent to the void, it can never fill a pipe and stall.
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert " on http://127.0.0.1:" in line, line
        self.url = line.split(" on ", 1)[1].split()[0]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def test_a_live_run_against_serve_in_another_process(tmp_path: Path) -> None:
    key = "sk-end-to-end-7c1d9e2f40a8"
    write_fixture(tmp_path / "suite", "echo_hello.json", PASSING)
    server = ServeProcess(tmp_path / "suite")
    try:
        (tmp_path / "zeroclaw.toml").write_text(
            f'[eval]\nsuite_dir = "suite"\nlive_provider = "local"\n\n[providers.models.local]\n'
            f'base_url = "{server.url}"\nmodel = "echo_hello"\napi_key_env = "E2E_KEY"\n',
            encoding="utf-8",
        )
        result = run_cli(
            "eval", "run", "--mode", "live", "--report", "json=out/r.json", cwd=tmp_path, env={"E2E_KEY": key}
        )
    finally:
        server.stop()
    assert result.code == 0, result.stdout + result.stderr
    assert "[1/1] ✓ suite/echo_hello.json" in result.stderr
    report = (tmp_path / "out" / "r.json").read_text(encoding="utf-8")
    assert '"mode": "live"' in report
    assert key not in result.stdout + result.stderr + report


def test_a_ci_log_gets_colour_but_a_file_it_is_redirected_to_does_not(project: Path, tmp_path: Path) -> None:
    # GitHub renders ANSI colour in its log (a pipe here); `run > table.txt` is a file.
    logged = run_cli("eval", "run", "--no-annotations", cwd=project, env={"GITHUB_ACTIONS": "true"})
    assert "\x1b[32m✓\x1b[0m echo_hello.json" in logged.stdout
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    target = tmp_path / "table.txt"
    with target.open("w", encoding="utf-8") as file:
        subprocess.run(
            [console_script(), "eval", "run", "--no-annotations"],
            cwd=project,
            env={**environment, "GITHUB_ACTIONS": "true"},
            stdout=file,
            check=False,
            timeout=120,
        )
    text = target.read_text(encoding="utf-8")
    assert "✓ echo_hello.json" in text
    assert "\x1b[" not in text


@pytest.fixture
def big_report(project: Path) -> Path:
    """A project whose one failing case answers 300 KB: its JUnit and JSON outputs take
    many writes, more than a pipe holds."""
    write_fixture(
        project / "evals" / "regression",
        "long_answer.json",
        {
            "model_name": "long-answer",
            "turns": [
                {"user_input": "go", "steps": [{"response": {"type": "text", "content": "y" * 300_000}}]}
            ],
            "expects": {"response_contains": ["needle"]},
        },
    )
    return project


def _buffered_environment() -> dict[str, str]:
    # stdout buffered as it is by default: a failed write leaves bytes in the buffer, which
    # the interpreter flushes once more at exit.
    return {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED" and not k.startswith("GITHUB_")}


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("fmt", ["junit", "json", "table"])
def test_a_full_disk_on_stdout_is_a_write_failure_exit_two(big_report: Path, fmt: str) -> None:
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [console_script(), "eval", "run", "--format", fmt],
            cwd=big_report,
            env=_buffered_environment(),
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, stderr
    assert f"cannot write {fmt} to -: No space left on device" in stderr
    assert "Exception ignored" not in stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("fmt", ["junit", "json"])
def test_a_reader_that_closes_the_pipe_is_a_write_failure_not_a_traceback(big_report: Path, fmt: str) -> None:
    # `zeroclaw eval run --format junit | head -c 10`: the reader goes after 10 bytes.
    process = subprocess.Popen(
        [console_script(), "eval", "run", "--format", fmt],
        cwd=big_report,
        env=_buffered_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    assert len(process.stdout.read(10)) == 10
    process.stdout.close()
    stderr = process.stderr.read().decode("utf-8", "replace")
    assert process.wait(timeout=120) == 2, stderr
    assert f"cannot write {fmt} to -: Broken pipe" in stderr
    assert "Exception ignored" not in stderr
    assert "Traceback" not in stderr
