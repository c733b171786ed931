"""`zeroclaw eval schema`: the fixture JSON Schema (`fixtures.schema`), for editors."""

from __future__ import annotations

from pathlib import Path

import click

from zeroclaw_eval.cli.options import CONTEXT, exit_on_error
from zeroclaw_eval.cli.say import say


@click.command("schema", context_settings=CONTEXT)
@click.option(
    "--output",
    "-o",
    "outputs",
    multiple=True,
    metavar="PATH",
    type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
    help="Write the schema to PATH (repeatable; parent folders are made) instead of stdout ('-').",
)
def schema_command(outputs: tuple[Path, ...]) -> None:
    """Print the JSON Schema (draft 2020-12) of a fixture file.

    The schema is generated from the models admission validates with: every key with
    its description, every object closed to unknown keys. Point your editor at it to
    get completion and validation while you write a fixture; `zeroclaw eval check`
    stays the judge, since it also checks what a schema cannot say (contradictory
    bounds, RE2 patterns, workspace paths, known tools). A fixture may name its
    schema in a top-level "$schema" key, which admission ignores.

    The installed package holds the same schema as
    zeroclaw_eval/cases/llmtrace.schema.json.

    \b
    Examples:
      zeroclaw eval schema > llmtrace.schema.json
      zeroclaw eval schema -o .vscode/llmtrace.schema.json
    \b
    Exit codes: 0 written; 2 a file could not be written.
    """
    from zeroclaw_eval.cases.schema import schema_text

    text = schema_text()
    with exit_on_error():
        for path in outputs or (Path("-"),):
            if str(path) == "-":
                click.echo(text, nl=False)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            # Bytes, so the file holds "\n" line ends on every system, as the committed copies do.
            path.write_bytes(text.encode("utf-8"))
            say(f"Wrote the fixture schema to {path}")
