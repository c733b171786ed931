"""The project's own tools (`[eval].tools`), beside the built-in ones.

A project names a factory that returns its tools; each joins the built-in tools in the
recording tool box, so a call to it is recorded at the boundary like any other, and a
fixture may list it in `tools`. The function is called with the call's arguments as
keywords; it returns the result text, a `ToolOutcome` (to say the call failed without
raising), or data written back as JSON. It may be async; a plain function runs in a
worker thread, since it may block.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval.boundary.provider import ToolSpec
from zeroclaw_eval.errors import ConfigError
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS
from zeroclaw_eval.tools.tool import Tool
from zeroclaw_eval.tools.workspace import Workspace


@dataclass(frozen=True)
class ProjectTool:
    """A tool of the project's own: what the model sees of it, and the function to run."""

    name: str
    description: str
    #: Called with the call's arguments as keywords; may be async.
    function: Callable[..., Any]
    #: A JSON schema of the arguments (an object schema).
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})

    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        parameters: dict[str, Any] | None = None,
    ) -> ProjectTool:
        """The tool a function your agent already has makes: its name, the first paragraph
        of its docstring as the description, and its signature as the JSON Schema of its
        arguments (`tools.signature`); each may be given instead. One list of functions
        then serves the agent in production and the gate. `ConfigError` for a signature
        with no schema a model could fill in (give `parameters` then)."""
        from zeroclaw_eval.tools.signature import description_of, name_of, parameters_of

        return cls(
            name if name is not None else name_of(function),
            description if description is not None else description_of(function),
            function,
            parameters if parameters is not None else parameters_of(function),
        )

    def as_tool(self) -> Tool:
        """This tool as the tool box runs it."""

        def run(arguments: dict[str, Any], workspace: Workspace | None) -> Any:
            return self.function(**arguments)

        blocking = not inspect.iscoroutinefunction(self.function)
        # A project's tool may block or await: never `instant`, whichever kind it is.
        spec = ToolSpec(self.name, self.description, self.parameters)
        return Tool(spec, run, blocking=blocking, instant=False)


def tool_names(project: Iterable[ProjectTool]) -> list[str]:
    """The name of every tool a case may name: the built-in ones, then the project's.

    Raises `ConfigError` for a tool that is not a `ProjectTool`, has no name, or takes a
    name already taken: the one check a project's tools pass to join the built-in ones.
    """
    names = list(BUILTIN_TOOLS)
    for item in project:
        if not isinstance(item, ProjectTool):
            raise ConfigError(f"[eval].tools returned {type(item).__name__}; each tool must be a ProjectTool")
        if not isinstance(item.name, str) or not item.name:
            raise ConfigError(
                f"[eval].tools returned a tool whose name is {item.name!r}; a name is a non-empty string"
            )
        if item.name in names:
            kind = "built-in tool" if item.name in BUILTIN_TOOLS else "tool of the project"
            raise ConfigError(f"[eval].tools: {item.name!r} is already the name of a {kind}; rename it")
        names.append(item.name)
    return names


def toolset(project: Iterable[ProjectTool]) -> dict[str, Tool]:
    """Every tool a case may call, by name: the built-in ones, then the project's (checked
    by `tool_names`)."""
    project = tuple(project)
    tool_names(project)
    return {**BUILTIN_TOOLS, **{item.name: item.as_tool() for item in project}}


class KnownTools(frozenset[str]):
    """The tools of a run a fixture's `tools` may name, and whether a tool known only by
    the fixture's own `tool_doubles` may be named too (with `[eval].mcp`: the double is
    the tool, served over MCP, as a recorded call to a project's MCP server replays)."""

    doubles_known: bool = False


def nameable_tools(
    tools: Mapping[str, Tool], *, external: bool, doubles_known: bool = False
) -> frozenset[str] | None:
    """The tools a fixture's `tools` may name: those of the run (`tools`, the built-in ones
    and the project's), or any name at all (None) when the agent runs tools of its own (an
    agent command), which the harness does not know. The one rule for every command."""
    if external:
        return None
    known = KnownTools(tools)
    known.doubles_known = doubles_known
    return known
