"""How a run is asked for (`RunOptions`), and what one run's cases share while it lasts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from zeroclaw_eval.agent.settings import CaseSettings, ExternalAgent
from zeroclaw_eval.backends.concurrency import AdaptiveLimit
from zeroclaw_eval.boundary.provider import Provider
from zeroclaw_eval.cases.limits import DEFAULT_MAX_FIXTURE_BYTES
from zeroclaw_eval.collect.collection import Fixture
from zeroclaw_eval.collect.sharding import Shard
from zeroclaw_eval.config.settings import LiveOptions
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.grading.judges.gate import ALWAYS, JudgeGate
from zeroclaw_eval.report.model import DETAILS, DETAILS_ALL, DETAILS_FAILING, CaseReport
from zeroclaw_eval.report.repeats import check_repeat
from zeroclaw_eval.runner.judging import Judges

if TYPE_CHECKING:
    from zeroclaw_eval.runner.workers import Board

#: Called as each case finishes, with the fixture as this process holds it: loaded, or
#: still its path when a worker process read it and ran the case (`--jobs N` in replay).
CaseDone = Callable[[Fixture, CaseReport], None]
#: Where the per-case loop puts a finished case (None: left out past `maxfail`).
Settle = Callable[[int, Fixture, "CaseReport | None"], None]


@dataclass(frozen=True, kw_only=True)
class RunOptions(CaseSettings):
    """How to run a suite: how each case runs (`CaseSettings`: the agent, its limits, the
    tools, live mode), and what the run itself is asked for. The CLI builds it once from
    the configuration and the command line (`runner.project.run_options`)."""

    mode: str = "replay"
    #: The largest fixture file admitted (`[eval].max_fixture_bytes`).
    max_fixture_bytes: int = DEFAULT_MAX_FIXTURE_BYTES
    #: Cases run at once (the report keeps fixture order whatever the completion order).
    jobs: int = 1
    #: Called as each case finishes (progress, recording).
    on_case_done: CaseDone | None = None
    #: Called once the cases to run are known (after `-k`), with how many there are.
    on_selected: Callable[[int], None] | None = None
    #: A `-k` expression: only the cases whose file stem, model_name or id it matches run.
    keyword: str | None = None
    #: Stop starting cases once this many fail the gate (`-x` is 1); None: run all.
    maxfail: int | None = None
    #: On SIGINT or SIGTERM, cancel the running cases (each removes its workspace) and
    #: return a report of the finished ones, marked `interrupted` (the CLI's choice);
    #: False keeps Python's own behaviour (SIGINT raises `KeyboardInterrupt`).
    stop_on_signals: bool = False
    #: Run only this part of the suite (`--shard K/N`); None: all of it.
    shard: Shard | None = None
    #: `--balance`: each case's duration in an earlier report (ms, by shown path), which
    #: the shards are balanced by in place of fixture sizes.
    shard_durations: Mapping[str, float] | None = None
    #: The cases not to run (shown paths): those an earlier report keeps (`--resume`,
    #: `--rerun-failed`, `report.resume`).
    skip: frozenset[str] = frozenset()
    #: What the run's verdicts hang on besides its fixtures (`project.settings_digest`),
    #: kept in its report for `--resume`; None where nobody computed it (the Python API).
    settings_sha256: str | None = None
    #: Live mode: runs of each case (`--repeat`), and the share that must pass (None: all).
    repeat: int = 1
    min_pass_rate: float | None = None
    #: Live mode: write each case's run into this folder as a replay fixture (`--record`),
    #: secrets scrubbed.
    record_dir: Path | None = None
    #: Called as each live run is recorded: with the file written, or None when the
    #: sandbox failed the run by denying a call (which replay has no approval gate to repeat).
    on_recorded: Callable[[Fixture, Path | None], None] | None = None

    #: The judge models `judge` checks are asked (live mode, `--rejudge`); None: replay
    #: grades them by their recorded verdicts alone.
    judges: Judges | None = None
    #: Which judge checks decide a case (`[eval].judge_gate`, with the calibrations read:
    #: `runner.project.run_options` builds it from the configuration); the rest are
    #: reported as diagnostic. Options built by hand, which read no configuration, let
    #: every judge check decide (`always`): a library default fails closed.
    judge_gate: JudgeGate = field(default_factory=lambda: JudgeGate(ALWAYS))
    #: Live mode: the most the run may spend, its agents' and judges' requests together, in
    #: US dollars (`--max-cost`); once reached no case starts, and the gate fails.
    max_cost_usd: float | None = None
    #: Live mode: the adaptive limit on each provider's open requests, by provider (`live`
    #: for the agent's, a judge's by its table), made as first used and shared by every
    #: case of the run; progress reads it (`backends.concurrency`).
    limits: dict[str, AdaptiveLimit] = field(default_factory=dict, compare=False)
    #: Whether a model could play a fixture's simulated user (`[eval].live_provider` names
    #: a table): where none could, admission refuses a case that has one.
    user_models: bool = False
    #: What the JSON report and the HTML page keep of passing cases (`--details`):
    #: `failing` writes them compact (`report.compact`), `all` whole.
    details: str = DETAILS_FAILING
    #: Whether the report keeps each passing case whole in memory. A run whose outputs
    #: show no passing case's details (the CLI's choice) keeps them compact instead, from
    #: the moment each is graded, so its memory does not grow with the records.
    keep_passing: bool = True

    def __post_init__(self) -> None:
        refuse_live_agent_cmd(self.live is not None, self.agent_cmd)
        refuse_record_without_live(self.live is not None, self.record_dir)
        super().__post_init__()
        check_repeat(self.repeat, self.min_pass_rate, live=self.live is not None)
        check_max_cost(self.max_cost_usd, self.live)
        if self.details not in DETAILS:
            raise UsageError(f"details must be one of {', '.join(DETAILS)}, not {self.details!r}")
        if self.details == DETAILS_ALL and not self.keep_passing:
            raise UsageError("a report with every case's details must keep passing cases whole")


def concurrency_words(options: RunOptions) -> str:
    """The run's adaptive limits as progress shows them (`concurrency 4/16, 2 waiting`);
    "" before any live request."""
    from zeroclaw_eval.backends.concurrency import describe

    return describe(options.limits)


def check_max_cost(bound: float | None, live: LiveOptions | None) -> None:
    """`UsageError` for a cost bound a run cannot keep: one not 0 or more, or on a run
    that bills nothing (a replay) or has no prices to count with."""
    if bound is None:
        return
    if not 0 <= bound < 1e12:  # NaN too
        raise UsageError(f"--max-cost {bound:g}: an amount in US dollars, 0 or more")
    if live is None:
        raise UsageError("--max-cost bounds what a live run spends; a replay spends nothing (--mode live)")
    if live.provider.prices is None:
        raise UsageError(
            "--max-cost needs the live provider's prices to count with: add a"
            " [providers.models.NAME.prices] table (input and output, US dollars per million tokens)"
        )


#: From this many selected cases on, a replayed suite with the project's own agent runs in
#: one worker process per usable CPU when `--jobs` is not given. Below it, forking the
#: workers and handing their reports back cost about what they save; at 1,000 cases two
#: workers made a run 1.0x to 1.4x as fast, at 10,000 1.5x to 1.9x (`benchmarks/targets.py`).
AUTO_JOBS_FROM = 500


def default_jobs(options: RunOptions, cases: int) -> int:
    """How many cases run at once when `--jobs` is not given: one per usable CPU for a
    replayed suite of `AUTO_JOBS_FROM` cases or more with the project's own agent (CPU
    work, which workers share out); otherwise one. Live mode and agent commands wait on
    a provider or a process: running them at once is the user's call (a provider's rate
    limit, a service started once)."""
    if options.live is not None or options.agent_cmd is not None or cases < AUTO_JOBS_FROM:
        return 1
    from zeroclaw_eval.runner.workers import usable_cpus  # only a large suite pays for the import

    return usable_cpus()


def refuse_live_agent_cmd(live: bool, agent_cmd: ExternalAgent | None) -> None:
    """Live mode is not offered for an agent command: `UsageError` when both are asked for."""
    if live and agent_cmd is not None:
        raise UsageError(
            "--agent-cmd runs in replay only: the live sandbox cannot supervise the tools of an"
            " agent that runs them itself"
        )


def refuse_record_without_live(live: bool, record_dir: Path | None) -> None:
    """Recording keeps what a live provider answered: `UsageError` when asked for in replay."""
    if record_dir is not None and not live:
        raise UsageError("--record writes what a live run got back; use it with --mode live")


@dataclass(frozen=True)
class Run:
    """One run's settings as its cases need them, and the run's state. What this process
    does of the run may differ from what the options ask of the whole (a worker runs its
    share one case at a time and reports it to the parent; one case run alone has no
    `maxfail`)."""

    options: RunOptions
    #: Cases run at once in this process.
    jobs: int
    #: Stop starting cases once this many fail the gate; None: run all.
    maxfail: int | None
    #: Called as each case finishes (None: the parent process reports it).
    on_case_done: CaseDone | None
    #: The live provider, in live mode.
    live: Provider | None = None
    #: Cases that did not pass so far (for `maxfail`), and those never started.
    stop: Stop = field(default_factory=lambda: Stop())

    @classmethod
    def of(cls, options: RunOptions) -> Run:
        """A run of the whole of what `options` ask for."""
        return cls(options, options.jobs, options.maxfail, options.on_case_done)

    def stopped(self) -> bool:
        """Whether no more cases start: `maxfail` reached (counting every worker's
        failures, in a worker), or, in a worker, the parent asked that none start."""
        maxfail = self.maxfail
        board = self.stop.board
        bound = self.options.max_cost_usd
        return (
            (maxfail is not None and self.stop.failures >= maxfail)
            or (board is not None and board.stopping)
            or (bound is not None and self.stop.spent_usd >= bound)
        )


@dataclass
class Stop:
    failed: int = 0
    not_run: int = 0
    #: What the cases settled so far cost, agents' and judges' requests together (`--max-cost`).
    spent_usd: float = 0.0
    #: The signal that stopped the run, if one did.
    interrupted: str | None = None

    #: In a worker process: the board where its failures are counted with every other
    #: worker's, and where the parent says when to stop.
    board: Board | None = None

    def count(self, report: CaseReport | None) -> None:
        """Count a settled case: None is one left out past `maxfail`."""
        if report is None:
            self.not_run += 1
            return
        self.spent_usd += (report.cost_usd or 0.0) + (report.judge_cost_usd or 0.0)
        if report.blocks_gate:  # an expected failure (`xfail`) is no failure to stop at
            self.failed += 1
            if self.board is not None:
                self.board.add()

    @property
    def failures(self) -> int:
        """Cases that did not pass so far: in every worker, in a worker process."""
        return self.board.count if self.board is not None else self.failed
