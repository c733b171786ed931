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
    resolve_suite,
    suite_option,
)
from zeroclaw_eval.cli.say import say
from zeroclaw_eval.errors import ExitCode
from zeroclaw_eval.report.words import NOTHING_RAN, plural

if TYPE_CHECKING:
    from zeroclaw_eval.cases.case import RejectedFixture
    from zeroclaw_eval.grading.vacuity import VacuityReport, VacuousCase

_HINT = (
    "A vacuous case passes whatever the agent does, so it certifies nothing: give it a check"
    " that an agent doing nothing fails (tools_used, exact_tool_calls, tool_arguments_contain,"
    " tool_results_contain, response_contains, a file the agent must write, ...)."
)


def _vacuous_lines(case: VacuousCase, color: bool) -> list[str]:
    from zeroclaw_eval.collect.suite import display_path
    from zeroclaw_eval.reporters.paint import passed_mark
    from zeroclaw_eval.reporters.safety import visible

    path = display_path(case.path)
    checks = "its one check passes" if len(case.checks) == 1 else f"all {len(case.checks)} checks pass"
    mark = passed_mark(False, color)
    lines = [f"{mark} {_line(case.name)}  {_line(case.model_name)}  (vacuous: {checks} against an empty run)"]
    for check in case.checks:
        lines.append(f"    {_line(check.check_id)} [{check.category}]  {_line(check.field.where(path))}")
        lines.append(f"      {visible(check.detail)}")
    return lines


def _rejected_lines(fixture: RejectedFixture, color: bool) -> list[str]:
    from zeroclaw_eval.collect.suite import display_path
    from zeroclaw_eval.reporters.paint import passed_mark
    from zeroclaw_eval.reporters.safety import visible

    path = display_path(fixture.path)
    lines = [f"{passed_mark(False, color)} {_line(fixture.name)}  (rejected)"]
    for problem in fixture.problems:
        lines.append(f"    {visible(problem.describe(path))}")
    return lines


def _line(text: str) -> str:
    """Untrusted text that must stay on its line (a name, a path)."""
    # Imported here, like every heavy module of a command: `reporters` brings the report
    # model (and pydantic) with it, which `zeroclaw --help` must not pay for.
    from zeroclaw_eval.reporters.safety import visible

    return visible(text, multiline=False)


def render_vacuity(report: VacuityReport, *, color: bool = False) -> str:
    """The console text for a vacuity report: each vacuous or rejected fixture, a summary
    (its marks and verdict in colour when `color`)."""
    from zeroclaw_eval.collect.suite import display_path
    from zeroclaw_eval.reporters.paint import verdict_line

    suite = _line(display_path(report.suite))
    lines = [f"zeroclaw eval vacuity: {suite} ({plural(report.total, 'fixture')})", ""]
    for case in report.vacuous:
        lines.extend(_vacuous_lines(case, color))
    for fixture in report.rejected:
        lines.extend(_rejected_lines(fixture, color))
    if report.total == 0:
        lines.append(verdict_line(f"FAILED: no fixtures found in {suite} ({NOTHING_RAN})", False, color))
    elif report.exit_code() == ExitCode.OK:
        passed = f"PASSED: {plural(report.total, 'fixture')}, each failing a check against an empty run"
        lines.append(verdict_line(passed, True, color))
    else:
        parts = [f"{len(report.vacuous)} vacuous", f"{len(report.rejected)} rejected"]
        failed = f"FAILED: {', '.join(parts)} of {plural(report.total, 'fixture')}"
        lines.extend(["", verdict_line(failed, False, color)])
        if report.vacuous:
            lines.append(_HINT)
    return "\n".join(lines) + "\n"


@click.command("vacuity", context_settings=CONTEXT)
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
    all_tools_succeeded: true; only budget caps.

    Each vacuous fixture is listed with the checks that pass vacuously and where
    they are (path:line:col); rejected fixtures are listed with their problems.

    \b
    Examples:
      zeroclaw eval vacuity
      zeroclaw eval vacuity --suite evals/regression
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
        from zeroclaw_eval.runner.project import fixture_tools

        limit = loaded.settings.max_fixture_bytes
        folder = resolve_suite(suite, loaded)
        known = fixture_tools(loaded, agent_cmd)
        with hint_on_missing_suite(loaded, config):
            report = check_vacuity(folder, known, max_fixture_bytes=limit)
        emit_vacuity(report, annotations, color)
    if report.total == 0 and not report.rejected:
        for line in first_fixture_hints([folder], loaded, config):
            say(line)
    sys.exit(report.exit_code())


def emit_vacuity(report: VacuityReport, annotations: bool | None, color: bool | None = None) -> None:
    """The text on stdout, in colour as `color` (`--color/--no-color`) says; under GitHub
    Actions fenced off from the command parser, with annotations on stderr and the step
    summary appended (as `run` does)."""
    from zeroclaw_eval.cli.outputs import in_github_actions, use_color
    from zeroclaw_eval.reporters import vacuity as github
    from zeroclaw_eval.reporters.github import SUMMARY_LIMIT
    from zeroclaw_eval.reporters.render import append_summary, write_output

    github_log = in_github_actions()
    write_output(render_vacuity(report, color=use_color(color)), "-", fenced=github_log)
    if not (github_log if annotations is None else annotations):
        return
    click.echo(github.render(report), err=True, nl=False)  # stderr: never mixed into the text
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        append_summary(Path(summary_file), lambda room: github.step_summary(report, room), SUMMARY_LIMIT)
