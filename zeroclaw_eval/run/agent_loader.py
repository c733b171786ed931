"""Loading the agent a project names in `[eval].agent` (`module:callable`)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

from zeroclaw_eval.errors import AgentLoadError
from zeroclaw_eval.run.agent import AgentFactory


def load_agent_factory(spec: str, project_dir: Path | None = None) -> AgentFactory:
    """Import the factory named by `module:callable` (`module.sub:attr.attr` works too).

    `project_dir` (the folder of the config file) is put on `sys.path` first, as pytest
    does with its rootdir, so a module of the project imports without being installed.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise AgentLoadError(
            f"[eval].agent = {spec!r} is not of the form 'module:callable'"
            " (for example 'my_project.agents:make_agent')"
        )
    if project_dir is not None and str(project_dir) not in sys.path:
        sys.path.insert(0, str(project_dir))
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:
        raise AgentLoadError(
            f"[eval].agent: cannot import module {module_name!r}: {type(exc).__name__}: {exc}"
        ) from None
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AgentLoadError(
                f"[eval].agent: module {module_name!r} has no attribute {attribute!r}"
            ) from None
    if not callable(target):
        raise AgentLoadError(f"[eval].agent: {spec!r} is not callable")
    factory: AgentFactory = target
    return factory
