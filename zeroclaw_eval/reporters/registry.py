"""The registry of report formats: the built-in ones, and plugins found by entry point.

Third-party formats register a reporter under the entry-point group
`zeroclaw_eval.reporters`, for example in their pyproject.toml:

    [project.entry-points."zeroclaw_eval.reporters"]
    tap = "my_package.tap:render"
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Protocol

from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.report.model import SuiteReport

ENTRY_POINT_GROUP = "zeroclaw_eval.reporters"

_BUILTIN = {
    "table": "zeroclaw_eval.reporters.table",
    "json": "zeroclaw_eval.reporters.json_report",
    "junit": "zeroclaw_eval.reporters.junit",
    "html": "zeroclaw_eval.reporters.html.page",
    "github": "zeroclaw_eval.reporters.github",
}


class Reporter(Protocol):
    """Renders a finished report as text (a reporter may also take `verbose: bool` and
    `quiet: bool`, the -v and -q of the command line)."""

    def __call__(self, report: SuiteReport, *, color: bool = False) -> str:
        """The whole output for `report`."""
        ...


_plugins: dict[str, EntryPoint] | None = None


def _plugin_entry_points() -> dict[str, EntryPoint]:
    # Looked up on first need only: scanning installed distributions costs start-up time.
    global _plugins
    if _plugins is None:
        found = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
        _plugins = {name: ep for name, ep in found.items() if name not in _BUILTIN}
    return _plugins


def reset_registry() -> None:
    """Forget discovered plugins (tests install and remove them)."""
    global _plugins
    _plugins = None


def builtin_names() -> list[str]:
    """The formats zeroclaw-eval ships."""
    return list(_BUILTIN)


def reporter_names() -> list[str]:
    """Every available format: the built-in ones, then plugins by name."""
    return [*_BUILTIN, *sorted(_plugin_entry_points())]


def get_reporter(name: str) -> Reporter:
    """The reporter for format `name`; a `UsageError` naming the choices if none."""
    if name in _BUILTIN:
        render: Reporter = importlib.import_module(_BUILTIN[name]).render
        return render
    plugin = _plugin_entry_points().get(name)
    if plugin is None:
        raise UsageError(f"unknown report format {name!r}; choose from: {', '.join(reporter_names())}")
    try:
        loaded: Callable[..., str] = plugin.load()
    except Exception as exc:
        raise UsageError(f"report format {name!r} ({plugin.value}) failed to load: {exc}") from None
    return loaded
