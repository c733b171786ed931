"""The real boundary: the installed console scripts, run as subprocesses on files on disk."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.builders import write_fixture
from tests.invoke import Runner, console_script


def test_default_suite_passes_with_exit_zero(zeroclaw: Runner, project: Path) -> None:
    result = zeroclaw("eval", "run", cwd=project)
    assert result.code == 0, result.stdout + result.stderr
    assert "✓ echo_hello.json" in result.stdout
    assert "PASSED: 1 cases (1 passed, 0 failed)" in result.stdout


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
