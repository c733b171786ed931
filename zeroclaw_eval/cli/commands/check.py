"""`zeroclaw eval check`: admit fixture files and folders without running them.

Made for editors, pre-commit hooks and quick loops: a rejection is one line that starts
`path:line:col:`, as compilers and linters write them, so terminals, editors and
problem matchers link it to the field.

Exit codes: 0 every fixture is admitted; 1 a fixture is rejected, or there was none to
check; 2 the command or its configuration is unusable.
"""

from __future__ import annotations

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
)
from zeroclaw_eval.errors import ExitCode

if TYPE_CHECKING:
    from zeroclaw_eval.cases.case import Case, RejectedFixture


def render_check(
    fixtures: list[Case | RejectedFixture], where: str, hints: list[str], *, color: bool = False
) -> str:
    """The console text: a line per problem of each rejected fixture, then the verdict
    (with `hints` when there was no fixture at all), in colour when `color`."""
    from zeroclaw_eval.cases.case import RejectedFixture
    from zeroclaw_eval.collect.suite import display_path
    from zeroclaw_eval.report.words import NOTHING_RAN, plural
    from zeroclaw_eval.reporters.paint import verdict_line

    rejected = [fixture for fixture in fixtures if isinstance(fixture, RejectedFixture)]
    from zeroclaw_eval.reporters.safety import log_line

    # A problem line quotes the file name and fixture text: shown on one line, control
    # characters and undecodable name bytes visible, so it starts no workflow command.
    lines = [log_line(problem.describe(display_path(f.path))) for f in rejected for problem in f.problems]
    if not fixtures:
        lines.append(
            verdict_line(f"FAILED: no fixtures found in {log_line(where)} ({NOTHING_RAN})", False, color)
        )
        lines.extend(hints)
    elif rejected:
        problems = sum(len(fixture.problems) for fixture in rejected)
        failed = (
            f"FAILED: {len(rejected)} of {plural(len(fixtures), 'fixture')} rejected"
            f" ({plural(problems, 'problem')})"
        )
        lines.append(verdict_line(failed, False, color))
    else:
        lines.append(verdict_line(f"PASSED: {plural(len(fixtures), 'fixture')} admitted", True, color))
    return "\n".join(lines) + "\n"


@click.command("check", context_settings=CONTEXT)
@click.argument("paths", nargs=-1, metavar="[FILE|DIR]...", type=click.Path(path_type=Path))
@agent_cmd_option(
    "The fixtures gate an agent command ([eval].agent_cmd): they may name any tool. The command is not run."
)
@color_option
@config_option
def check_command(
    paths: tuple[Path, ...], agent_cmd: str | None, color: bool | None, config: Path | None
) -> None:
    """Admit fixtures without running them, and report every rejection.

    Each FILE is admitted as it is; each DIR as a suite (its direct *.json
    children). Without arguments, the configured suite ([eval].suite_dir, else
    evals/regression). Admission is what `zeroclaw eval run` does first: strict
    JSON, no unknown key, every check one that a run could pass and fail, the tools
    named known (the built-in ones and [eval].tools). Each problem is printed as

    \b
      path:line:col: /json/pointer: message

    Nothing runs, so nothing here says whether a case can fail at all: that is
    `zeroclaw eval vacuity`.

    \b
    Examples:
      zeroclaw eval check
      zeroclaw eval check evals/regression/echo_single_dispatch_round_trip.json
      zeroclaw eval check evals/regression evals/capability
    \b
    Exit codes: 0 every fixture is admitted; 1 a fixture is rejected, or none
    was found; 2 usage or configuration error.
    """
    from zeroclaw_eval.cases.case import Case
    from zeroclaw_eval.collect.suite import display_path, fixture_files, load_fixtures, nested_fixtures_hint
    from zeroclaw_eval.config.load import load_config

    with exit_on_error():
        loaded = load_config(config)
        targets = paths or (resolve_suite(None, loaded),)
        with hint_on_missing_suite(loaded, config):
            files = fixture_files(targets)  # a path that names no fixture is a usage error
        from zeroclaw_eval.runner.project import fixture_tools

        known = fixture_tools(loaded, agent_cmd)
        fixtures = load_fixtures(files, known, max_bytes=loaded.settings.max_fixture_bytes)
    where = ", ".join(display_path(target) for target in targets)
    hints = [hint for target in targets if (hint := nested_fixtures_hint(target)) is not None]
    hints += first_fixture_hints(targets, loaded, config)
    from zeroclaw_eval.cli.outputs import use_color

    painted = use_color(color)
    # color= as well: click would strip the codes from a stdout that is no terminal.
    click.echo(render_check(fixtures, where, hints, color=painted), nl=False, color=painted)
    # No fixture at all fails, as an empty suite does: a gate that checked nothing passed nothing.
    sys.exit(ExitCode.gate(bool(fixtures) and all(isinstance(fixture, Case) for fixture in fixtures)))
