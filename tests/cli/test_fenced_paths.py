"""A fixture's file name is untrusted, and Linux lets it hold a line break: every output
of the installed command that prints a path keeps it on its one line, so no name starts
a workflow command in a GitHub Actions log, with or without `GITHUB_ACTIONS` set (a
command in a container a job runs is still read by the runner, unfenced). Nor does a
name that itself starts with `::`, which a suite's own folder (`--suite .`) shows bare at
the start of a rejection's line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.builders import FAILING, write_fixture
from tests.support.ci_log import command_lines, parse_command
from tests.support.invoke import run_cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a file name with a line break")

#: Rejected (not JSON): the line break, then a command on the next line.
BROKEN = "x\n::error file=a::forged.json"
#: Rejected: a name that opens its line when shown relative to the suite.
OPENING = "::error file=b::top.json"
#: Run and failing: its name and path are shown on the lines of a failed check.
FAILING_NAME = "y\n::warning file=c::failing.json"
#: What the tool's own annotations name: the files, with nothing forged out of them.
OURS = {BROKEN, OPENING, FAILING_NAME}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("suite")
    write_fixture(folder, BROKEN, '{"not": "a fixture"')
    write_fixture(folder, OPENING, '{"not": "a fixture"')
    write_fixture(folder, FAILING_NAME, FAILING)
    return folder


COMMANDS = {
    "run": ("eval", "run", "--suite", "."),
    "run -v --progress": ("eval", "run", "--suite", ".", "-v", "--progress"),
    "run --format github": ("eval", "run", "--suite", ".", "--format", "github"),
    "vacuity": ("eval", "vacuity", "--suite", "."),
}


def _foreign(log: str) -> list[str]:
    """Each line the runner would try as a command that is not one of the tool's own: a
    fence (`::stop-commands::TOKEN` and the `::TOKEN::` that ends it) or an annotation at
    one of the suite's files, titled by its fixture."""
    lines = command_lines(log)
    fences = {
        line.removeprefix("::stop-commands::") for line in lines if line.startswith("::stop-commands::")
    }
    foreign = []
    for line in lines:
        command = parse_command(line)
        if command is None:
            foreign.append(line)
        elif command.name == "stop-commands" or command.name in fences:
            continue
        elif command.name in ("error", "warning", "notice"):
            named = command.properties.get("file")
            title = command.properties.get("title", "")
            if named not in OURS or not title.startswith(named):
                foreign.append(line)
        else:
            foreign.append(line)
    return foreign


@pytest.mark.parametrize("in_actions", [False, True], ids=["outside", "GITHUB_ACTIONS"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_no_file_name_starts_a_workflow_command(
    suite: Path, tmp_path: Path, command: str, in_actions: bool
) -> None:
    env = {}
    if in_actions:
        env = {
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(suite),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        }
    result = run_cli(*COMMANDS[command], cwd=suite, env=env)
    assert result.code == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    log = result.stdout + "\n" + result.stderr
    assert _foreign(log) == []
    if command != "run --format github":  # the console text shows each name, on its line
        assert "x\\n::error file=a::forged.json" in result.stdout
        assert "\\x3a:error file=b::top.json:1:" in result.stdout
    if command.startswith("run") and command != "run --format github":
        assert "y\\n::warning file=c::failing.json" in result.stdout
    if command == "run -v --progress":
        assert "] ✗ y\\n::warning file=c::failing.json (failed," in result.stderr
