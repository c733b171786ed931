"""What a case may touch: a workspace made only when needed, and the tools on offer.

Each case runs isolated, in a fresh temporary workspace removed afterwards. In live mode
the toolbox is supervised: a case is offered `echo` and those of its own `tools` that
`[eval].live_allowed_tools` also names; a call to anything else is an approval request,
denied without asking anyone, and the case fails for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from zeroclaw_eval.errors import RunError
from zeroclaw_eval.fixtures.model import LlmTrace
from zeroclaw_eval.run.record import RunRecord
from zeroclaw_eval.run.toolbox import ToolBox
from zeroclaw_eval.run.tools import ALWAYS_OFFERED, WORKSPACE_TOOLS, tools_for_case
from zeroclaw_eval.run.workspace import Workspace

_APPROVAL_RULE = (
    f"live mode is supervised: only {ALWAYS_OFFERED} and the tools in both the case's tools and"
    " [eval].live_allowed_tools are approved; the rest are denied"
)


def needs_workspace(trace: LlmTrace) -> bool:
    """Whether running or grading this case touches a workspace at all."""
    if trace.setup is not None and trace.setup.workspace_files:
        return True
    if trace.expects.workspace is not None:
        return True
    return any(tool in WORKSPACE_TOOLS for tool in trace.tools)


@contextmanager
def case_workspace(trace: LlmTrace) -> Iterator[Workspace | None]:
    """A fresh workspace seeded with the case's setup, removed on exit; None when the
    case needs none (a case that touches no file pays nothing).

    Raises `OSError` when the workspace cannot be made or seeded (a full disk, say).
    """
    if not needs_workspace(trace):
        yield None
        return
    workspace = Workspace.create(trace.setup.workspace_files if trace.setup else None)
    try:
        yield workspace
    finally:
        workspace.cleanup()


def offered_tools(case_tools: Iterable[str], allowed: Iterable[str]) -> list[str]:
    """The case's own tools the live sandbox offers (`echo` is offered besides)."""
    allowed = set(allowed)
    return [tool for tool in case_tools if tool in allowed]


def case_toolbox(
    case_tools: Iterable[str],
    record: RunRecord,
    workspace: Workspace | None,
    *,
    live_allowed: Iterable[str] | None = None,
) -> ToolBox:
    """The toolbox of one run: the case's tools, or in live mode (`live_allowed` given)
    the supervised toolbox of the sandbox."""
    if live_allowed is None:
        return ToolBox(tools_for_case(case_tools), record, workspace)
    offered = offered_tools(case_tools, live_allowed)
    return ToolBox(tools_for_case(offered), record, workspace, supervised=True)


def denied_calls(record: RunRecord, case_tools: Iterable[str], allowed: Iterable[str]) -> list[str]:
    """Names of the recorded calls the sandbox denied (tools it did not offer)."""
    offered = {ALWAYS_OFFERED, *offered_tools(case_tools, allowed)}
    return [call.name for call in record.calls if call.name not in offered]


def denial_error(turn: int, denial: str) -> RunError:
    """The run error of a turn in which the sandbox denied a call."""
    return RunError(f"turn {turn + 1}: {denial} ({_APPROVAL_RULE})", f"/turns/{turn}")
