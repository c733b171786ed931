"""`zeroclaw eval merge`: the JSON reports of a sharded run (`run --shard K/N`) as the
report of the whole suite, in any format, with the exit code of the whole."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from zeroclaw_eval.cli.options import CONTEXT, baseline_options, exit_on_error, output_options

if TYPE_CHECKING:
    from zeroclaw_eval.cli.outputs import Outputs
    from zeroclaw_eval.report.saved import Comparison


@click.command("merge", context_settings=CONTEXT)
@click.argument(
    "report_files",
    nargs=-1,
    required=True,
    metavar="SHARD.json...",
    type=click.Path(path_type=Path, dir_okay=False),
)
@output_options
@baseline_options
def merge_command(report_files: tuple[Path, ...], outputs: Outputs, comparison: Comparison) -> None:
    """Merge the JSON reports of every shard of a suite into one report.

    Each shard of a CI matrix runs `zeroclaw eval run --shard K/N --report
    json=shard-K.json`; a final job merges them and writes the outputs once (JUnit,
    HTML, annotations, step summary), as one unsharded run would have. Merging is
    refused when a shard is missing or given twice, or when the reports come from
    different suites (each records a digest of the suite's fixture list).

    \b
    Examples:
      zeroclaw eval merge shard-*.json
      zeroclaw eval merge shard-*.json --report junit=reports/eval.xml --report html=reports/eval.html
      zeroclaw eval merge shard-*.json --baseline reports/main.json --fail-on new-failures
    \b
    Exit codes: 0 every case of the suite passed; 1 a case did not pass (as `run`);
    2 the reports cannot be merged, or usage error.
    """
    from zeroclaw_eval.cli.outputs import emit
    from zeroclaw_eval.report.merge import merge_reports
    from zeroclaw_eval.report.saved import read_report

    with exit_on_error():
        merged = merge_reports([(str(path), read_report(path)) for path in report_files])
        comparison.apply(merged)  # a shard compared alone would call the other shards' cases removed
        emit(merged, outputs)
    sys.exit(merged.exit_code())
