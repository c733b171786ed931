"""`zeroclaw eval render`: a saved JSON report in other formats, without running anything."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from zeroclaw_eval.cli.options import CONTEXT, exit_on_error, output_options

if TYPE_CHECKING:
    from zeroclaw_eval.cli.outputs import Outputs


@click.command("render", context_settings=CONTEXT)
@click.argument("report_file", metavar="REPORT.json", type=click.Path(path_type=Path, dir_okay=False))
@output_options
def render_command(report_file: Path, outputs: Outputs) -> None:
    """Render a saved JSON report in other formats, without running anything.

    The output is byte for byte what `zeroclaw eval run` writes for the same report.

    \b
    Examples:
      zeroclaw eval run --format json -o reports/eval.json
      zeroclaw eval render reports/eval.json --format html -o reports/eval.html
    """
    from zeroclaw_eval.cli.outputs import emit
    from zeroclaw_eval.report.saved import read_report

    with exit_on_error():
        report = read_report(report_file)
        emit(report, outputs)
