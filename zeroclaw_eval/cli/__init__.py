"""Stage 6: the `zeroclaw` command line, one module per command. Only the CLI prints
errors and picks the exit code.

Exit codes: 0 every case passed; 1 a check failed, a case errored, a fixture was
rejected, or the suite was empty; 2 the command or its configuration is unusable.
"""

from __future__ import annotations

import atexit
import gc
import importlib
from typing import Any

import click

from zeroclaw_eval._version import __version__
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


#: Each `zeroclaw eval` command, in the order `--help` lists them, and where it lives:
#: a command's module is imported when it runs, so a run pays for no other command.
COMMANDS = {
    "run": "run:run_command",
    "list": "listing:list_command",
    "render": "render:render_command",
    "compare": "compare:compare_command",
    "comment": "comment:comment_command",
    "merge": "merge:merge_command",
    "vacuity": "vacuity:vacuity_command",
    "mutate": "mutate:mutate_command",
    "serve": "serve:serve_command",
    "mcp": "mcp:mcp_command",
    "check": "check:check_command",
    "new": "new:new_command",
    "init": "init:init_command",
    "import": "import_traces:import_command",
    "calibrate": "live.calibrate:calibrate_group",
    "schema": "schema:schema_command",
}


class _Commands(click.Group):
    """The `eval` group, its commands imported on first use (click's lazy group)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        where = COMMANDS.get(cmd_name)
        if where is None:
            return None
        module, _, name = where.partition(":")
        command: click.Command = getattr(
            importlib.import_module(f"zeroclaw_eval.cli.commands.{module}"), name
        )
        return command


@main.group("eval", cls=_Commands, context_settings=CONTEXT)
def eval_group() -> None:
    """Replay JSON trace fixtures through an agent loop and grade them.

    A suite is a folder of *.json fixtures (direct children only). Settings come
    from [eval] in zeroclaw.toml or [tool.zeroclaw.eval] in pyproject.toml, found
    from the working directory upward to the repository root; flags override them
    (run -v says which file was read).
    """
