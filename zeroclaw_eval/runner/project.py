"""The project's agent and tools, as its configuration (and the command line) names them:
one resolution for every front end (the CLI, the pytest plugin).

A run's settings (`run_options`) are built here once: the agent (a factory, or an agent
command in its place), the project's tools, the limits, live mode's provider and key.
What a fixture may name (`fixture_tools`) needs only the project's tools: the agent is
imported only by what runs cases, so that checking fixtures never depends on an agent
module that does not import. A project's modules are imported from the folder of its
configuration file, put first on `sys.path` as pytest does with its rootdir, so they
need not be installed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from zeroclaw_eval.agent.call import raised
from zeroclaw_eval.agent.loop import AgentFactory, reference_agent
from zeroclaw_eval.backends.concurrency import AdaptiveLimit
from zeroclaw_eval.config.load import LoadedConfig
from zeroclaw_eval.config.settings import LiveOptions
from zeroclaw_eval.errors import AgentLoadError, ConfigError, UsageError
from zeroclaw_eval.grading.judges.gate import JudgeGate, load_gate
from zeroclaw_eval.runner.imports import load_callable
from zeroclaw_eval.runner.judging import Judges, judges_of
from zeroclaw_eval.runner.options import RunOptions, refuse_live_agent_cmd
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS
from zeroclaw_eval.tools.project import ProjectTool, nameable_tools, tool_names, toolset
from zeroclaw_eval.tools.sandbox import check_allowlist

if TYPE_CHECKING:
    from zeroclaw_eval.backends.command import AgentCommand
    from zeroclaw_eval.backends.service import AgentService


def run_options(
    loaded: LoadedConfig,
    *,
    agent_cmd: str | None = None,
    agent_io: str | None = None,
    agent_service: str | None = None,
    agent_service_protocol: str | None = None,
    mcp: bool | None = None,
    live: bool = False,
    rejudge: bool = False,
    **overrides: Any,
) -> RunOptions:
    """The settings of a run through the configured agent (`agent_cmd` or
    `agent_service`, the command line's, in its place), with the configured limits,
    replayed or `live`; `overrides` for what a front end sets itself (jobs, hooks,
    selection)."""
    settings = loaded.settings
    tools = project_tools(loaded)
    names = tool_names(tools)  # checked before the agent is imported
    service = _service(loaded, agent_cmd, agent_service, agent_service_protocol)
    factory, command = _agent(loaded, agent_cmd, agent_io) if service is None else (reference_agent, service)
    mcp = settings.mcp if mcp is None else mcp
    proxied: tuple[ProjectTool, ...] = ()
    if mcp:
        # Imported only where a run serves MCP (as an agent command's module is only
        # where one runs): a plain run pays for neither.
        from zeroclaw_eval.tools.mcp import require_sdk, upstream_tools

        require_sdk()  # before any case runs: every case would fail alike
        if live and settings.mcp_upstream:
            proxied = upstream_tools(settings.mcp_upstream, loaded.setting("mcp_upstream"))
            tools = (*tools, *proxied)
            names = tool_names(tools)
    refuse_live_agent_cmd(live, command)  # before live mode asks for a provider and its key
    limits: dict[str, AdaptiveLimit] = {}  # the agent's provider's and the judges', shared
    return RunOptions(
        agent_factory=factory,
        agent_cmd=command,
        case_timeout_secs=settings.case_timeout_secs,
        max_tool_iterations=settings.max_tool_iterations,
        user_input_match=settings.user_input_match,
        per_turn=settings.history == "turn",
        builtin_tools=settings.builtin_tools,
        tools=tools,
        mcp=mcp,
        recorded_as_doubles=frozenset(tool.name for tool in proxied),
        live=live_options(loaded, names) if live else None,
        judges=_judges(loaded, rejudge, limits) if live or rejudge else None,
        limits=limits,
        user_models=settings.live_provider in loaded.providers,
        judge_gate=judge_gate(loaded),
        mode="live" if live else "replay",
        max_fixture_bytes=settings.max_fixture_bytes,
        **overrides,
    )


def judge_gate(loaded: LoadedConfig) -> JudgeGate:
    """Which judge checks decide a case, as `[eval].judge_gate` says, with the calibration
    files of `[eval].calibration_dir` read (`ConfigError` for one that is not one)."""
    settings = loaded.settings
    folder = loaded.resolve(settings.calibration_dir)
    return load_gate(
        settings.judge_gate, folder, settings.judge_min_agreement, shown=settings.calibration_dir
    )


def _judges(loaded: LoadedConfig, rejudge: bool, limits: dict[str, AdaptiveLimit]) -> Judges:
    settings = loaded.settings
    return judges_of(
        loaded.providers, settings.judge_provider, settings.live_provider, again=rejudge, limits=limits
    )


def fixture_tools(loaded: LoadedConfig, agent_cmd: str | None = None) -> frozenset[str] | None:
    """The tools the project's fixtures may name (the one rule, `nameable_tools`): the
    built-in ones and the project's, checked; None (any) for an agent command or an agent
    service, which run their own. The agent is not imported."""
    external = command_text(loaded, agent_cmd) is not None or bool(loaded.settings.agent_service.strip())
    return nameable_tools(
        toolset(project_tools(loaded)), external=external, doubles_known=loaded.settings.mcp
    )


def is_builtin_tool(name: str) -> bool:
    """Whether `name` is a built-in tool, which a replay runs as it is (a project's tool is
    doubled in a scaffolded case)."""
    return name in BUILTIN_TOOLS


def project_tools(loaded: LoadedConfig) -> tuple[ProjectTool, ...]:
    """The project's own tools, from the factory `[eval].tools` names (none without one)."""
    return load_project_tools(loaded) if loaded.settings.tools else ()


def command_text(loaded: LoadedConfig, agent_cmd: str | None = None) -> str | None:
    """The command line of the agent command the cases run through, if they do: `agent_cmd`
    (the command line's) else `[eval].agent_cmd`; None for an agent of this process.
    `UsageError` for a command line given empty: it can start no agent."""
    if agent_cmd is not None and not agent_cmd.strip():
        raise UsageError("--agent-cmd is empty; give the command that starts the agent")
    return agent_cmd if agent_cmd is not None else loaded.settings.agent_cmd or None


def described_agent(loaded: LoadedConfig, agent_cmd: str | None = None) -> str:
    """Which agent the configuration names, in words, without importing it."""
    command = command_text(loaded, agent_cmd)
    if command is not None:
        return f"agent command {command!r}"
    if loaded.settings.agent_service:
        return f"agent service {loaded.settings.agent_service!r}"
    return loaded.settings.agent or "the reference agent"


def _service(
    loaded: LoadedConfig, agent_cmd: str | None, text: str | None, protocol: str | None
) -> AgentService | None:
    """The agent service the cases run through: `text` (the command line's) else
    `[eval].agent_service`; None when the cases run through another agent. It stands in
    for `[eval].agent` and `[eval].agent_cmd`, and `--agent-cmd` for it."""
    settings = loaded.settings
    if text is not None and not text.strip():
        raise UsageError("--agent-service is empty; give the command that starts the service")
    if text is not None and agent_cmd is not None:
        raise UsageError("--agent-cmd and --agent-service both name the agent; give one")
    if text is None and (agent_cmd is not None or not settings.agent_service):
        if protocol is not None:
            raise UsageError(
                "--agent-service-protocol says how to talk to --agent-service; give the service too"
            )
        return None
    if text is None and (settings.agent or settings.agent_cmd):
        raise ConfigError(
            "[eval] sets agent_service and also agent or agent_cmd; keep the one that runs your agent"
        )
    from zeroclaw_eval.backends.service import AgentService

    return AgentService.parse(
        text if text is not None else settings.agent_service,
        option="--agent-service" if text is not None else "[eval].agent_service",
        protocol=protocol or settings.agent_service_protocol,
        path=settings.agent_service_path,
        ready_path=settings.agent_service_ready_path,
        startup_secs=settings.agent_service_startup_secs,
        quiet_secs=settings.agent_service_quiet_secs,
        project_dir=loaded.base_dir,
        echo=settings.tool_echo,
    )


def _agent(
    loaded: LoadedConfig, agent_cmd: str | None, agent_io: str | None
) -> tuple[AgentFactory, AgentCommand | None]:
    """The agent the cases run through: `agent_cmd` (the command line's) else
    `[eval].agent_cmd`, else the factory `[eval].agent` names, else the reference loop.
    An agent command stands in for `[eval].agent`, whose module is then not imported."""
    settings = loaded.settings
    text = command_text(loaded, agent_cmd)
    if text is None:
        if agent_io is not None:
            raise UsageError("--agent-io says how to talk to --agent-cmd; give the command too")
        factory = load_agent_factory(loaded) if settings.agent else reference_agent
        return factory, None
    if settings.agent and agent_cmd is None:
        raise ConfigError("[eval] sets both agent and agent_cmd; keep the one that runs your agent")
    from zeroclaw_eval.backends.command import AgentCommand

    command = AgentCommand.parse(
        text, agent_io or settings.agent_io, loaded.base_dir, echo=settings.tool_echo
    )
    return reference_agent, command


def load_agent_factory(loaded: LoadedConfig) -> AgentFactory:
    """The agent factory `[eval].agent` names, imported from the configuration's folder."""
    spec = loaded.settings.agent
    factory: AgentFactory = load_callable(spec, loaded.setting("agent"), loaded.base_dir, AgentLoadError)
    return factory


def load_project_tools(loaded: LoadedConfig) -> tuple[ProjectTool, ...]:
    """The tools the factory `[eval].tools` names returns (each checked when it joins the
    built-in ones, `tools.project.toolset`), imported from the configuration's folder."""
    spec = loaded.settings.tools
    factory = load_callable(spec, loaded.setting("tools"), loaded.base_dir, ConfigError)
    try:
        made = factory()
    except Exception as exc:
        raise ConfigError(raised(f"[eval].tools: {spec}", exc)) from None
    # One tool, or text, is iterable or a likely slip; say what is wanted, not "not iterable".
    if isinstance(made, (str, bytes, dict, ProjectTool)) or not isinstance(made, Iterable):
        raise ConfigError(
            f"[eval].tools: {spec} returned {type(made).__name__}; it must return a list of"
            " ProjectTool (return [tool] for one)"
        )
    try:  # a generator runs the project's code only now
        return tuple(made)
    except Exception as exc:
        raise ConfigError(raised(f"[eval].tools: {spec}", exc)) from None


HOW_TO = """\
live mode needs a provider. In zeroclaw.toml (or [tool.zeroclaw.*] in pyproject.toml):

    [eval]
    live_provider = "NAME"

    [providers.models.NAME]
    base_url = "https://api.example.com/v1"   # an OpenAI-compatible endpoint
    model = "MODEL"
    api_key_env = "NAME_API_KEY"              # the environment variable holding the key

then export NAME_API_KEY and run again"""


def live_options(loaded: LoadedConfig, known_tools: Iterable[str] = BUILTIN_TOOLS) -> LiveOptions:
    """The live-mode options the configuration describes, its allowlist naming only
    `known_tools`; a usage error saying what to set when something is missing."""
    settings = loaded.settings
    name = settings.live_provider
    if not name:
        raise UsageError(f"[eval].live_provider is empty, so live mode is off.\n{HOW_TO}")
    provider = loaded.providers.get(name)
    if provider is None:
        defined = ", ".join(sorted(loaded.providers)) or "none"
        raise UsageError(
            f"[eval].live_provider = {name!r}, but there is no [providers.models.{name}] table"
            f" (defined: {defined}).\n{HOW_TO}"
        )
    check_allowlist(settings.live_allowed_tools, known_tools)
    key = ""
    if provider.api_key_env:
        key = os.environ.get(provider.api_key_env, "")
        if not key:
            raise UsageError(
                f"the environment variable {provider.api_key_env} is not set"
                f" (api_key_env of [providers.models.{name}]); export the provider's key in it"
            )
    return LiveOptions(provider, key, frozenset(settings.live_allowed_tools))


def settings_digest(
    loaded: LoadedConfig, agent: Any, *, live: bool, repeat: int, min_pass_rate: float | None
) -> str:
    """A digest of what decides a run's verdicts besides its fixtures: the configuration's
    settings and provider tables, the agent the command line names (`agent`: its
    `AgentChoice`), the mode and the repeats. `run --resume` keeps only the verdicts of a
    run with the same digest. Keys never enter it: the tables name their variables."""
    import hashlib
    import json
    from dataclasses import asdict

    said = {
        "eval": loaded.settings.model_dump(mode="json"),
        "providers": {
            name: table.model_dump(mode="json") for name, table in sorted(loaded.providers.items())
        },
        "agent": asdict(agent),
        "live": live,
        "repeat": repeat,
        "min_pass_rate": min_pass_rate,
        # A calibration written or removed changes which judge checks decide a case.
        "calibrations": sorted(
            (model, rubric, found.labels, found.agreement)
            for (model, rubric), found in judge_gate(loaded).calibrations.items()
        ),
    }
    return hashlib.sha256(json.dumps(said, sort_keys=True).encode()).hexdigest()
