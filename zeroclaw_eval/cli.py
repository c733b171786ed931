"""The `zeroclaw` command line. Only this module prints errors and picks the exit code.

Exit codes: 0 every case passed; 1 a check failed, a case errored, a fixture was
rejected, or the suite was empty; 2 the command or its configuration is unusable.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

import click

from zeroclaw_eval import __version__
from zeroclaw_eval.errors import EvalError, UsageError

_CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _fail(error: EvalError) -> NoReturn:
    click.echo(f"Error: {error}", err=True)
    sys.exit(error.exit_code)


def _use_color(output: str) -> bool:
    # https://no-color.org: any non-empty NO_COLOR turns colour off.
    return output == "-" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")


@click.group(context_settings=_CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="zeroclaw-eval")
def main() -> None:
    """zeroclaw: regression gate for tool-calling agents."""


@main.group("eval", context_settings=_CONTEXT)
def eval_group() -> None:
    """Replay JSON trace fixtures through an agent loop and grade them.

    A suite is a folder of *.json fixtures (direct children only). Settings come
    from [eval] in zeroclaw.toml or [tool.zeroclaw.eval] in pyproject.toml in the
    working directory; flags override them.
    """


@eval_group.command("run", context_settings=_CONTEXT)
@click.option(
    "--suite",
    type=click.Path(path_type=Path),
    help="Folder of *.json fixtures. [default: [eval].suite_dir, else evals/regression]",
)
@click.option(
    "--mode",
    type=click.Choice(["replay", "live"]),
    help="replay: scripted responses, no network. live: a real provider (not available yet)."
    " [default: [eval].mode, else replay]",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table: one line per case with each failure beneath. json: the versioned report.",
)
@click.option(
    "--output",
    "-o",
    default="-",
    metavar="PATH",
    help="Write the report to PATH instead of stdout ('-').",
)
@click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Read [eval] from this file (zeroclaw.toml, or [tool.zeroclaw.eval] in a pyproject.toml).",
)
def run_command(suite: Path | None, mode: str | None, fmt: str, output: str, config: Path | None) -> None:
    """Run a suite and exit 0 only if every case passed.

    \b
    Examples:
      zeroclaw eval run
      zeroclaw eval run --suite evals/regression --format json -o reports/eval.json
    \b
    Exit codes: 0 all cases passed; 1 a check failed, a run errored, a fixture
    was rejected, or the suite held no fixtures; 2 usage or configuration error.
    """
    from zeroclaw_eval.agent import load_agent_factory, reference_agent
    from zeroclaw_eval.config import load_config
    from zeroclaw_eval.reporters import render_report
    from zeroclaw_eval.runner import RunOptions, run_suite

    try:
        loaded = load_config(config)
        settings = loaded.settings
        chosen_mode = mode or settings.mode
        if chosen_mode == "live":
            raise UsageError(
                "live mode is not available yet; run the suite in replay mode (--mode replay, the default)"
            )
        suite_dir = suite if suite is not None else loaded.resolve(settings.suite_dir)
        factory = load_agent_factory(settings.agent) if settings.agent else reference_agent
        options = RunOptions(
            mode=chosen_mode,
            agent_factory=factory,
            case_timeout_secs=settings.case_timeout_secs,
            max_tool_iterations=settings.max_tool_iterations,
        )
        report = run_suite(suite_dir, options)
        written = render_report(report, fmt, output, color=_use_color(output))
    except EvalError as error:
        _fail(error)
    except OSError as error:
        _fail(UsageError(f"cannot write {output}: {error.strerror or error}"))
    if written is not None:
        click.echo(f"Wrote {fmt} to {written}", err=True)
    sys.exit(report.exit_code())
