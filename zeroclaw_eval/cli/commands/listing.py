"""`zeroclaw eval list`: the cases a run would run, without running them.

Each case with its model_name, id and number of checks (pytest's `--collect-only`);
rejected fixtures are listed with their first problem, and make the exit code 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from zeroclaw_eval.cli.options import (
    CONTEXT,
    agent_cmd_option,
    color_option,
    config_option,
    exit_on_error,
    first_fixture_hints,
    hint_on_missing_suite,
    keyword_option,
    paths_argument,
    resolve_targets,
    suite_option,
)
from zeroclaw_eval.cli.say import say
from zeroclaw_eval.errors import ExitCode
from zeroclaw_eval.report.words import plural


@click.command("list", context_settings=CONTEXT)
@paths_argument
@suite_option()
@keyword_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="table: a line per case; json: a list of objects.",
)
@agent_cmd_option("The suite gates an agent command: its fixtures may name any tool. It is not run.")
@color_option
@config_option
def list_command(
    paths: tuple[Path, ...],
    suite: Path | None,
    keyword: str | None,
    fmt: str,
    agent_cmd: str | None,
    color: bool | None,
    config: Path | None,
) -> None:
    """List the cases a run would run (after -k), with their ids and checks.

    \b
    Examples:
      zeroclaw eval list
      zeroclaw eval list -k echo --format json
    \b
    Exit codes: 0 every listed fixture is admitted; 1 one is rejected; 2 usage or
    configuration error.
    """
    from zeroclaw_eval.collect.suite import display_path, fixture_files, load_fixtures
    from zeroclaw_eval.config.load import load_config

    with exit_on_error():
        loaded = load_config(config)
        from zeroclaw_eval.runner.project import fixture_tools

        known = fixture_tools(loaded, agent_cmd)
        targets = resolve_targets(paths, suite, loaded)
        with hint_on_missing_suite(loaded, config):
            files = fixture_files(targets)
        fixtures = load_fixtures(files, known, max_bytes=loaded.settings.max_fixture_bytes, keyword=keyword)
    entries = [_entry(fixture, display_path(fixture.path)) for fixture in fixtures]
    if fmt == "json":
        from zeroclaw_eval.reporters.safety import encodable, neutralize_json

        # As run's JSON report: the same strings, but nothing a CI log or terminal obeys.
        click.echo(encodable(neutralize_json(json.dumps(entries, indent=2, ensure_ascii=False))))
    else:
        from zeroclaw_eval.cli.outputs import use_color

        painted = use_color(color)
        # color= as well: click would strip the codes from a stdout that is no terminal.
        for entry in entries:
            click.echo(_line(entry, painted), color=painted)
        left_out = len(files) - len(fixtures)
        deselected = f", {left_out} deselected" if left_out else ""
        click.echo(f"\n{plural(len(entries), 'case')}{deselected}")
    if not files:  # on stderr: stdout may be JSON
        for line in first_fixture_hints(targets, loaded, config):
            say(line)
    sys.exit(ExitCode.gate(not any(entry["rejected"] for entry in entries)))


def _entry(fixture: Any, path: str) -> dict[str, Any]:
    """One listed fixture: a case with its checks, or a rejection with its problems."""
    from zeroclaw_eval.cases.case import Case
    from zeroclaw_eval.grading.vacuity import empty_run_grades

    if not isinstance(fixture, Case):
        problems = [problem.describe(path) for problem in fixture.problems]
        return {
            "name": fixture.name,
            "path": path,
            "model_name": fixture.model_name,
            "id": None,
            "checks": [],
            "rejected": problems,
        }
    checks = [grade.check_id for grade in empty_run_grades(fixture.trace)]
    return {
        "name": fixture.name,
        "path": path,
        "model_name": fixture.trace.model_name,
        "id": fixture.trace.id,
        "checks": checks,
        "rejected": [],
    }


def _line(entry: dict[str, Any], color: bool = False) -> str:
    """One listed case on one line: names and ids come from fixtures, so their control
    characters are shown, never obeyed (no line break can start a workflow command).
    With `color`, the model_name is dimmed and a rejection red, as in `run`'s table."""
    from zeroclaw_eval.reporters.paint import paint
    from zeroclaw_eval.reporters.safety import log_line

    tracked = f"  [{log_line(entry['id'])}]" if entry["id"] else ""
    label = f"  {paint(log_line(entry['model_name']), 'dim', color)}" if entry["model_name"] else ""
    path = log_line(entry["path"])
    if entry["rejected"]:
        rejected = f"(rejected: {log_line(entry['rejected'][0])})"
        return f"{path}{label}  {paint(rejected, 'red', color)}"
    return f"{path}{label}{tracked}  ({plural(len(entry['checks']), 'check')})"
