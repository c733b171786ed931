"""`zeroclaw_eval.cli.options`: an error ends a command with its exit code and a message,
never a traceback; the suite comes from --suite, else the configuration."""

from __future__ import annotations

import errno
import re
import tempfile
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tests.support.builders import echo_fixture, write_fixture
from tests.support.invoke import Runner, invoke
from zeroclaw_eval.cli.options import exit_on_error, resolve_suite
from zeroclaw_eval.config.load import load_config
from zeroclaw_eval.errors import ConfigError


def _ends_with(error: BaseException, unnamed: str = "") -> tuple[int, str]:
    @click.command()
    def command() -> None:
        with exit_on_error(unnamed=unnamed):
            raise error

    result = CliRunner().invoke(command, [], catch_exceptions=False)
    return result.exit_code, result.stderr


def test_an_eval_error_ends_with_its_exit_code_and_message() -> None:
    assert _ends_with(ConfigError("zeroclaw.toml: [eval] x: unknown setting")) == (
        2,
        "Error: zeroclaw.toml: [eval] x: unknown setting\n",
    )


def test_an_os_error_is_exit_two_naming_what_was_refused() -> None:
    refused = PermissionError(errno.EACCES, "Permission denied", "reports/eval.xml")
    assert _ends_with(refused) == (2, "Error: Permission denied: reports/eval.xml\n")
    full = OSError(errno.ENOSPC, "No space left on device")
    assert _ends_with(full) == (2, "Error: No space left on device\n")
    assert _ends_with(full, unnamed="a temporary folder") == (
        2,
        "Error: No space left on device: a temporary folder\n",
    )


def test_an_os_error_naming_a_file_with_a_newline_stays_on_one_line() -> None:
    refused = OSError(errno.ENAMETOOLONG, "File name too long", "/tmp/ws/x\n::error::X")
    assert _ends_with(refused) == (2, 'Error: File name too long: "/tmp/ws/x\\n::error::X"\n')


def test_vacuity_names_the_temporary_folder_the_machine_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_fixture(tmp_path, "a.json", echo_fixture({"workspace": {"file_exists": ["out.txt"]}}))

    def no_space(*args: object, **kwargs: object) -> str:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tempfile, "mkdtemp", no_space)
    result = invoke("eval", "vacuity", "--suite", str(tmp_path))
    assert (result.code, result.stderr) == (2, "Error: No space left on device: a temporary folder\n")


def test_the_suite_is_the_flag_else_the_configured_folder(tmp_path: Path) -> None:
    (tmp_path / "zeroclaw.toml").write_text('[eval]\nsuite_dir = "cases"\n', encoding="utf-8")
    loaded = load_config(cwd=tmp_path)
    assert resolve_suite(None, loaded) == tmp_path / "cases"
    assert resolve_suite(Path("other"), loaded) == Path("other")


def test_an_error_shows_the_control_characters_it_quotes(tmp_path: Path) -> None:
    result = invoke("eval", "run", "gone\x1b]0;owned\x07.json", cwd=tmp_path)
    assert result.code == 2
    assert "\x1b" not in result.stderr
    assert "gone\\x1b]0;owned\\x07.json" in result.stderr


@pytest.mark.parametrize("command", [("vacuity",), ("check",), ("list",), ("run",), ("mutate",)])
def test_every_command_that_reads_the_suite_holds_it_to_the_configured_size_limit(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    # One rule for how a suite's fixtures are loaded: a file a run rejects as too large is
    # rejected by the commands that judge the suite without running it, too.
    (tmp_path / "zeroclaw.toml").write_text("[eval]\nmax_fixture_bytes = 200\n", encoding="utf-8")
    write_fixture(tmp_path / "evals" / "regression", "big.json", echo_fixture({"tools_used": ["echo"]}))
    result = invoke("eval", *command, cwd=tmp_path)
    shown = result.stdout + result.stderr
    assert "[eval].max_fixture_bytes" in shown, shown


#: Each command that reads a suite, and its exit code for an empty one (list lists nothing).
SUITE_COMMANDS = [("run", 1), ("list", 0), ("check", 1), ("vacuity", 1), ("mutate", 1)]
FIRST_FIXTURE = "hint: `zeroclaw eval new NAME` writes a first fixture into evals/regression\n"


@pytest.mark.parametrize(("command", "code"), SUITE_COMMANDS)
def test_an_empty_suite_says_how_to_write_a_first_fixture(
    cli: Runner, tmp_path: Path, command: str, code: int
) -> None:
    (tmp_path / "evals" / "regression").mkdir(parents=True)
    result = cli("eval", command, cwd=tmp_path)
    assert result.code == code, result.stdout
    assert FIRST_FIXTURE in result.stdout + result.stderr


@pytest.mark.parametrize("command", [command for command, _ in SUITE_COMMANDS])
def test_a_missing_suite_says_how_to_write_a_first_fixture(cli: Runner, tmp_path: Path, command: str) -> None:
    result = cli("eval", command, cwd=tmp_path)
    assert result.code == 2, result.stdout
    assert result.stderr == (
        f"Error: no such fixture file or suite folder: {tmp_path / 'evals' / 'regression'}\n{FIRST_FIXTURE}"
    )


def test_the_hint_names_a_suite_that_is_not_the_configured_one(cli: Runner, tmp_path: Path) -> None:
    # Followed as printed, the hint writes into the folder the command was given.
    (tmp_path / "my cases").mkdir()
    result = cli("eval", "run", "my cases", cwd=tmp_path)
    hint = "hint: `zeroclaw eval new NAME --suite 'my cases'` writes a first fixture into my cases\n"
    assert (result.code, result.stderr) == (1, hint)
    assert cli("eval", "new", "first", "--suite", "my cases", cwd=tmp_path).code == 0
    assert cli("eval", "run", "my cases", cwd=tmp_path).code == 0


def test_the_hint_keeps_the_config_the_command_was_given(cli: Runner, tmp_path: Path) -> None:
    (tmp_path / "ci.toml").write_text('[eval]\nsuite_dir = "cases"\n', encoding="utf-8")
    result = cli("eval", "check", "--config", "ci.toml", cwd=tmp_path)
    assert result.stderr.endswith(
        "hint: `zeroclaw eval new NAME --config ci.toml` writes a first fixture into cases\n"
    )


def test_no_hint_for_a_fixture_file_or_a_folder_with_fixtures_below(cli: Runner, tmp_path: Path) -> None:
    assert "hint:" not in cli("eval", "run", "gone.json", cwd=tmp_path).stderr
    write_fixture(
        tmp_path / "evals" / "regression" / "echo", "a.json", echo_fixture({"tools_used": ["echo"]})
    )
    result = cli("eval", "run", cwd=tmp_path)
    assert "note: a suite is one folder, not searched recursively" in result.stderr
    assert "hint:" not in result.stderr


ANSI = re.compile("\x1b\\[[0-9;]*m")


@pytest.fixture
def reported(cli: Runner, project: Path) -> Path:
    """`project` with its run saved as report.json and as the one shard of shard.json."""
    assert cli("eval", "run", "--format", "json", "-o", "report.json", cwd=project).code == 0
    assert cli("eval", "run", "--shard", "1/1", "--report", "json=shard.json", cwd=project).code == 0
    return project


#: Every command that prints text to colour, and its arguments in `reported`.
COLOURED_COMMANDS = [
    ("run",),
    ("list",),
    ("check",),
    ("vacuity",),
    ("mutate",),
    ("render", "report.json"),
    ("merge", "shard.json"),
]


@pytest.mark.parametrize("command", COLOURED_COMMANDS, ids=lambda command: command[0])
@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ([], {}, False),  # not a terminal
        (["--color"], {"NO_COLOR": "1"}, True),  # the flag wins
        (["--no-color"], {"FORCE_COLOR": "1"}, False),
        ([], {"FORCE_COLOR": "1"}, True),
        ([], {"GITHUB_ACTIONS": "true"}, True),  # GitHub's log renders ANSI colour
    ],
)
def test_every_command_that_prints_text_takes_the_colour_flag_as_run_does(
    cli: Runner,
    reported: Path,
    command: tuple[str, ...],
    args: list[str],
    env: dict[str, str],
    coloured: bool,
) -> None:
    result = cli("eval", *command, *args, cwd=reported, env=env)
    # Taken, not refused (2): the one passing case is the gate's business (mutate fails it).
    assert result.code in (0, 1), result.stdout + result.stderr
    assert bool(ANSI.search(result.stdout)) is coloured, result.stdout


def test_colour_reaches_no_file(cli: Runner, reported: Path) -> None:
    # As run's outputs: a file never gets escape codes, only the stdout the flag is about.
    assert cli("eval", "mutate", "--color", "-o", "verdict.txt", cwd=reported).code in (0, 1)
    assert not ANSI.search((reported / "verdict.txt").read_text(encoding="utf-8"))
    result = cli("eval", "mutate", "--color", "--format", "json", "-o", "verdict.json", cwd=reported)
    assert ANSI.search(result.stdout)  # the table beside the JSON file
    assert not ANSI.search((reported / "verdict.json").read_text(encoding="utf-8"))
