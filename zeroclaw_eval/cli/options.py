"""What every `zeroclaw eval` command shares: help settings, the options they have in
common, where the suite is, and how an error ends the process."""

from __future__ import annotations

import functools
import json
import os
import shlex
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from zeroclaw_eval.cli.say import say
from zeroclaw_eval.errors import EvalError, SystemProblem, UsageError
from zeroclaw_eval.report.saved import HISTORY_POINTS

if TYPE_CHECKING:  # imported when a command runs, to keep `zeroclaw --help` quick
    from zeroclaw_eval.config.load import LoadedConfig

F = TypeVar("F", bound=Callable[..., Any])
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def fail(error: EvalError) -> NoReturn:
    """Print `Error: …` on stderr (`say`) and exit with the error's code (never a traceback)."""
    say(f"Error: {error}")
    sys.exit(error.exit_code)


@contextmanager
def exit_on_error(*, unnamed: str = "") -> Iterator[None]:
    """End the command on an `EvalError` with its exit code, and on an `OSError` (the
    machine refused a file, a folder, a port) with `ExitCode.USAGE_ERROR`; never a traceback.

    `unnamed` says what the machine refused when the error names no file.
    """
    try:
        yield
    except EvalError as error:
        fail(error)
    except OSError as error:
        where = str(error.filename or unnamed)
        if not where.isprintable():  # a newline in a name must not start a line in a CI log
            where = json.dumps(where, ensure_ascii=False)
        fail(SystemProblem(f"{error.strerror or error}" + (f": {where}" if where else "")))


def resolve_suite(suite: Path | None, loaded: LoadedConfig) -> Path:
    """The suite folder: `--suite` when given, else `[eval].suite_dir` from the config."""
    return suite if suite is not None else loaded.resolve(loaded.settings.suite_dir)


def resolve_targets(paths: tuple[Path, ...], suite: Path | None, loaded: LoadedConfig) -> list[Path]:
    """What to run: the fixture files and folders given, else the suite."""
    if paths and suite is not None:
        raise UsageError("give fixture paths or --suite, not both")
    return list(paths) or [resolve_suite(suite, loaded)]


def first_fixture_hint(folder: Path, loaded: LoadedConfig, config: Path | None = None) -> str:
    """How to start a suite in `folder`, which holds no fixture or is not there:
    `zeroclaw eval new NAME` writes one into it (with `--suite` when it is not the
    configured suite, and the `--config` the command was given)."""
    from zeroclaw_eval.collect.suite import display_path

    flags = ["--config", str(config)] if config is not None else []
    if os.path.abspath(folder) != os.path.abspath(resolve_suite(None, loaded)):
        flags += ["--suite", display_path(folder)]
    command = shlex.join(["zeroclaw", "eval", "new", "NAME", *flags])
    return f"hint: `{command}` writes a first fixture into {display_path(folder)}"


def first_fixture_hints(
    targets: Iterable[Path], loaded: LoadedConfig, config: Path | None = None
) -> list[str]:
    """`first_fixture_hint` for each folder of `targets` that holds no fixture, nor
    subfolders that do (those are named by `nested_fixtures_hint` instead)."""
    from zeroclaw_eval.collect.suite import discover, nested_fixtures_hint

    return [
        first_fixture_hint(target, loaded, config)
        for target in targets
        if target.is_dir() and not discover(target) and nested_fixtures_hint(target) is None
    ]


@contextmanager
def hint_on_missing_suite(loaded: LoadedConfig, config: Path | None = None) -> Iterator[None]:
    """A suite folder that is not there ends the command as it did, with
    `first_fixture_hint` on the line after its error (`new` makes the folder)."""
    from zeroclaw_eval.errors import TargetNotFound

    try:
        yield
    except TargetNotFound as error:
        if error.target.suffix == ".json":  # a fixture file, not a suite to start
            raise
        hint = first_fixture_hint(error.target, loaded, config)
        raise TargetNotFound(f"{error}\n{hint}", error.target) from None


def paths_argument(command: F) -> F:
    """`[PATH]...`: fixture files or suite folders, in place of `--suite`."""
    return click.argument("paths", nargs=-1, type=click.Path(path_type=Path), metavar="[PATH]...")(command)


def keyword_option(command: F) -> F:
    """`-k EXPR`, pytest's keyword selection over file stem, model_name and id."""
    return click.option(
        "-k",
        "keyword",
        metavar="EXPR",
        help="Only the cases whose file stem, model_name or id matches EXPR: substrings"
        " joined by and/or/not and parentheses, as pytest's -k (case-insensitive).",
    )(command)


def agent_cmd_option(help_text: str) -> Callable[[F], F]:
    """`--agent-cmd CMD`, defaulting to `[eval].agent_cmd`."""
    return click.option("--agent-cmd", "agent_cmd", metavar="CMD", help=help_text)


@dataclass(frozen=True)
class AgentChoice:
    """Which agent `run` runs the cases through, as its command line says (each None:
    the configuration's)."""

    agent_cmd: str | None
    agent_io: str | None
    agent_service: str | None
    agent_service_protocol: str | None
    mcp: bool | None


def agent_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options that say how `run` reaches the agent: an agent command, an agent
    service, the MCP server of the case's tools. The command gets them as one `agent`
    (`AgentChoice`)."""

    @functools.wraps(command)
    def chosen(
        *args: Any,
        agent_cmd: str | None,
        agent_io: str | None,
        agent_service: str | None,
        agent_service_protocol: str | None,
        agent_a2a: str | None,
        mcp: bool | None,
        **kwargs: Any,
    ) -> Any:
        if agent_a2a is not None:
            # Shorthand for an agent service that speaks A2A.
            if agent_service is not None or agent_service_protocol not in (None, "a2a"):
                raise click.UsageError(
                    "--agent-a2a is --agent-service CMD --agent-service-protocol a2a; give one or the other"
                )
            agent_service, agent_service_protocol = agent_a2a, "a2a"
        agent = AgentChoice(agent_cmd, agent_io, agent_service, agent_service_protocol, mcp)
        return command(*args, agent=agent, **kwargs)

    options = [
        agent_cmd_option(
            "Run this command as the agent, once per case, against the case served on loopback"
            " (OPENAI_BASE_URL): any language or framework. [default: [eval].agent_cmd]"
        ),
        click.option(
            "--agent-io",
            type=click.Choice(["jsonl", "oneshot"]),
            help="How to talk to --agent-cmd: jsonl, a JSON line per turn on stdin and per answer on"
            " stdout; oneshot, the user input as the last argument and stdout as the answer."
            " [default: [eval].agent_io, else jsonl]",
        ),
        click.option(
            "--agent-service",
            metavar="CMD",
            help="Start this command once as an HTTP service listening on $PORT, and send it each"
            " turn (cases run one at a time). [default: [eval].agent_service]",
        ),
        click.option(
            "--agent-service-protocol",
            type=click.Choice(["json", "chat", "a2a"]),
            help="How a turn reaches --agent-service: json, POST {session, input} answered by"
            " {output}; chat, an OpenAI chat completion of the conversation so far; a2a, an"
            " A2A message in the case's context. [default: [eval].agent_service_protocol, else json]",
        ),
        click.option(
            "--agent-a2a",
            metavar="CMD",
            help="Start this command once as an A2A agent server listening on $PORT (its card at"
            " /.well-known/agent-card.json) and send it each turn as an A2A message:"
            " --agent-service CMD --agent-service-protocol a2a.",
        ),
        click.option(
            "--mcp/--no-mcp",
            default=None,
            help="Serve each case's tools as an MCP server too (streamable HTTP, its URL in"
            " ZEROCLAW_EVAL_MCP_URL), for an agent that takes its tools from MCP. [default: [eval].mcp]",
        ),
    ]
    for option in reversed(options):
        chosen = option(chosen)
    return chosen


def suite_option(help_text: str = "Folder of *.json fixtures.") -> Callable[[F], F]:
    """`--suite DIR`, defaulting to `[eval].suite_dir`."""
    return click.option(
        "--suite",
        type=click.Path(path_type=Path),
        help=f"{help_text} [default: [eval].suite_dir, else evals/regression]",
    )


config_option = click.option(
    "--config",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Read [eval] from this file (zeroclaw.toml, or [tool.zeroclaw.eval] in a pyproject.toml).",
)


color_option = click.option(
    "--color/--no-color",
    "color",
    default=None,
    help="Colour the text on stdout. [default: on a terminal and under GitHub Actions;"
    " FORCE_COLOR and NO_COLOR are honoured]",
)


def output_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options that say where a report goes (`run`, `render`, `merge`). The command
    gets them planned and checked, as one `outputs` (`cli.outputs.Outputs`); one
    that cannot work ends it with a usage error before anything runs."""

    @functools.wraps(command)
    def planned(
        *args: Any,
        fmt: str,
        output: str,
        reports: tuple[str, ...],
        annotations: bool | None,
        verbose: bool,
        quiet: bool,
        color: bool | None,
        otlp_endpoint: str | None,
        **kwargs: Any,
    ) -> Any:
        from zeroclaw_eval.cli.outputs import plan_outputs

        with exit_on_error():
            outputs = plan_outputs(
                fmt,
                output,
                reports,
                annotations=annotations,
                verbose=verbose,
                quiet=quiet,
                color=color,
                otlp_endpoint=otlp_endpoint,
            )
        return command(*args, outputs=outputs, **kwargs)

    options = [
        click.option(
            "--format",
            "fmt",
            default="table",
            show_default=True,
            metavar="FORMAT",
            help="Main output: table, json, junit, html, github, otlp, or a plugin's format.",
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
        click.option(
            "--verbose",
            "-v",
            is_flag=True,
            help="Show more in the table: every passing check, and where the agent raised.",
        ),
        click.option(
            "--quiet",
            "-q",
            is_flag=True,
            help="Show less in the table: only the cases that did not pass, and the summary.",
        ),
        color_option,
        click.option(
            "--otlp-endpoint",
            metavar="URL",
            help="Also send the report as OpenTelemetry traces (the otlp format) to this OTLP/HTTP"
            " collector, e.g. http://localhost:4318; headers from $OTEL_EXPORTER_OTLP_HEADERS. A"
            " collector that fails is a warning, never a failed gate.",
        ),
    ]
    for option in reversed(options):
        planned = option(planned)
    return planned


#: `report.baseline.FAIL_ON`, spelt out: importing that module (its dataclasses) would
#: slow every `zeroclaw --help`. A test holds the two equal.
FAIL_ON = ("any", "new-failures", "significant-regression")
#: `--fail-on cost-regression=PCT`: the cost bound, spelt as one more thing to fail on.
COST_REGRESSION = "cost-regression="


def _fail_on(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, float | None]:
    """`--fail-on`, repeatable: at most one of `FAIL_ON` (default `any`), and
    `cost-regression=PCT` (the cost bound `--max-cost-increase PCT` sets)."""
    mode: str | None = None
    percent: float | None = None
    for value in values:
        if value.startswith(COST_REGRESSION):
            text = value.removeprefix(COST_REGRESSION).strip().removesuffix("%")
            try:
                percent = float(text)
            except ValueError:
                percent = -1.0
            if not 0 <= percent < 1e9:  # NaN too
                raise click.BadParameter(
                    f"{value!r}: cost-regression takes a percentage, 0 or more, e.g. cost-regression=20",
                    ctx,
                    param,
                )
        elif value in FAIL_ON:
            if mode is not None and mode != value:
                raise click.BadParameter(
                    f"{mode!r} and {value!r}: give one of {', '.join(FAIL_ON)}", ctx, param
                )
            mode = value
        else:
            choices = ", ".join([*FAIL_ON, "cost-regression=PCT"])
            raise click.BadParameter(f"{value!r} is none of {choices}", ctx, param)
    return mode or FAIL_ON[0], percent


def baseline_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options that compare a run with an earlier one (`run`, `merge`). The command
    gets the baseline and the history read and checked, as one `comparison`
    (`report.saved.Comparison`), before anything runs: a bad file costs no replay, nor a
    live run's tokens."""

    @functools.wraps(command)
    def read(
        *args: Any,
        baseline: Path | None,
        fail_on: tuple[str, float | None],
        alpha: float,
        max_cost_increase: float | None,
        history: Path | None,
        **kwargs: Any,
    ) -> Any:
        from zeroclaw_eval.report.saved import plan_comparison

        mode, percent = fail_on
        if percent is not None and max_cost_increase is not None and percent != max_cost_increase:
            raise click.UsageError(
                f"--fail-on cost-regression={percent:g} and --max-cost-increase {max_cost_increase:g}"
                " say two bounds: give one"
            )
        bound = max_cost_increase if percent is None else percent
        with exit_on_error():
            comparison = plan_comparison(baseline, mode, history, alpha, bound)
        return command(*args, comparison=comparison, **kwargs)

    options = [
        click.option(
            "--baseline",
            type=click.Path(path_type=Path, exists=True, dir_okay=False),
            metavar="REPORT.json",
            help="Compare with an earlier run's JSON report: mark each case new failure, fixed,"
            " still failing, new or removed (matched by path, then by fixture id).",
        ),
        click.option(
            "--fail-on",
            multiple=True,
            callback=_fail_on,
            metavar="WHEN",
            help="any (the default): exit 1 when a case does not pass. new-failures: only on a new"
            " failure (a case that passed in the --baseline does not pass now, or a case not in it"
            " does not pass) or a rejected fixture: a ratchet, for suites not at 100%."
            " significant-regression (live suites, whose cases pass by chance): only when the cases"
            " the baseline shares fell more than noise explains (a one-sided paired sign test at"
            " --alpha), a case not in it does not pass, or a fixture is rejected."
            " cost-regression=PCT, given besides one of those: also when the run cost more than PCT"
            " percent above the baseline's (as --max-cost-increase PCT).",
        ),
        click.option(
            "--alpha",
            type=float,
            default=0.05,
            show_default=True,
            help="With --fail-on significant-regression: the chance of failing a change that made"
            " nothing worse (a false alarm) the gate accepts.",
        ),
        click.option(
            "--max-cost-increase",
            type=float,
            metavar="PCT",
            help="With --baseline: exit 1 when the run cost more than PCT percent above the"
            " baseline's (live runs with a priced provider; a run without a cost fails it too).",
        ),
        click.option(
            "--history",
            type=click.Path(path_type=Path, exists=True, dir_okay=False),
            metavar="FILE",
            help="Pass-rate history, a JSON line per earlier run with passed and total (as nox -s"
            f" eval_capability writes): the HTML report charts its last {HISTORY_POINTS} runs and this one.",
        ),
    ]
    for option in reversed(options):
        read = option(read)
    return read


def _jobs(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    """`--jobs`: a count of at least 1, or `auto` for one per CPU this process may use;
    None when not given (the run decides: `runner.options.default_jobs`)."""
    if value is None:
        return None
    text = value.strip()
    if text.lower() == "auto":
        from zeroclaw_eval.runner.workers import usable_cpus

        return usable_cpus()
    if text.isascii() and text.isdigit() and int(text) >= 1:
        return int(text)
    raise click.BadParameter(f"{value!r} is neither a count of at least 1 nor 'auto'", ctx, param)


jobs_option = click.option(
    "--jobs",
    "-j",
    callback=_jobs,
    default=None,
    metavar="N|auto",
    help="Cases to run at once, the report in fixture order: replayed cases run in N worker"
    " processes (forked, on Linux), live cases and agent commands N at a time in one process;"
    " auto: one per CPU this process may use (its affinity and cgroup quota)."
    " [default: auto for a replayed suite of 500 cases or more with the project's own agent,"
    " else 1]",
)
