"""Running the `zeroclaw` command: in this process through click's `CliRunner` (fast, for
the many CLI tests), or as the installed console script in a subprocess (the real
boundary, for the few end-to-end tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from zeroclaw_eval.cli import main


@dataclass
class Result:
    """A finished `zeroclaw` command."""

    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """stdout parsed as JSON."""
        return json.loads(self.stdout)


#: Run the command with arguments; keyword arguments `cwd` and `env`.
Runner = Callable[..., Result]

# The variables that change what the command does, unset unless a test sets them.
_AMBIENT = ("NO_COLOR", "FORCE_COLOR", "GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE")


def invoke(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, stdin: str | None = None
) -> Result:
    """Run the command in this process (`CliRunner`), in `cwd`, with `env` set on top of
    this process's environment (`_AMBIENT` variables unset unless given), `stdin` its input."""
    environment: dict[str, str | None] = {name: None for name in _AMBIENT}
    environment.update(env or {})
    previous = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, list(args), input=stdin, env=environment, catch_exceptions=False)
    finally:
        os.chdir(previous)
    return Result(result.exit_code, result.stdout, result.stderr)


def console_script(name: str = "zeroclaw") -> str:
    """The console script installed for this interpreter: beside it (a virtual
    environment's), or in its installation's scripts folder (a system Python's
    /usr/local/bin). Never one found on PATH: that may be another installation's (another
    virtual environment or Python version, another checkout, upstream ZeroClaw's own
    `zeroclaw`), and a test run through it would pass or fail on that one's code."""
    file = f"{name}.exe" if os.name == "nt" else name
    folders = dict.fromkeys([Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))])
    for folder in folders:
        if (folder / file).is_file():
            return str(folder / file)
    raise RuntimeError(
        f"the {name} console script is not installed for {sys.executable} (looked in"
        f" {', '.join(map(str, folders))}); run {sys.executable} -m pip install -e '.[test]'"
    )


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, script: str = "zeroclaw"
) -> Result:
    """Run the installed console script in a subprocess; `_AMBIENT` variables are unset
    unless given."""
    environment = {k: v for k, v in os.environ.items() if k not in _AMBIENT and not k.startswith("GITHUB_")}
    environment.update(env or {})
    completed = subprocess.run(
        [console_script(script), *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    return Result(completed.returncode, completed.stdout, completed.stderr)


def full_json_report(cli: Runner, project: Path, *arguments: str) -> dict[str, Any]:
    """The JSON report of `zeroclaw eval run ARGUMENTS` in `project`, every case whole
    (`--details all`); the run must have ended with the suite graded (exit 0 or 1)."""
    result = cli("eval", "run", "--format", "json", "--details", "all", *arguments, cwd=project)
    assert result.code in (0, 1), result.stdout + result.stderr
    report: dict[str, Any] = result.json()
    return report
