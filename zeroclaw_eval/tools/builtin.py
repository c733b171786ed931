"""The built-in tools: `echo`, and the workspace tools `file_read`, `file_write` and
`list_dir`, each offered to a case that names it (`tools_for_case`). Each refuses what it
cannot do (a missing argument, a path outside the workspace) with a `ToolRefused`, which
the model gets back as a failed result.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from zeroclaw_eval._support.files import read_bounded
from zeroclaw_eval.boundary.provider import ToolSpec
from zeroclaw_eval.cases.model import ECHO_TOOL, LlmTrace
from zeroclaw_eval.errors import OutsideWorkspace, ToolRefused
from zeroclaw_eval.tools.tool import Tool
from zeroclaw_eval.tools.toolbox import served_as
from zeroclaw_eval.tools.workspace import Workspace, make_folders

#: `[eval].builtin_tools`: offer `echo` to the cases that name it, or to every case.
BuiltinOffer = Literal["named", "always"]


def _string_arg(arguments: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    value = arguments.get(name)
    if value is None:
        if required:
            raise ToolRefused(f"missing required argument {name!r}")
        return None
    if not isinstance(value, str):
        raise ToolRefused(f"argument {name!r} must be a string")
    return value


def _workspace(workspace: Workspace | None) -> Workspace:
    if workspace is None:  # the runner makes one for every case that lists a workspace tool
        raise ToolRefused("this case has no workspace")
    return workspace


def _inside(workspace: Workspace | None, relative: str) -> Any:
    try:
        return _workspace(workspace).resolve(relative)
    except OutsideWorkspace as exc:
        raise ToolRefused(str(exc)) from None


def _echo(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    # Upstream fixtures rely on a call without `message` succeeding with "(empty)".
    message = _string_arg(arguments, "message", required=False)
    return "(empty)" if message is None else message


#: The most `file_read` returns, and what it says of a larger file.
MAX_READ_BYTES = 16 * 1024 * 1024
_READ_LIMIT = ("file_read's path", f"the tool reads files of up to {MAX_READ_BYTES // 2**20} MiB")


def _file_read(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    relative = _string_arg(arguments, "path")
    assert relative is not None
    target = _inside(workspace, relative)
    if not target.exists():
        raise ToolRefused(f"no such file: {relative}")
    if target.is_dir():
        raise ToolRefused(f"{relative} is a folder, not a file")
    # Built-in tools run on the event loop: a named pipe the agent made in its workspace
    # would block it (and every time limit with it) waiting for a writer, and a device
    # such as /dev/zero would be read without end. Only a regular file is read, within
    # a bound.
    raw = read_bounded(target, MAX_READ_BYTES, limit=_READ_LIMIT, regular_only=True)
    if isinstance(raw, str):
        raise ToolRefused(f"{relative}: {raw}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolRefused(f"{relative} is not UTF-8 text") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it


def _file_write(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    relative = _string_arg(arguments, "path")
    content = _string_arg(arguments, "content")
    assert relative is not None
    assert content is not None
    target = _inside(workspace, relative)
    if target.is_dir():
        raise ToolRefused(f"{relative} is a folder, not a file")
    make_folders(target.parent)
    # Opened without blocking, as `file_read` reads: a named pipe with no reader would
    # hold the event loop until one came. Only a regular file is written.
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(target, flags, 0o666)
    except OSError as exc:
        raise ToolRefused(f"{relative}: cannot write the file: {exc.strerror or exc}") from None
    with os.fdopen(descriptor, "wb") as stream:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise ToolRefused(f"{relative} is not a regular file: file_write writes only files")
        stream.truncate(0)
        stream.write(content.encode("utf-8"))
    return f"wrote {len(content)} characters to {relative}"


def _list_dir(arguments: dict[str, Any], workspace: Workspace | None) -> str:
    relative = _string_arg(arguments, "path", required=False)
    target = _workspace(workspace).root if relative in (None, "", ".") else None
    if target is None:
        assert relative is not None
        target = _inside(workspace, relative)
    if not target.is_dir():
        raise ToolRefused(f"no such folder: {relative}")
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


def names_echo(trace: LlmTrace) -> bool:
    """Whether a case names `echo`: lists it in `tools` or `tool_doubles`, scripts a call
    to it (as upstream fixtures do, without listing it), or checks it in `expects` (a
    live case, whose calls the model makes, says so there)."""
    if ECHO_TOOL in trace.tools or ECHO_TOOL in trace.tool_doubles:
        return True
    for turn in trace.turns:
        for step in turn.steps or ():
            # `served_as`: an MCP client may call it under its server's prefix (`files_echo`).
            if any(served_as(call.name, ECHO_TOOL) for call in step.response.tool_calls):
                return True
    expects = trace.expects
    named = [*expects.tools_used, *expects.tools_not_used, *expects.tools_offered]
    named += [check.tool for check in (*expects.tool_arguments_contain, *expects.tool_results_contain)]
    if expects.trajectory is not None:
        named += [call.tool for call in expects.trajectory.calls]
    return ECHO_TOOL in named


def offered_names(trace: LlmTrace, tools: Iterable[str], *, builtin_tools: BuiltinOffer) -> list[str]:
    """The names a case is offered of `tools` (its own, or the live sandbox's share of
    them): `echo` first where the case names it or `builtin_tools` is `always`.

    An agent is offered only what it would have in production: a production agent that
    never had `echo` must not see it in its tool list because the gate has one.
    """
    tools = list(tools)
    if ECHO_TOOL in tools or (builtin_tools == "named" and not names_echo(trace)):
        return tools
    return [ECHO_TOOL, *tools]


def tools_for_case(names: Iterable[str], available: Mapping[str, Tool] = BUILTIN_TOOLS) -> dict[str, Tool]:
    """The tools of `available` that `names` (from `offered_names`) name, in that order."""
    return {name: available[name] for name in names if name in available}
