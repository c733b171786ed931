"""One replay of a case, kept open for its mutants: the case run as `zeroclaw eval run`
would run it, through the agent the options name."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.run.case_run import CaseRun, case_run
from zeroclaw_eval.run.project_tools import toolset
from zeroclaw_eval.runner import RunOptions


@asynccontextmanager
async def replayed(case: Case, options: RunOptions) -> AsyncIterator[CaseRun]:
    """Replay `case`; its workspace stays until the block ends. Raises `OSError` when
    the workspace cannot be seeded."""
    async with case_run(
        case,
        options.agent_factory,
        agent_cmd=options.agent_cmd,
        case_timeout_secs=options.case_timeout_secs,
        max_tool_iterations=options.max_tool_iterations,
        tools=toolset(options.tools),
    ) as run:
        yield run
