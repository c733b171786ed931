"""How a run is asked for (`RunOptions`), and what one run's cases share while it lasts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from zeroclaw_eval.agent.loop import AgentFactory, reference_agent
from zeroclaw_eval.backends.command import AgentCommand
from zeroclaw_eval.boundary.provider import Provider
from zeroclaw_eval.collect.sharding import Shard
from zeroclaw_eval.config.settings import LiveOptions
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.fixtures.case import Case, RejectedFixture
from zeroclaw_eval.fixtures.limits import DEFAULT_MAX_FIXTURE_BYTES
from zeroclaw_eval.report.model import CaseReport
from zeroclaw_eval.report.repeats import check_repeat
from zeroclaw_eval.tools.project import ProjectTool
from zeroclaw_eval.tools.tool import Tool

if TYPE_CHECKING:
    from zeroclaw_eval.runner.workers import Board

#: A fixture as the runner holds it: admitted, rejected, or a path not yet read.
Fixture = Case | RejectedFixture | Path
#: Called as each case finishes, with the fixture as this process holds it: loaded, or
#: still its path when a worker process read it and ran the case (`--jobs N` in replay).
CaseDone = Callable[[Fixture, CaseReport], None]
#: Where the per-case loop puts a finished case (None: left out past `maxfail`).
Settle = Callable[[int, Fixture, "CaseReport | None"], None]


@dataclass(frozen=True)
class RunOptions:
    """How to run cases (the CLI builds this from config and flags)."""

    mode: str = "replay"
    agent_factory: AgentFactory = field(default=reference_agent)
    case_timeout_secs: float = 120.0
    max_tool_iterations: int = 10
    #: The largest fixture file admitted (`[eval].max_fixture_bytes`).
    max_fixture_bytes: int = DEFAULT_MAX_FIXTURE_BYTES
    #: Cases run at once (the report keeps fixture order whatever the completion order).
    jobs: int = 1
    #: Set for live mode; None replays each case's scripted steps.
    live: LiveOptions | None = None
    #: Called as each case finishes (progress, recording).
    on_case_done: CaseDone | None = None
    #: Called once the cases to run are known (after `-k`), with how many there are.
    on_selected: Callable[[int], None] | None = None
    #: The project's own tools (`[eval].tools`), which a fixture's `tools` may name.
    tools: tuple[ProjectTool, ...] = ()
    #: An agent that runs as its own process (`--agent-cmd`), in place of `agent_factory`:
    #: it runs its own tools, so a fixture's `tools` may name any tool.
    agent_cmd: AgentCommand | None = None
    #: A `-k` expression: only the cases whose file stem, model_name or id it matches run.
    keyword: str | None = None
    #: Stop starting cases once this many have not passed (`-x` is 1); None: run all.
    maxfail: int | None = None
    #: On SIGINT or SIGTERM, cancel the running cases (each removes its workspace) and
    #: return a report of the finished ones, marked `interrupted` (the CLI's choice);
    #: False keeps Python's own behaviour (SIGINT raises `KeyboardInterrupt`).
    stop_on_signals: bool = False
    #: Run only this part of the suite (`--shard K/N`); None: all of it.
    shard: Shard | None = None
    #: Live mode: runs of each case (`--repeat`), and the share that must pass (None: all).
    repeat: int = 1
    min_pass_rate: float | None = None

    def __post_init__(self) -> None:
        refuse_live_agent_cmd(self.live is not None, self.agent_cmd)
        check_repeat(self.repeat, self.min_pass_rate, live=self.live is not None)


def nameable_tools(options: RunOptions, tools: Mapping[str, Tool]) -> frozenset[str] | None:
    """The tools a fixture may name: those of the run (built-in and the project's), or any
    name at all (None) for an agent command, which runs tools of its own."""
    return None if options.agent_cmd is not None else frozenset(tools)


def refuse_live_agent_cmd(live: bool, agent_cmd: AgentCommand | None) -> None:
    """Live mode is not offered for an agent command: `UsageError` when both are asked for."""
    if live and agent_cmd is not None:
        raise UsageError(
            "--agent-cmd runs in replay only: the live sandbox cannot supervise the tools of an"
            " agent that runs them itself"
        )


@dataclass(frozen=True)
class Run:
    """One run's settings as its cases need them."""

    options: RunOptions
    #: Every tool a case may name: the built-in ones and the project's.
    tools: Mapping[str, Tool]
    #: The tools a fixture may name (None: any, for an agent command that runs its own).
    known: frozenset[str] | None = None
    #: The live provider, in live mode.
    live: Provider | None = None
    #: Cases that did not pass so far (for `maxfail`), and those never started.
    stop: Stop = field(default_factory=lambda: Stop())

    def stopped(self) -> bool:
        """Whether no more cases start: `maxfail` reached (counting every worker's
        failures, in a worker), or, in a worker, the parent asked that none start."""
        maxfail = self.options.maxfail
        board = self.stop.board
        return (maxfail is not None and self.stop.failures >= maxfail) or (
            board is not None and board.stopping
        )


@dataclass
class Stop:
    failed: int = 0
    not_run: int = 0
    #: The signal that stopped the run, if one did.
    interrupted: str | None = None

    #: In a worker process: the board where its failures are counted with every other
    #: worker's, and where the parent says when to stop.
    board: Board | None = None

    def count(self, report: CaseReport | None) -> None:
        """Count a settled case: None is one left out past `maxfail`."""
        if report is None:
            self.not_run += 1
        elif not report.passed:
            self.failed += 1
            if self.board is not None:
                self.board.add()

    @property
    def failures(self) -> int:
        """Cases that did not pass so far: in every worker, in a worker process."""
        return self.board.count if self.board is not None else self.failed
