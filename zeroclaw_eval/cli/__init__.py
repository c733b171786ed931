"""Stage 6: the `zeroclaw` command line, one module per command. Only the CLI prints
errors and picks the exit code.

Exit codes: 0 every case passed; 1 a check failed, a case errored, a fixture was
rejected, or the suite was empty; 2 the command or its configuration is unusable.
"""

from __future__ import annotations

import click

from zeroclaw_eval._version import __version__
from zeroclaw_eval.cli.check import check_command
from zeroclaw_eval.cli.common import CONTEXT
from zeroclaw_eval.cli.listing import list_command
from zeroclaw_eval.cli.mutate import mutate_command
from zeroclaw_eval.cli.new import new_command
from zeroclaw_eval.cli.render import render_command
from zeroclaw_eval.cli.run import run_command
from zeroclaw_eval.cli.schema import schema_command
from zeroclaw_eval.cli.serve import serve_command
from zeroclaw_eval.cli.vacuity import vacuity_command


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="zeroclaw-eval")
def main() -> None:
    """zeroclaw: regression gate for tool-calling agents."""


@main.group("eval", context_settings=CONTEXT)
def eval_group() -> None:
    """Replay JSON trace fixtures through an agent loop and grade them.

    A suite is a folder of *.json fixtures (direct children only). Settings come
    from [eval] in zeroclaw.toml or [tool.zeroclaw.eval] in pyproject.toml, found
    from the working directory upward to the repository root; flags override them
    (run -v says which file was read).
    """


for _command in (
    run_command,
    list_command,
    render_command,
    vacuity_command,
    mutate_command,
    serve_command,
    check_command,
    new_command,
    schema_command,
):
    eval_group.add_command(_command)
