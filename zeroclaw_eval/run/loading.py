"""Loading what a project names in its configuration (`module:callable`): the agent
factory of `[eval].agent` and the tools of `[eval].tools`.

The folder of the config file is put on `sys.path` first, as pytest does with its
rootdir, so a module of the project imports without being installed.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from zeroclaw_eval.errors import AgentLoadError, ConfigError, UsageError
from zeroclaw_eval.run.agent import AgentFactory
from zeroclaw_eval.run.agent_call import raised
from zeroclaw_eval.run.project_tools import ProjectTool

_EXAMPLES = {"[eval].agent": "my_project.agents:make_agent", "[eval].tools": "my_project.tools:eval_tools"}


def load_callable(
    spec: str, setting: str, project_dir: Path | None = None, error: type[UsageError] = UsageError
) -> Callable[..., Any]:
    """Import the callable `spec` names (`module:callable`, or `module.sub:attr.attr`);
    `error`, naming `setting`, when it cannot be had."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        example = _EXAMPLES.get(setting, "my_project.module:function")
        raise error(f"{setting} = {spec!r} is not of the form 'module:callable' (for example {example!r})")
    if project_dir is not None and str(project_dir) not in sys.path:
        sys.path.insert(0, str(project_dir))
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:
        raise error(f"{setting}: cannot import module {module_name!r}: {type(exc).__name__}: {exc}") from None
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise error(f"{setting}: module {module_name!r} has no attribute {attribute!r}") from None
    if not callable(target):
        raise error(f"{setting}: {spec!r} is not callable")
    return target  # type: ignore[no-any-return]


def load_agent_factory(spec: str, project_dir: Path | None = None) -> AgentFactory:
    """The agent factory `[eval].agent` names."""
    factory: AgentFactory = load_callable(spec, "[eval].agent", project_dir, AgentLoadError)
    return factory


def load_project_tools(spec: str, project_dir: Path | None = None) -> tuple[ProjectTool, ...]:
    """The tools the factory `[eval].tools` names returns (each checked when it joins the
    built-in ones, `project_tools.toolset`)."""
    factory = load_callable(spec, "[eval].tools", project_dir, ConfigError)
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
