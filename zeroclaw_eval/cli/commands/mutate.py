"""`zeroclaw eval mutate`: the command line of mutation testing (`zeroclaw_eval.mutate`).

Exit codes: 0 the gate passes; 1 it fails (a score below --min-score, or without one a
fixture that kills no mutant of an operator that applies to it; a rejected fixture or a
case that does not pass; no mutant at all); 2 the command or its configuration is
unusable.
"""

from __future__ import annotations

import sys
from pathlib import Path

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


@click.command("mutate", context_settings=CONTEXT)
@paths_argument
@suite_option()
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="How stdout shows the verdict. Under GitHub Actions, annotations follow either way.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
    default="-",
    help="Write the verdict to PATH instead of stdout ('-'); the table still goes to stdout.",
)
@click.option(
    "--min-score",
    type=click.FloatRange(0, 100),
    metavar="PERCENT",
    help="Gate on the suite's mutation score (killed / all mutants) instead of the per-operator rule.",
)
@click.option("-k", "keyword", metavar="EXPR", help="Only the cases whose file stem, model_name or id match.")
@agent_cmd_option("Run the cases through this agent command, as `zeroclaw eval run --agent-cmd` does.")
@color_option
@config_option
def mutate_command(
    paths: tuple[Path, ...],
    suite: Path | None,
    output_format: str,
    output: Path,
    min_score: float | None,
    keyword: str | None,
    agent_cmd: str | None,
    color: bool | None,
    config: Path | None,
) -> None:
    """Prove each case catches regressions: grade mutants of its recorded run.

    Each admitted fixture is replayed once; then its recorded run is changed the
    way a regression would change it, and the fixture's own checks grade each
    changed run (a mutant). A mutant every check passes SURVIVES: the case would
    certify that regression. Mutants are named by operator and position:

    \b
      drop_call, duplicate_call, swap_calls, rename_tool   the dispatch list
      alter_argument, drop_argument                         what a tool received
      alter_result, fail_call                               what a tool returned
      alter_response, alter_turn_order                      the answer, the turns
      write_elsewhere, skip_write, alter_file               the workspace
      inflate_budget                                        tokens, LLM calls x2

    A change no check could see is not made. Mutants are graded in memory; only
    swap_calls (which changes what the tools see) is replayed. Each survivor
    comes with a check proven to pass the real run and fail the mutant.

    The gate: with --min-score, the suite's score must reach it; without, every
    fixture must kill at least one mutant of each operator that applies to it.

    \b
    Examples:
      zeroclaw eval mutate
      zeroclaw eval mutate --min-score 90 --format json > mutation.json
      zeroclaw eval mutate evals/regression/echo_single_dispatch_round_trip.json
    \b
    Exit codes: 0 the gate passes; 1 it fails, a fixture is rejected or does not
    pass, or there is no mutant to grade; 2 usage or configuration error.
    """
    from zeroclaw_eval.config.load import load_config
    from zeroclaw_eval.mutate.engine import mutate_suite
    from zeroclaw_eval.reporters.mutation import FORMATS
    from zeroclaw_eval.runner.project import run_options

    with exit_on_error(unnamed="a temporary folder"):
        loaded = load_config(config)
        targets = resolve_targets(paths, suite, loaded)
        options = run_options(loaded, agent_cmd=agent_cmd, keyword=keyword)
        with hint_on_missing_suite(loaded, config):
            report = mutate_suite(targets, options, min_score=min_score)
    from zeroclaw_eval.cli.outputs import in_github_actions, use_color
    from zeroclaw_eval.reporters.render import render

    painted = use_color(color)  # on stdout only, never in a file
    to_stdout = str(output) == "-"
    with exit_on_error():
        render(FORMATS[output_format], report, str(output), color=painted and to_stdout)
        if not to_stdout and output_format == "json":
            render(FORMATS["table"], report, "-", color=painted)
    if in_github_actions():
        # On stderr, which the runner reads too: stdout may be a JSON file.
        click.echo(FORMATS["github"](report), nl=False, err=True)
    if not report.fixtures and not report.rejected:
        for line in first_fixture_hints(targets, loaded, config):
            say(line)
    sys.exit(report.exit_code())
