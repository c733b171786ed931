"""Each case runs isolated: a fresh temporary workspace, made only when something needs
it, seeded with the case's setup and removed afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from zeroclaw_eval.fixtures.model import LlmTrace
from zeroclaw_eval.run.tools import WORKSPACE_TOOLS
from zeroclaw_eval.run.workspace import Workspace


def needs_workspace(trace: LlmTrace) -> bool:
    """Whether running or grading this case touches a workspace at all."""
    if trace.setup is not None and trace.setup.workspace_files:
        return True
    if trace.expects.workspace is not None:
        return True
    return any(tool in WORKSPACE_TOOLS for tool in trace.tools)


@contextmanager
def case_workspace(trace: LlmTrace, *, needed: bool | None = None) -> Iterator[Workspace | None]:
    """A fresh workspace seeded with the case's setup, removed on exit; None when the
    case needs none (a case that touches no file pays nothing). `needed` overrides
    `needs_workspace` (grading alone needs one only for workspace checks).

    Raises `OSError` when the workspace cannot be made or seeded (a full disk, say).
    """
    if not (needs_workspace(trace) if needed is None else needed):
        yield None
        return
    workspace = Workspace.create(trace.setup.workspace_files if trace.setup else None)
    try:
        yield workspace
    finally:
        workspace.cleanup()
