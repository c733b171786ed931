"""`--jobs N|auto`: how many cases `zeroclaw eval run` runs at once."""

from __future__ import annotations

import os

import click


def _jobs(ctx: click.Context, param: click.Parameter, value: str) -> int:
    """`--jobs`: a count of at least 1, or `auto` for one per CPU this process may use."""
    text = value.strip()
    if text.lower() == "auto":
        return usable_cpus()
    if text.isascii() and text.isdigit() and int(text) >= 1:
        return int(text)
    raise click.BadParameter(f"{value!r} is neither a count of at least 1 nor 'auto'", ctx, param)


def usable_cpus() -> int:
    """The CPUs this process may run on (at least 1): its affinity, which a container or
    `taskset` narrows, rather than every CPU of the machine."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity on macOS and Windows: every CPU counts
        return max(1, os.cpu_count() or 1)


jobs_option = click.option(
    "--jobs",
    "-j",
    callback=_jobs,
    default="1",
    show_default=True,
    metavar="N|auto",
    help="Cases to run at once, the report in fixture order: replayed cases run in N worker"
    " processes (forked, on Linux), live cases and agent commands N at a time in one process;"
    " auto: one per CPU this process may use.",
)
