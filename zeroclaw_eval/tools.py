"""The tool boundary: built-in tools and the recording `ToolBox` around them.

Every dispatch an agent makes goes through `ToolBox.call`, which the harness owns: it
parses the arguments, finds the tool, runs it, and records the call, so any agent (ours
or a user's) is recorded without cooperating. An unknown tool, arguments that are not a
JSON object, or a tool that raises all become a failed tool result, never a crash.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from zeroclaw_eval.jsonpos import loads_strict
from zeroclaw_eval.provider import ToolSpec
from zeroclaw_eval.record import RecordedCall, RunRecord
from zeroclaw_eval.workspace import OutsideWorkspace, Workspace


class ToolFailure(Exception):
    """A tool could not do what was asked; the message goes back to the model."""


@dataclass(frozen=True)
class ToolOutcome:
    """What a dispatch returns to the agent."""

    content: str
    success: bool


ToolFunction = Callable[[dict[str, Any], "Workspace | None"], str]


@dataclass(frozen=True)
class Tool:
    """A built-in tool: its spec, whether it needs a workspace, and what it does."""

    spec: ToolSpec
    run: ToolFunction
    needs_workspace: bool = False


def _string_arg(arguments: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    value = arguments.get(name)
    if value is None:
        if required:
            raise ToolFailure(f"missing required argument {name!r}")
        return None
    if not isinstance(value, str):
        raise ToolFailure(f"argument {name!r} must be a string")
    return value


def _workspace(workspace: Workspace | None) -> Workspace:
    if workspace is None:  # the runner makes one for every case that lists a workspace tool
        raise ToolFailure("this case has no workspace")
    return workspace


def _inside(workspace: Workspace | None, relative: str) -> Any:
    try:
        return _workspace(workspace).resolve(relative)
    except OutsideWorkspace as exc:
        raise ToolFailure(str(exc)) from None


def _echo(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    # Upstream fixtures rely on a call without `message` succeeding with "(empty)".
    message = _string_arg(arguments, "message", required=False)
    return "(empty)" if message is None else message


def _file_read(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    relative = _string_arg(arguments, "path")
    assert relative is not None
    target = _inside(workspace, relative)
    if not target.exists():
        raise ToolFailure(f"no such file: {relative}")
    if target.is_dir():
        raise ToolFailure(f"{relative} is a folder, not a file")
    try:
        text: str = target.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ToolFailure(f"{relative} is not UTF-8 text") from None
    return text


def _file_write(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    relative = _string_arg(arguments, "path")
    content = _string_arg(arguments, "content")
    assert relative is not None
    assert content is not None
    target = _inside(workspace, relative)
    if target.is_dir():
        raise ToolFailure(f"{relative} is a folder, not a file")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return f"wrote {len(content)} characters to {relative}"


def _list_dir(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    relative = _string_arg(arguments, "path", required=False)
    target = _workspace(workspace).root if relative in (None, "", ".") else None
    if target is None:
        assert relative is not None
        target = _inside(workspace, relative)
    if not target.is_dir():
        raise ToolFailure(f"no such folder: {relative}")
    entries = sorted(p.name + ("/" if p.is_dir() else "") for p in target.iterdir())
    return "\n".join(entries)


def _schema(properties: dict[str, str], required: Iterable[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": d} for name, d in properties.items()},
        "required": list(required),
    }


BUILTIN_TOOLS: dict[str, Tool] = {
    "echo": Tool(
        ToolSpec("echo", "Return the message unchanged.", _schema({"message": "text to echo"}, [])),
        _echo,
    ),
    "file_read": Tool(
        ToolSpec(
            "file_read",
            "Read a UTF-8 text file from the workspace.",
            _schema({"path": "workspace-relative path"}, ["path"]),
        ),
        _file_read,
        needs_workspace=True,
    ),
    "file_write": Tool(
        ToolSpec(
            "file_write",
            "Create or replace a text file in the workspace, making parent folders.",
            _schema(
                {"path": "workspace-relative path", "content": "the file's text"},
                ["path", "content"],
            ),
        ),
        _file_write,
        needs_workspace=True,
    ),
    "list_dir": Tool(
        ToolSpec(
            "list_dir",
            "List a workspace folder (default: the root), one entry a line, folders ending in /.",
            _schema({"path": "workspace-relative folder"}, []),
        ),
        _list_dir,
        needs_workspace=True,
    ),
}

#: Tools that need a case workspace; a case listing one gets a workspace made for it.
WORKSPACE_TOOLS = frozenset(name for name, tool in BUILTIN_TOOLS.items() if tool.needs_workspace)


def tools_for_case(requested: Iterable[str]) -> dict[str, Tool]:
    """The tools a case may call: `echo` plus the built-in tools it lists."""
    names = ["echo", *requested]
    return {name: BUILTIN_TOOLS[name] for name in names if name in BUILTIN_TOOLS}


class ToolBox:
    """The harness-owned tool registry: every call through it is recorded."""

    def __init__(
        self,
        tools: dict[str, Tool],
        record: RunRecord,
        workspace: Workspace | None = None,
        *,
        supervised: bool = False,
    ) -> None:
        self._tools = tools
        self._record = record
        self._workspace = workspace
        #: Supervised (live mode): a call to a tool not on offer is an approval request,
        #: denied without asking anyone; the harness fails the case for it.
        self._supervised = supervised
        self.denials: list[str] = []
        #: Index of the turn in progress; the harness sets it before each turn.
        self.turn = 0

    def specs(self) -> list[ToolSpec]:
        """The specs of the tools on offer, for the provider request."""
        return [tool.spec for tool in self._tools.values()]

    async def call(self, name: str, arguments: str | dict[str, Any], call_id: str = "") -> ToolOutcome:
        """Dispatch one tool call and record it; never raises for a bad call."""
        received: Any = arguments
        outcome: ToolOutcome
        if isinstance(arguments, str):
            try:
                parsed = loads_strict(arguments) if arguments.strip() else {}
            except ValueError:
                parsed = None
            # Arguments that are not a JSON object are recorded as the raw text the model
            # sent, which is what a failing case needs to show.
            received = parsed if isinstance(parsed, dict) else arguments
        tool = self._tools.get(name)
        if tool is None and self._supervised:
            denial = f"approval denied: the model called {name!r}, which this case may not use"
            self.denials.append(denial)
            outcome = ToolOutcome(denial, False)
        elif tool is None:
            available = ", ".join(sorted(self._tools))
            outcome = ToolOutcome(f"unknown tool {name!r}; available tools: {available}", False)
        elif not isinstance(received, dict):
            outcome = ToolOutcome(
                f"malformed arguments for {name}: expected a JSON object, got {arguments!r}", False
            )
        else:
            try:
                outcome = ToolOutcome(tool.run(received, self._workspace), True)
            except ToolFailure as exc:
                outcome = ToolOutcome(str(exc), False)
            except Exception as exc:
                outcome = ToolOutcome(f"{name} raised {type(exc).__name__}: {exc}", False)
        self._record.calls.append(
            RecordedCall(self.turn, call_id, name, received, outcome.content, outcome.success)
        )
        return outcome
