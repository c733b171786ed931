"""One replay of a case, kept open for its mutants: the case run as `zeroclaw eval run`
would run it, through the agent the options name."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.run.case_run import CaseRun
from zeroclaw_eval.run.project_tools import toolset
from zeroclaw_eval.runner import RunOptions
from zeroclaw_eval.runner.case import run_with


@asynccontextmanager
async def replayed(case: Case, options: RunOptions) -> AsyncIterator[CaseRun]:
    """Replay `case`; its workspace stays until the block ends. Raises `OSError` when
    the workspace cannot be seeded."""
    async with run_with(case, options, toolset(options.tools)) as run:
        yield run
