"""What a tool is to the harness, and the built-in tools: `echo`, and the workspace tools
`file_read`, `file_write`, `list_dir`.

A tool never raises at its caller: `Tool.invoke` turns a tool's refusal (a missing
argument, a path outside the workspace) or any exception into a failed `ToolOutcome`,
whose text goes back to the model.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from zeroclaw_eval.errors import OutsideWorkspace
from zeroclaw_eval.fixtures.json_text import compact_json
from zeroclaw_eval.fixtures.model import ALWAYS_OFFERED
from zeroclaw_eval.run.provider import ToolSpec
from zeroclaw_eval.run.threads import in_thread
from zeroclaw_eval.run.workspace import Workspace, make_folders


class _ToolFailure(Exception):
    """A tool could not do what was asked; the message goes back to the model."""


@dataclass(frozen=True)
class ToolOutcome:
    """What a dispatch returns to the agent."""

    content: str
    success: bool


#: What a tool does with a call's arguments: its result text, a `ToolOutcome`, or data
#: written back as JSON; an awaitable of one of those for an async tool.
ToolFunction = Callable[[dict[str, Any], "Workspace | None"], Any]


@dataclass(frozen=True)
class Tool:
    """A tool as the harness runs it: its spec, what it does, and how to run that."""

    spec: ToolSpec
    run: ToolFunction
    needs_workspace: bool = False
    #: A plain function that may block (a project's tool): it runs in a worker thread.
    blocking: bool = False

    async def invoke(self, arguments: dict[str, Any], workspace: Workspace | None) -> ToolOutcome:
        """Run the tool; a refusal or an exception is a failed outcome, never raised."""
        try:
            result = (
                await in_thread(self.run, arguments, workspace)
                if self.blocking
                else self.run(arguments, workspace)
            )
            if inspect.isawaitable(result):
                result = await result
        except _ToolFailure as exc:
            return ToolOutcome(str(exc), False)
        except Exception as exc:
            return ToolOutcome(f"{self.spec.name} raised {type(exc).__name__}: {exc}", False)
        return _outcome(result)


def _outcome(result: Any) -> ToolOutcome:
    if isinstance(result, ToolOutcome):
        return result
    if isinstance(result, str):
        return ToolOutcome(result, True)
    try:
        return ToolOutcome(compact_json(result), True)
    except (TypeError, ValueError):  # not JSON data: its text is the best there is
        return ToolOutcome(str(result), True)


def _string_arg(arguments: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    value = arguments.get(name)
    if value is None:
        if required:
            raise _ToolFailure(f"missing required argument {name!r}")
        return None
    if not isinstance(value, str):
        raise _ToolFailure(f"argument {name!r} must be a string")
    return value


def _workspace(workspace: Workspace | None) -> Workspace:
    if workspace is None:  # the runner makes one for every case that lists a workspace tool
        raise _ToolFailure("this case has no workspace")
    return workspace


def _inside(workspace: Workspace | None, relative: str) -> Any:
    try:
        return _workspace(workspace).resolve(relative)
    except OutsideWorkspace as exc:
        raise _ToolFailure(str(exc)) from None


def _echo(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    # Upstream fixtures rely on a call without `message` succeeding with "(empty)".
    message = _string_arg(arguments, "message", required=False)
    return "(empty)" if message is None else message


def _file_read(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    relative = _string_arg(arguments, "path")
    assert relative is not None
    target = _inside(workspace, relative)
    if not target.exists():
        raise _ToolFailure(f"no such file: {relative}")
    if target.is_dir():
        raise _ToolFailure(f"{relative} is a folder, not a file")
    try:
        text: str = target.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _ToolFailure(f"{relative} is not UTF-8 text") from None
    return text


def _file_write(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    relative = _string_arg(arguments, "path")
    content = _string_arg(arguments, "content")
    assert relative is not None
    assert content is not None
    target = _inside(workspace, relative)
    if target.is_dir():
        raise _ToolFailure(f"{relative} is a folder, not a file")
    make_folders(target.parent)
    target.write_text(content, encoding="utf-8")
    return f"wrote {len(content)} characters to {relative}"


def _list_dir(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    relative = _string_arg(arguments, "path", required=False)
    target = _workspace(workspace).root if relative in (None, "", ".") else None
    if target is None:
        assert relative is not None
        target = _inside(workspace, relative)
    if not target.is_dir():
        raise _ToolFailure(f"no such folder: {relative}")
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


def tools_for_case(
    requested: Iterable[str], available: Mapping[str, Tool] = BUILTIN_TOOLS
) -> dict[str, Tool]:
    """The tools a case may call: `echo` plus those of `available` it lists."""
    names = [ALWAYS_OFFERED, *requested]
    return {name: available[name] for name in names if name in available}
