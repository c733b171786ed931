"""`zeroclaw eval run`: run a suite, write its outputs, exit with the gate's verdict."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from zeroclaw_eval.cli.interrupts import handles_signals
from zeroclaw_eval.cli.options import (
    CONTEXT,
    AgentChoice,
    agent_options,
    baseline_options,
    config_option,
    exit_on_error,
    first_fixture_hints,
    hint_on_missing_suite,
    jobs_option,
    keyword_option,
    output_options,
    paths_argument,
    resolve_targets,
    suite_option,
)
from zeroclaw_eval.cli.say import say
from zeroclaw_eval.errors import ExitCode, UsageError

if TYPE_CHECKING:  # imported when the command runs, to keep `zeroclaw --help` quick
    from zeroclaw_eval.cli.interrupts import Stage
    from zeroclaw_eval.cli.outputs import Outputs
    from zeroclaw_eval.collect.collection import Fixture
    from zeroclaw_eval.report.resume import Earlier
    from zeroclaw_eval.report.saved import Comparison
    from zeroclaw_eval.reporters.progress import Progress


@click.command("run", context_settings=CONTEXT)
@handles_signals
@paths_argument
@suite_option()
@keyword_option
@click.option(
    "--exitfirst", "-x", is_flag=True, help="Stop starting cases after the first that does not pass."
)
@click.option(
    "--maxfail",
    type=click.IntRange(min=1),
    metavar="N",
    help="Stop starting cases after N have not passed (the rest are counted as not run).",
)
@click.option(
    "--mode",
    type=click.Choice(["replay", "live"]),
    help="replay: the scripted steps, no network. live: the provider named by [eval].live_provider,"
    " in a sandbox. [default: [eval].mode, else replay]",
)
@jobs_option
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    metavar="K",
    help="Live mode: run each case K times and report its pass rate, pass@k and pass^k; a case"
    " passes when every run did, or with --min-pass-rate when enough did.",
)
@click.option(
    "--min-pass-rate",
    type=click.FloatRange(0, 1, min_open=True),
    metavar="RATE",
    help="With --repeat: a case passes when this share of its runs passed (e.g. 0.8).",
)
@click.option(
    "--max-cost",
    type=float,
    metavar="USD",
    help="Live mode: the most the run may spend, its agents' and judges' requests together, at"
    " the providers' prices; once reached no case starts (they count as not run) and the gate fails.",
)
@click.option(
    "--shard",
    metavar="K/N",
    help="Run only part K of N of the suite (deterministic, balanced by size), for a CI matrix;"
    " `zeroclaw eval merge` combines the N JSON reports.",
)
@click.option(
    "--balance",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    metavar="REPORT.json",
    help="With --shard: balance the shards by each case's duration in this earlier JSON report"
    " (give every runner the same one), not by fixture size; a case it lacks is weighed by size.",
)
@click.option(
    "--resume",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    metavar="REPORT.json",
    help="Take up an earlier run of this suite (cut short, say): keep every case its JSON report"
    " has a result for, run the rest, and write one report of the whole.",
)
@click.option(
    "--rerun-failed",
    type=click.Path(path_type=Path, exists=True, dir_okay=False),
    metavar="REPORT.json",
    help="Run again only the cases that failed the gate in an earlier JSON report of this suite"
    " (and those it lacks), keeping the rest as it has them, and write one report of the whole.",
)
@click.option(
    "--record",
    "record_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Live mode: write each run as a replay fixture into this folder (secrets scrubbed).",
)
@click.option(
    "--rejudge",
    is_flag=True,
    help="Ask the judge model ([eval].judge_provider) every judge check again, and write its"
    " verdicts into the fixtures (review them like a snapshot update).",
)
@click.option(
    "--details",
    type=click.Choice(["failing", "all"]),
    default="failing",
    show_default=True,
    help="What the JSON report and the HTML page keep of passing cases: failing keeps every"
    " detail of the cases that did not pass and a compact record of the rest (their checks,"
    " tool calls and tokens); all keeps everything of every case.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show progress on stderr: a line that redraws on a terminal, a line per case in a log."
    " [default: on in live mode]",
)
@agent_options
@output_options
@baseline_options
@config_option
def run_command(
    paths: tuple[Path, ...],
    suite: Path | None,
    keyword: str | None,
    exitfirst: bool,
    maxfail: int | None,
    mode: str | None,
    jobs: int | None,
    repeat: int,
    min_pass_rate: float | None,
    max_cost: float | None,
    shard: str | None,
    balance: Path | None,
    resume: Path | None,
    rerun_failed: Path | None,
    record_dir: Path | None,
    rejudge: bool,
    details: str,
    progress: bool | None,
    agent: AgentChoice,
    outputs: Outputs,
    comparison: Comparison,
    config: Path | None,
    stage: Stage,
) -> None:
    """Run a suite, or the fixture files and folders given, and exit 0 only if every
    case passed.

    \b
    Examples:
      zeroclaw eval run
      zeroclaw eval run evals/regression/echo_single_dispatch_round_trip.json -v
      zeroclaw eval run -k "echo and not unicode" -x
      zeroclaw eval run --format junit > reports/eval.xml
      zeroclaw eval run --report junit=reports/eval.xml --report html=reports/eval.html
      zeroclaw eval run --mode live --suite evals/live --jobs 8 --record evals/recorded
      zeroclaw eval run --agent-cmd "node agent.mjs" --jobs 4
      zeroclaw eval run --jobs auto
      zeroclaw eval run --baseline reports/previous.json --fail-on new-failures
      zeroclaw eval run --shard 2/4 --report json=reports/shard-2.json
      zeroclaw eval run --shard 2/4 --balance reports/main.json --report json=shard-2.json
      zeroclaw eval run --mode live --resume reports/partial.json --report json=reports/eval.json
      zeroclaw eval run --rerun-failed reports/eval.json --report json=reports/eval.json
      zeroclaw eval run --mode live --suite evals/live --repeat 5 --min-pass-rate 0.8
      zeroclaw eval run --mode live --suite evals/live --max-cost 5
      zeroclaw eval run --suite evals/live --rejudge
      zeroclaw eval run --report json=reports/eval.json --details all
    \b
    Exit codes: 0 all cases passed; 1 a check failed, a run errored, a fixture
    was rejected, or the suite held no fixtures (with --fail-on new-failures: a
    case that passed in the baseline does not, or a fixture was rejected); 2 usage
    or configuration error; 130/143 stopped by SIGINT/SIGTERM (the outputs hold
    the cases that finished).
    """
    from zeroclaw_eval.cli.interrupts import held_signals
    from zeroclaw_eval.cli.outputs import emit
    from zeroclaw_eval.collect.sharding import Shard
    from zeroclaw_eval.collect.suite import display_path, nested_fixtures_hint
    from zeroclaw_eval.config.load import load_config
    from zeroclaw_eval.report.resume import check_same_suite, resumed
    from zeroclaw_eval.report.words import plural
    from zeroclaw_eval.runner.options import concurrency_words, default_jobs, refuse_record_without_live
    from zeroclaw_eval.runner.project import run_options, settings_digest
    from zeroclaw_eval.runner.suite import collect, run_collected

    with exit_on_error():
        loaded = load_config(config)
        # "Was my config even read?" is the first question when a setting seems ignored.
        if outputs.verbose:
            say(loaded.describe())
        live = mode == "live" or (mode is None and loaded.settings.mode == "live")
        refuse_record_without_live(live, record_dir)  # before anything asks for a provider
        settings = settings_digest(loaded, agent, live=live, repeat=repeat, min_pass_rate=min_pass_rate)
        # Read and checked before anything runs.
        earlier = _earlier(resume, rerun_failed, settings, repeat, min_pass_rate)
        shown = _progress(progress if progress is not None else live)
        recorded = _Recorded()
        options = run_options(
            loaded,
            agent_cmd=agent.agent_cmd,
            agent_io=agent.agent_io,
            agent_service=agent.agent_service,
            agent_service_protocol=agent.agent_service_protocol,
            mcp=agent.mcp,
            live=live,
            rejudge=rejudge,
            jobs=jobs or 1,
            keyword=keyword,
            maxfail=_maxfail(exitfirst, maxfail),
            stop_on_signals=True,
            shard=Shard.parse(shard) if shard is not None else None,
            shard_durations=_durations(balance, shard),
            skip=earlier.skipped if earlier is not None else frozenset(),
            settings_sha256=settings,
            repeat=repeat,
            min_pass_rate=min_pass_rate,
            max_cost_usd=max_cost,
            record_dir=record_dir,
            on_recorded=recorded if record_dir is not None else None,
            on_case_done=shown,
            on_selected=shown.expect if shown is not None else None,
            details=details,
            # Nothing shows a passing case's details: each is kept compact once graded.
            keep_passing=details == "all" or outputs.show_passing_details(),
        )
        if shown is not None and live:
            shown.watch(lambda: concurrency_words(options))  # each provider's limit, as it adapts
        targets = resolve_targets(paths, suite, loaded)
        with hint_on_missing_suite(loaded, config):
            collection = collect(targets, options)  # a path that names nothing fails here, before any case
        if jobs is None:
            options = replace(options, jobs=default_jobs(options, len(collection.selected)))
        fixtures = [display_path(path) for path in collection.files] if earlier is not None else []
        if earlier is not None:
            info = collection.shard
            sharded = (info.index, info.count, collection.digest or "") if info is not None else None
            label, mode_ran = collection.label, options.mode
            check_same_suite(earlier, label=label, mode=mode_ran, shown=fixtures, shard=sharded)
        report = run_collected(collection, options)
        if earlier is not None:
            report = resumed(earlier, report, fixtures)
            say(
                f"{earlier.option}: kept {plural(len(earlier.kept), 'case')} of {earlier.path},"
                f" ran {len(report.cases) - len(earlier.kept)}"
            )
        comparison.apply(report)
        with held_signals() as held:  # every output written, or none is newer than another
            emit(report, outputs)
        stage.written = True
        if report.interrupted is not None:
            say(
                f"Interrupted by {report.interrupted}: {plural(len(report.cases), 'case')} finished,"
                f" {report.not_run} not run; the reports are partial (marked interrupted)"
            )
        if not collection.files:
            hint = nested_fixtures_hint(targets[0]) if len(targets) == 1 else None
            if hint is not None:
                say(f"note: {hint}")
            for line in first_fixture_hints(targets, loaded, config):
                say(line)
    if record_dir is not None:
        say(f"Recorded {recorded.count} run(s) as fixtures in {record_dir}")
    # A signal held while the outputs were written is honoured now.
    sys.exit(ExitCode.stopped_by(held[0]) if held else report.exit_code())


def _earlier(
    resume: Path | None, rerun_failed: Path | None, settings: str, repeat: int, min_pass_rate: float | None
) -> Earlier | None:
    """The earlier report `--resume` or `--rerun-failed` takes up, read strictly, for a run
    with `settings` (its digest), `repeat` and `min_pass_rate`."""
    if resume is not None and rerun_failed is not None:
        raise UsageError(
            "--resume keeps every case an earlier report has, --rerun-failed only those that passed; give one"
        )
    if resume is None and rerun_failed is None:
        return None
    from zeroclaw_eval.report.resume import read_earlier

    path = rerun_failed or resume
    assert path is not None
    failed_only = rerun_failed is not None
    return read_earlier(
        path, failed_only=failed_only, settings=settings, repeat=repeat, min_pass_rate=min_pass_rate
    )


def _durations(balance: Path | None, shard: str | None) -> dict[str, float] | None:
    """`--balance`: each case's duration in the report, by its path as reports show it."""
    if balance is None:
        return None
    if shard is None:
        raise UsageError("--balance weighs the shards of --shard K/N; give --shard too")
    from zeroclaw_eval.report.saved import read_report

    earlier = read_report(balance, role="--balance ")
    return {case.path.replace("\\", "/"): case.duration_ms for case in earlier.cases}


def _maxfail(exitfirst: bool, maxfail: int | None) -> int | None:
    """`-x` is `--maxfail 1`; both at once say two things."""
    if exitfirst and maxfail is not None:
        raise UsageError("-x is --maxfail 1; give -x or --maxfail N, not both")
    return 1 if exitfirst else maxfail


def _progress(shown: bool) -> Progress | None:
    """Progress on stderr, when it is to be shown: a line redrawn on a terminal, a line per
    case in a log."""
    if not shown:
        return None
    from zeroclaw_eval.reporters.progress import Progress

    return Progress(0, sys.stderr, tty=sys.stderr.isatty())  # the total comes with the selection


class _Recorded:
    """`--record`: counts the runs written as fixtures, and says which one was not."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, fixture: Fixture, path: Path | None) -> None:
        if path is not None:
            self.count += 1
            return
        from zeroclaw_eval.reporters.safety import log_line

        say(
            f"Not recorded: {log_line(fixture.name)} was failed by the sandbox denying a tool call,"
            " which replay has no approval gate to repeat"
        )
