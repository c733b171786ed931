"""How each case of a run is run: one settings object, built once from the configuration
and the command line and handed down whole (the runner, one case, the drive of its
turns), so that a new setting is a field here and the code that reads it.

`RunOptions`, what a suite run is asked for, is these settings and a few of the run's
own (jobs, selection, hooks). The project's tools are checked when the settings are
made, as is the live allowlist against them; the tool set is built once, when first
needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from zeroclaw_eval.agent.loop import AgentFactory, reference_agent
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.config.settings import LiveOptions
from zeroclaw_eval.tools.builtin import BuiltinOffer
from zeroclaw_eval.tools.project import ProjectTool, nameable_tools, tool_names, toolset
from zeroclaw_eval.tools.sandbox import check_allowlist
from zeroclaw_eval.tools.tool import Tool

if TYPE_CHECKING:
    from zeroclaw_eval.tools.mcp import McpTools


class ExternalAgent(Protocol):
    """An agent that runs outside this process and runs its own tools (an agent command,
    an agent service): the harness sees its tool calls only where they cross the wire."""

    #: Whether its cases must run one at a time (a service shared by every case).
    @property
    def serial(self) -> bool: ...

    def factory(self, case: Case, workspace: Path) -> AgentFactory:
        """The factory of the agent that runs `case` in `workspace` (its working folder)."""
        ...


@dataclass(frozen=True, kw_only=True)
class CaseSettings:
    """How every case of a run is run."""

    #: Makes the agent under test, afresh for each case (the reference loop by default).
    agent_factory: AgentFactory = reference_agent
    #: An agent that runs as its own process (`--agent-cmd`), in place of `agent_factory`:
    #: it runs its own tools, so a fixture's `tools` may name any tool.
    agent_cmd: ExternalAgent | None = None
    #: Seconds each turn may take.
    case_timeout_secs: float = 120.0
    #: Tool rounds the reference loop may run in one turn.
    max_tool_iterations: int = 10
    #: The project's own tools (`[eval].tools`), which a fixture's `tools` may name.
    tools: tuple[ProjectTool, ...] = ()
    #: Live mode: the provider, its key, and the tools live cases may use; None replays
    #: each case's scripted steps.
    live: LiveOptions | None = None
    #: Serve each case's tools as an MCP server too (`tools.mcp`).
    mcp: bool = False
    #: Tools whose live calls `--record` writes as `tool_doubles` (those proxied to a
    #: project's MCP server, `[eval].mcp_upstream`, which a replay must not reach).
    recorded_as_doubles: frozenset[str] = frozenset()
    #: How a turn's user message carries its scripted input where the fixture does not
    #: say (`[eval].user_input_match`, `agent.conversation.input_matches`).
    user_input_match: Literal["exact", "contains"] = "exact"
    #: Each request carries only its own turn (`[eval].history = "turn"`).
    per_turn: bool = False
    #: The run's trace (`report.tracing`): each case's agent is handed its span in it.
    trace_id: str | None = None
    #: Whether `echo` is offered to the cases that name it or to every case
    #: (`[eval].builtin_tools`, `tools.builtin.offered_names`).
    builtin_tools: BuiltinOffer = "named"

    def __post_init__(self) -> None:
        # Checked when the settings are made, before any case runs: a project tool that
        # cannot join the built-in ones (`ConfigError`), an allowlist naming no tool.
        names = tool_names(self.tools)
        if self.live is not None:
            check_allowlist(self.live.allowed_tools, names)

    @cached_property
    def toolset(self) -> Mapping[str, Tool]:
        """Every tool a case may call: the built-in ones, then the project's. Built once,
        when first needed."""
        return toolset(self.tools)

    @cached_property
    def nameable_tools(self) -> frozenset[str] | None:
        """The tools a fixture's `tools` may name (None: any, for an agent command)."""
        return nameable_tools(self.toolset, external=self.agent_cmd is not None, doubles_known=self.mcp)

    @cached_property
    def mcp_tools(self) -> McpTools:
        """The run's MCP server (with `mcp`), made when first needed, closed with the run."""
        from zeroclaw_eval.tools.mcp import McpTools

        return McpTools()

    @property
    def live_allowed(self) -> frozenset[str] | None:
        """The live allowlist, in live mode; None in replay (no sandbox to supervise)."""
        return self.live.allowed_tools if self.live is not None else None
