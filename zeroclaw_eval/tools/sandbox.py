"""What a case may touch: the tools it is offered, the live sandbox's approval rule, and
the fresh workspace it runs in.

In replay a case is offered its own `tools` (and `echo` where it names it, or where
`[eval].builtin_tools = "always"`). In live mode the toolbox is supervised: a case is
offered those of its own `tools` that `[eval].live_allowed_tools` also names (and `echo`
as in replay); a call to anything else is an approval request,
denied without asking anyone, and the case fails for it. Each case runs isolated: a
fresh temporary workspace, made only when something needs it, seeded with the case's
setup and removed afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.model import ECHO_TOOL, LlmTrace
from zeroclaw_eval.errors import RunError, UsageError
from zeroclaw_eval.tools.builtin import (
    BUILTIN_TOOLS,
    WORKSPACE_TOOLS,
    BuiltinOffer,
    offered_names,
    tools_for_case,
)
from zeroclaw_eval.tools.tool import Tool
from zeroclaw_eval.tools.toolbox import ToolBox
from zeroclaw_eval.tools.workspace import Workspace

_APPROVAL_RULE = (
    "live mode is supervised: only the tools in both the case's tools and [eval].live_allowed_tools"
    f" are approved, and {ECHO_TOOL} where the case names it (list it in tools, or set"
    ' [eval].builtin_tools = "always"); the rest are denied'
)


def offered_tools(case_tools: Iterable[str], allowed: Iterable[str]) -> list[str]:
    """The case's own tools the live sandbox offers: those on the allowlist, and `echo`
    where the case lists it (it touches nothing; `offered_names` adds it where the case
    names it otherwise)."""
    allowed = set(allowed)
    return [tool for tool in case_tools if tool in allowed or tool == ECHO_TOOL]


def case_toolbox(
    trace: LlmTrace,
    record: RunRecord,
    workspace: Workspace | None,
    *,
    available: Mapping[str, Tool] = BUILTIN_TOOLS,
    live_allowed: Iterable[str] | None = None,
    builtin_tools: BuiltinOffer = "named",
) -> ToolBox:
    """The toolbox of one run: the case's tools among `available`; or in live mode
    (`live_allowed` given, even empty) the supervised toolbox of the sandbox."""
    if live_allowed is None:
        names = offered_names(trace, trace.tools, builtin_tools=builtin_tools)
        return ToolBox(tools_for_case(names, available), record, workspace)
    names = offered_names(trace, offered_tools(trace.tools, live_allowed), builtin_tools=builtin_tools)
    return ToolBox(tools_for_case(names, available), record, workspace, supervised=True)


def check_allowlist(allowed: Iterable[str], known: Iterable[str]) -> None:
    """`UsageError` unless every tool the live allowlist names is one of the `known` tools
    (a misspelt name would silently allow nothing)."""
    known = list(known)
    unknown = sorted(set(allowed) - set(known))
    if unknown:
        raise UsageError(
            f"[eval].live_allowed_tools names unknown tools: {', '.join(unknown)};"
            f" the known tools are: {', '.join(sorted(known))}"
        )


def denied_calls(record: RunRecord, offered: Iterable[str]) -> list[str]:
    """Names of the recorded calls the live sandbox denied: to tools it did not offer
    (`offered`, the supervised toolbox's names; admission and the run's settings have
    checked that each of those is a tool of the run)."""
    names = set(offered)
    return [call.name for call in record.calls if call.name not in names]


def denial_error(turn: int, denial: str) -> RunError:
    """The run error of a turn in which the sandbox denied a call."""
    return RunError(f"turn {turn + 1}: {denial} ({_APPROVAL_RULE})", f"/turns/{turn}")


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
