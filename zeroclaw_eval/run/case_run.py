"""One case run with its workspace kept open: the record, the workspace the run left and
the run error, for whatever grades it (the runner once, mutation testing many times)
before the workspace is removed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

from zeroclaw_eval.errors import RunError
from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.run.agent import AgentFactory
from zeroclaw_eval.run.command_agent import AgentCommand, command_agent_factory
from zeroclaw_eval.run.deadline import bounded_blocking
from zeroclaw_eval.run.drive import drive
from zeroclaw_eval.run.isolation import case_workspace
from zeroclaw_eval.run.provider import Provider
from zeroclaw_eval.run.record import RunRecord
from zeroclaw_eval.run.tools import Tool
from zeroclaw_eval.run.workspace import Workspace


@dataclass(frozen=True)
class CaseRun:
    """A finished run: what it recorded, its workspace (open), the run error if any."""

    record: RunRecord
    workspace: Workspace | None
    error: RunError | None


@asynccontextmanager
async def case_run(
    case: Case,
    agent_factory: AgentFactory,
    *,
    agent_cmd: AgentCommand | None,
    case_timeout_secs: float,
    max_tool_iterations: int,
    tools: Mapping[str, Tool],
    live: Provider | None = None,
    live_allowed: Iterable[str] = (),
) -> AsyncIterator[CaseRun]:
    """Run `case` through the agent (or the agent command `agent_cmd`) in a fresh
    workspace, which stays until the block ends and is then removed (what could not be
    removed is `workspace.leftover`). Raises `OSError` when the workspace cannot be
    made or seeded."""
    # An agent command always runs in a workspace: it is its working directory.
    with case_workspace(case.trace, needed=True if agent_cmd else None) as workspace:
        factory = agent_factory
        if agent_cmd is not None and workspace is not None:
            factory = command_agent_factory(agent_cmd, case, workspace.root)
        record = RunRecord()
        with bounded_blocking():  # an async turn that blocks the loop ends at its limit too
            error = await drive(
                case,
                record,
                workspace,
                factory,
                case_timeout_secs=case_timeout_secs,
                max_tool_iterations=max_tool_iterations,
                tools=tools,
                live=live,
                live_allowed=live_allowed,
                external=agent_cmd is not None,
            )
        yield CaseRun(record, workspace, error)
