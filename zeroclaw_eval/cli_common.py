"""What every `zeroclaw eval` command shares: help settings, the way an error ends the
process, and the --suite and --config options."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from zeroclaw_eval.errors import EvalError

F = TypeVar("F", bound=Callable[..., Any])
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def fail(error: EvalError) -> NoReturn:
    """Print `Error: …` on stderr and exit with the error's code (never a traceback)."""
    click.echo(f"Error: {error}", err=True)
    sys.exit(error.exit_code)


def suite_option(help_text: str = "Folder of *.json fixtures.") -> Callable[[F], F]:
    """`--suite DIR`, defaulting to `[eval].suite_dir`."""
    return click.option(
        "--suite",
        type=click.Path(path_type=Path),
        help=f"{help_text} [default: [eval].suite_dir, else evals/regression]",
    )


config_option = click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Read [eval] from this file (zeroclaw.toml, or [tool.zeroclaw.eval] in a pyproject.toml).",
)
