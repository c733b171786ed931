"""The project's agent and tools, as its configuration (and the command line) names them:
one resolution for every front end (the CLI, the pytest plugin).

What a fixture may name (`known_tools`) needs only the project's tools; the agent
(`agent_setup`) is imported only by what runs cases, so that checking fixtures never
depends on an agent module that does not import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zeroclaw_eval.config.load import LoadedConfig
from zeroclaw_eval.errors import ConfigError, UsageError
from zeroclaw_eval.run.agent import AgentFactory, reference_agent
from zeroclaw_eval.run.command_agent import AgentCommand
from zeroclaw_eval.run.loading import load_agent_factory, load_project_tools
from zeroclaw_eval.run.project_tools import ProjectTool, toolset
from zeroclaw_eval.runner import RunOptions


@dataclass(frozen=True)
class AgentSetup:
    """What runs the cases: an agent factory, or an agent command in its place."""

    factory: AgentFactory
    command: AgentCommand | None
    #: The project's own tools (`[eval].tools`).
    tools: tuple[ProjectTool, ...]
    #: Which agent it is, in words (for a report header).
    described: str


def project_tools(loaded: LoadedConfig) -> tuple[ProjectTool, ...]:
    """The project's own tools, from the factory `[eval].tools` names (none without one)."""
    spec = loaded.settings.tools
    return load_project_tools(spec, loaded.base_dir) if spec else ()


def uses_agent_command(loaded: LoadedConfig, agent_cmd: str | None = None) -> bool:
    """Whether the cases run through an agent command (`agent_cmd`, else `[eval].agent_cmd`)."""
    return bool(agent_cmd) or bool(loaded.settings.agent_cmd)


def known_tools(loaded: LoadedConfig, agent_cmd: str | None = None) -> list[str] | None:
    """The tools a fixture may name: the built-in ones and the project's, checked; None
    (any) for an agent command, which runs its own."""
    if uses_agent_command(loaded, agent_cmd):
        return None
    return sorted(toolset(project_tools(loaded)))


def run_options(loaded: LoadedConfig, setup: AgentSetup, **overrides: Any) -> RunOptions:
    """The `RunOptions` of a replay through `setup` with the configured limits
    (`overrides` for what a front end sets itself: jobs, hooks, selection)."""
    settings = loaded.settings
    base: dict[str, Any] = {
        "agent_factory": setup.factory,
        "case_timeout_secs": settings.case_timeout_secs,
        "max_tool_iterations": settings.max_tool_iterations,
        "max_fixture_bytes": settings.max_fixture_bytes,
        "tools": setup.tools,
        "agent_cmd": setup.command,
    }
    return RunOptions(**{**base, **overrides})


def described_agent(loaded: LoadedConfig, agent_cmd: str | None = None) -> str:
    """Which agent the configuration names, in words, without importing it."""
    command = agent_cmd if agent_cmd is not None else loaded.settings.agent_cmd
    if command:
        return f"agent command {command!r}"
    return loaded.settings.agent or "the reference agent"


def agent_setup(
    loaded: LoadedConfig, agent_cmd: str | None = None, agent_io: str | None = None
) -> AgentSetup:
    """The agent the cases run through: `agent_cmd` (the command line's) else
    `[eval].agent_cmd`, else the factory `[eval].agent` names, else the reference loop.
    An agent command stands in for `[eval].agent`, whose module is then not imported."""
    settings = loaded.settings
    tools = project_tools(loaded)
    toolset(tools)  # checked before anything runs
    text = agent_cmd if agent_cmd is not None else settings.agent_cmd
    if agent_cmd is None and not text:
        if agent_io is not None:
            raise UsageError("--agent-io says how to talk to --agent-cmd; give the command too")
        factory = load_agent_factory(settings.agent, loaded.base_dir) if settings.agent else reference_agent
        return AgentSetup(factory, None, tools, described_agent(loaded))
    if settings.agent and agent_cmd is None:
        raise ConfigError("[eval] sets both agent and agent_cmd; keep the one that runs your agent")
    command = AgentCommand.parse(text, agent_io or settings.agent_io, loaded.base_dir)
    return AgentSetup(reference_agent, command, tools, described_agent(loaded, agent_cmd))
