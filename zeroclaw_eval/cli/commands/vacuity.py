"""`zeroclaw eval vacuity`: the command line of the vacuity check (`grading.vacuity`).

Exit codes: 0 every fixture can fail; 1 a fixture is vacuous or rejected, or the suite
is empty; 2 the command or its configuration is unusable.

A fixture's name, model_name and details are untrusted: the text shows their control
characters instead of obeying them, and under GitHub Actions it gets `run`'s protection
(the log text fenced off with `::stop-commands::`), annotations at the vacuous checks
and a step summary.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from zeroclaw_eval.cli.options import (
    CONTEXT,
    agent_cmd_option,
    color_option,
    config_option,
    exit_on_error,
    first_fixture_hints,
    hint_on_missing_suite,
    paths_argument,
    resolve_targets,
    suite_option,
)
from zeroclaw_eval.cli.say import say

if TYPE_CHECKING:
    from zeroclaw_eval.grading.vacuity import VacuityReport


@click.command("vacuity", context_settings=CONTEXT)
@paths_argument
@suite_option()
@agent_cmd_option(
    "The suite gates an agent command ([eval].agent_cmd): its fixtures may name any tool."
    " The command is not run."
)
@config_option
@click.option(
    "--annotations/--no-annotations",
    default=None,
    help="GitHub Actions annotations at each vacuous check on stderr, and a step summary"
    " [default: on under GitHub Actions].",
)
@color_option
def vacuity_command(
    paths: tuple[Path, ...],
    suite: Path | None,
    agent_cmd: str | None,
    config: Path | None,
    annotations: bool | None,
    color: bool | None,
) -> None:
    """Check that every fixture can fail, by grading it against an empty run.

    An empty run is what an agent that does nothing leaves behind: the case's
    setup.workspace_files in a fresh workspace, and nothing else (no response, no
    tool calls, no tokens, no LLM calls). A fixture none of whose checks fails there
    is vacuous: it passes whatever the agent does, so it cannot be part of a gate.
    Typical vacuous cases: a lone max_tool_calls: 0; only negative checks
    (tools_not_used, response_not_contains, workspace.file_absent); a lone
    all_tools_succeeded: true; only budget caps; only judge checks whose judge
    is not calibrated ([eval].judge_gate), which decide nothing.

    PATH... are fixture files or suite folders, as `run` takes them (default: the
    suite, --suite or [eval].suite_dir).

    Each vacuous fixture is listed with the checks that pass vacuously and where
    they are (path:line:col); rejected fixtures are listed with their problems.

    \b
    Examples:
      zeroclaw eval vacuity
      zeroclaw eval vacuity --suite evals/regression
      zeroclaw eval vacuity evals/regression/echo_single_dispatch_round_trip.json
    \b
    Exit codes: 0 every fixture fails at least one check against an empty run;
    1 a fixture is vacuous or rejected, or the suite holds no fixtures;
    2 usage or configuration error.
    """
    from zeroclaw_eval.config.load import load_config
    from zeroclaw_eval.grading.vacuity import check_vacuity

    # Without a file name, what the machine refused is the empty run's temporary folder.
    with exit_on_error(unnamed="a temporary folder"):
        loaded = load_config(config)
        from zeroclaw_eval.runner.project import fixture_tools, judge_gate

        limit = loaded.settings.max_fixture_bytes
        targets = resolve_targets(paths, suite, loaded)
        known = fixture_tools(loaded, agent_cmd)
        with hint_on_missing_suite(loaded, config):
            report = check_vacuity(targets, known, max_fixture_bytes=limit, judge_gate=judge_gate(loaded))
        emit_vacuity(report, annotations, color)
    if report.total == 0 and not report.rejected:
        for line in first_fixture_hints(targets, loaded, config):
            say(line)
    sys.exit(report.exit_code())


def emit_vacuity(report: VacuityReport, annotations: bool | None, color: bool | None = None) -> None:
    """The text on stdout, in colour as `color` (`--color/--no-color`) says; under GitHub
    Actions fenced off from the command parser, with annotations on stderr and the step
    summary appended (as `run` does)."""
    from zeroclaw_eval.cli.outputs import in_github_actions, use_color
    from zeroclaw_eval.reporters import vacuity
    from zeroclaw_eval.reporters.github import SUMMARY_LIMIT
    from zeroclaw_eval.reporters.render import append_summary, render

    github_log = in_github_actions()
    render(vacuity.FORMATS["table"], report, "-", color=use_color(color), in_ci_log=github_log)
    if not (github_log if annotations is None else annotations):
        return
    # On stderr: never mixed into the text.
    click.echo(vacuity.FORMATS["github"](report), err=True, nl=False)
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        append_summary(Path(summary_file), lambda room: vacuity.step_summary(report, room), SUMMARY_LIMIT)
