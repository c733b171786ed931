"""`zeroclaw_eval.cli.options`: an error ends a command with its exit code and a message,
never a traceback; the suite comes from --suite, else the configuration."""

from __future__ import annotations

import errno
import tempfile
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tests.support.builders import echo_fixture, write_fixture
from tests.support.invoke import invoke
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
