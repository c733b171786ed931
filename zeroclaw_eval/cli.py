"""The `zeroclaw` command line. Only this module prints errors and picks the exit code.

Exit codes: 0 every case passed; 1 a check failed, a case errored, a fixture was
rejected, or the suite was empty; 2 the command or its configuration is unusable.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from zeroclaw_eval import __version__
from zeroclaw_eval.cli_common import CONTEXT, config_option, fail, suite_option
from zeroclaw_eval.cli_live import serve_command
from zeroclaw_eval.cli_vacuity import vacuity_command
from zeroclaw_eval.errors import EvalError, ReporterError, SystemProblem, UsageError

if TYPE_CHECKING:
    from zeroclaw_eval.admission import RejectedFixture
    from zeroclaw_eval.outputs import Output
    from zeroclaw_eval.report import CaseReport, SuiteReport
    from zeroclaw_eval.runner import CaseDone, LiveOptions


def _use_color(output: str) -> bool:
    # https://no-color.org: any non-empty NO_COLOR turns colour off.
    return output == "-" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="zeroclaw-eval")
def main() -> None:
    """zeroclaw: regression gate for tool-calling agents."""


@main.group("eval", context_settings=CONTEXT)
def eval_group() -> None:
    """Replay JSON trace fixtures through an agent loop and grade them.

    A suite is a folder of *.json fixtures (direct children only). Settings come
    from [eval] in zeroclaw.toml or [tool.zeroclaw.eval] in pyproject.toml in the
    working directory; flags override them.
    """


def _output_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options that say where a report goes, shared by `run` and `render`."""
    options = [
        click.option(
            "--format",
            "fmt",
            default="table",
            show_default=True,
            metavar="FORMAT",
            help="Main output: table, json, junit, html, github, or a plugin's format.",
        ),
        click.option(
            "--output",
            "-o",
            default="-",
            metavar="PATH",
            help="Write the main output to PATH instead of stdout ('-').",
        ),
        click.option(
            "--report",
            "reports",
            multiple=True,
            metavar="FORMAT=PATH",
            help="Also write FORMAT to PATH (repeatable), e.g. --report junit=reports/eval.xml.",
        ),
        click.option(
            "--annotations/--no-annotations",
            default=None,
            help="Print GitHub annotations to stderr and append the step summary."
            " [default: on when GITHUB_ACTIONS=true]",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _emit(report: SuiteReport, outputs: list[Output], annotations: bool | None) -> None:
    from zeroclaw_eval.outputs import emit

    stdout_is_main = outputs[0].path == "-"
    emitted = emit(report, outputs, annotations=annotations, color=stdout_is_main and _use_color("-"))
    for output, path in emitted.written:
        click.echo(f"Wrote {output.fmt} to {path}", err=True)
    if emitted.failed:
        raise ReporterError("\n".join(emitted.failed))


def _plan(fmt: str, output: str, reports: tuple[str, ...]) -> list[Output]:
    from zeroclaw_eval.outputs import Output, parse_report_option, plan

    return plan(Output(fmt, output), [parse_report_option(spec) for spec in reports])


@eval_group.command("run", context_settings=CONTEXT)
@suite_option()
@click.option(
    "--mode",
    type=click.Choice(["replay", "live"]),
    help="replay: the scripted steps, no network. live: the provider named by [eval].live_provider,"
    " in a sandbox. [default: [eval].mode, else replay]",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Cases to run at once (live mode waits on the network; the report keeps fixture order).",
)
@click.option(
    "--record",
    "record_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Live mode: write each run as a replay fixture into this folder (secrets scrubbed).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show progress on stderr: a line that redraws on a terminal, a line per case in a log."
    " [default: on in live mode]",
)
@_output_options
@config_option
def run_command(
    suite: Path | None,
    mode: str | None,
    jobs: int,
    record_dir: Path | None,
    progress: bool | None,
    fmt: str,
    output: str,
    reports: tuple[str, ...],
    annotations: bool | None,
    config: Path | None,
) -> None:
    """Run a suite and exit 0 only if every case passed.

    \b
    Examples:
      zeroclaw eval run
      zeroclaw eval run --format junit > reports/eval.xml
      zeroclaw eval run --report junit=reports/eval.xml --report html=reports/eval.html
      zeroclaw eval run --mode live --suite evals/live --jobs 8 --record evals/recorded
    \b
    Exit codes: 0 all cases passed; 1 a check failed, a run errored, a fixture
    was rejected, or the suite held no fixtures; 2 usage or configuration error.
    """
    from zeroclaw_eval.agent import load_agent_factory, reference_agent
    from zeroclaw_eval.config import load_config
    from zeroclaw_eval.runner import RunOptions, discover, run_suite

    try:
        outputs = _plan(fmt, output, reports)
        loaded = load_config(config)
        settings = loaded.settings
        live = mode == "live" or (mode is None and settings.mode == "live")
        if record_dir is not None and not live:
            raise UsageError("--record writes what a live run got back; use it with --mode live")
        live_settings = None
        if live:
            from zeroclaw_eval.cli_live import live_options

            live_settings = live_options(loaded)
        suite_dir = suite if suite is not None else loaded.resolve(settings.suite_dir)
        factory = load_agent_factory(settings.agent, loaded.base_dir) if settings.agent else reference_agent
        recorded: list[Path] = []
        hooks = _case_hooks(
            len(discover(suite_dir)),
            progress if progress is not None else live,
            record_dir,
            live_settings,
            recorded,
        )
        options = RunOptions(
            mode="live" if live else "replay",
            agent_factory=factory,
            case_timeout_secs=settings.case_timeout_secs,
            max_tool_iterations=settings.max_tool_iterations,
            jobs=jobs,
            live=live_settings,
            on_case_done=hooks,
        )
        report = run_suite(suite_dir, options)
        _emit(report, outputs, annotations)
    except EvalError as error:
        fail(error)
    except OSError as error:
        fail(SystemProblem(f"{error.strerror or error}: {error.filename}"))
    if record_dir is not None:
        click.echo(f"Recorded {len(recorded)} run(s) as fixtures in {record_dir}", err=True)
    sys.exit(report.exit_code())


def _case_hooks(
    total: int, progress: bool, record_dir: Path | None, live: LiveOptions | None, recorded: list[Path]
) -> CaseDone | None:
    """What to do as each case finishes: show progress, record the run as a fixture
    (appending the files written to `recorded`)."""
    from zeroclaw_eval.admission import Case
    from zeroclaw_eval.progress import Progress

    shown = Progress(total, sys.stderr, tty=sys.stderr.isatty()) if progress else None
    if shown is None and record_dir is None:
        return None

    def done(fixture: Case | RejectedFixture, report: CaseReport) -> None:
        if record_dir is not None and live is not None and isinstance(fixture, Case) and report.record:
            from zeroclaw_eval.recording import write_recording

            path = write_recording(record_dir, fixture, report.record, [live.api_key], live.allowed_tools)
            if path is not None:
                recorded.append(path)
            else:
                click.echo(
                    f"Not recorded: {fixture.name} was failed by the sandbox denying a tool call,"
                    " which replay has no approval gate to repeat",
                    err=True,
                )
        if shown is not None:
            shown(fixture, report)

    return done


@eval_group.command("render", context_settings=CONTEXT)
@click.argument("report_file", metavar="REPORT.json", type=click.Path(path_type=Path, dir_okay=False))
@_output_options
def render_command(
    report_file: Path, fmt: str, output: str, reports: tuple[str, ...], annotations: bool | None
) -> None:
    """Render a saved JSON report in other formats, without running anything.

    The output is byte for byte what `zeroclaw eval run` writes for the same report.

    \b
    Examples:
      zeroclaw eval run --format json -o reports/eval.json
      zeroclaw eval render reports/eval.json --format html -o reports/eval.html
    """
    from zeroclaw_eval.report import report_from_dict

    try:
        outputs = _plan(fmt, output, reports)
        try:
            data = json.loads(report_file.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UsageError(f"cannot read {report_file}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise UsageError(f"{report_file} is not a JSON report: {exc}") from None
        try:
            report = report_from_dict(data)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise UsageError(f"{report_file} is not a zeroclaw-eval JSON report: {exc}") from None
        _emit(report, outputs, annotations)
    except EvalError as error:
        fail(error)
    except OSError as error:
        fail(SystemProblem(f"{error.strerror or error}: {error.filename}"))


eval_group.add_command(vacuity_command)
eval_group.add_command(serve_command)
