"""Stage 6: the `zeroclaw` command line, one module per command. Only the CLI prints
errors and picks the exit code.

Exit codes: 0 every case passed; 1 a check failed, a case errored, a fixture was
rejected, or the suite was empty; 2 the command or its configuration is unusable.
"""

from __future__ import annotations

import atexit
import gc
from typing import Any

import click

from zeroclaw_eval._version import __version__
from zeroclaw_eval.cli.commands.check import check_command
from zeroclaw_eval.cli.commands.comment import comment_command
from zeroclaw_eval.cli.commands.compare import compare_command
from zeroclaw_eval.cli.commands.import_traces import import_command
from zeroclaw_eval.cli.commands.listing import list_command
from zeroclaw_eval.cli.commands.mcp import mcp_command
from zeroclaw_eval.cli.commands.merge import merge_command
from zeroclaw_eval.cli.commands.mutate import mutate_command
from zeroclaw_eval.cli.commands.new import new_command
from zeroclaw_eval.cli.commands.render import render_command
from zeroclaw_eval.cli.commands.run import run_command
from zeroclaw_eval.cli.commands.schema import schema_command
from zeroclaw_eval.cli.commands.serve import serve_command
from zeroclaw_eval.cli.commands.vacuity import vacuity_command
from zeroclaw_eval.cli.options import CONTEXT

#: Young objects allocated before a collection, and young (then middle) collections
#: before an older one; Python's defaults are (700, 10, 10).
_GC_THRESHOLDS = (50_000, 20, 100)


class _Main(click.Group):
    """The `zeroclaw` group: every invocation, `--help` included, tunes the collector first."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        _tune_gc()
        return super().main(*args, **kwargs)


@click.group(cls=_Main, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="zeroclaw-eval")
def main() -> None:
    """zeroclaw: regression gate for tool-calling agents."""


def _tune_gc() -> None:
    # A run holds every case's report until the end and keeps making short-lived objects:
    # with Python's default thresholds the collector walks that growing heap again and
    # again (a third of a 10,000-case run). Collecting less often keeps the cost linear;
    # cycles are still collected.
    gc.set_threshold(*_GC_THRESHOLDS)


def entry() -> None:
    """The console scripts and `python -m zeroclaw_eval`: `main` in a process of its own."""
    # At exit the interpreter collects once more over every object still alive (modules,
    # models, the report): a sixth of a short run. Frozen, they are skipped, and so are
    # the finalizers of whatever cycles are left, which the command's own code never
    # relies on (reports are written and closed before it returns). Only here: a process
    # that calls `main` itself (a test runner, a host program) keeps its own exit.
    atexit.register(gc.freeze)
    main()


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
    compare_command,
    comment_command,
    merge_command,
    vacuity_command,
    mutate_command,
    serve_command,
    mcp_command,
    check_command,
    new_command,
    import_command,
    schema_command,
):
    eval_group.add_command(_command)
