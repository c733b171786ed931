"""`zeroclaw eval render`: a saved JSON report in other formats, without running anything."""

from __future__ import annotations

from pathlib import Path

import click

from zeroclaw_eval.cli.options import CONTEXT, exit_on_error, output_options


@click.command("render", context_settings=CONTEXT)
@click.argument("report_file", metavar="REPORT.json", type=click.Path(path_type=Path, dir_okay=False))
@output_options
def render_command(
    report_file: Path,
    fmt: str,
    output: str,
    reports: tuple[str, ...],
    annotations: bool | None,
    verbose: bool,
    quiet: bool,
    color: bool | None,
) -> None:
    """Render a saved JSON report in other formats, without running anything.

    The output is byte for byte what `zeroclaw eval run` writes for the same report.

    \b
    Examples:
      zeroclaw eval run --format json -o reports/eval.json
      zeroclaw eval render reports/eval.json --format html -o reports/eval.html
    """
    from zeroclaw_eval.report.saved import read_report
    from zeroclaw_eval.reporters.outputs import emit, plan_outputs

    with exit_on_error():
        outputs = plan_outputs(fmt, output, reports, verbose=verbose, quiet=quiet)
        report = read_report(report_file)
        emit(report, outputs, annotations=annotations, verbose=verbose, quiet=quiet, color=color)
