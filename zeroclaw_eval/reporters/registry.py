"""The report formats: the one `Reporter` interface, the built-in formats of a suite
report, and plugins found by entry point.

A reporter writes a finished report to an open text stream; `render.render` owns where
that stream goes (stdout, or a file replaced whole). Whether a format is written a piece
at a time, and whether it is meant for a human reading a CI log, are properties of its
reporter, so nothing else keeps a list of formats. Every kind of report has its
reporters: a suite report's are here (`get_reporter`), the vacuity check's, mutation
testing's and the pull-request comment's are their modules' (`vacuity.FORMATS`,
`mutation.FORMATS`, `pull_request.COMMENT`).

Third-party formats register a function `render(report, *, color=False) -> str` (it may
also take `verbose` and `quiet`) under the entry-point group `zeroclaw_eval.reporters`,
for example in their pyproject.toml:

    [project.entry-points."zeroclaw_eval.reporters"]
    tap = "my_package.tap:render"
"""

from __future__ import annotations

import importlib
import inspect
import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, Protocol, TypeVar

from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.report.model import SuiteReport
from zeroclaw_eval.reporters.safety import encodable

ENTRY_POINT_GROUP = "zeroclaw_eval.reporters"

#: Each built-in format's module: its `REPORTER` is the format.
_BUILTIN = {
    "table": "zeroclaw_eval.reporters.table",
    "json": "zeroclaw_eval.reporters.json_report",
    "junit": "zeroclaw_eval.reporters.junit",
    "html": "zeroclaw_eval.reporters.html.page",
    "github": "zeroclaw_eval.reporters.github",
    "otlp": "zeroclaw_eval.reporters.otlp",
}


class TextSink(Protocol):
    """Where a reporter writes: an open text stream (a file, stdout, a `StringIO`)."""

    def write(self, text: str, /) -> int:
        """Write `text`; how much of it was written."""
        ...


#: The kind of report a reporter writes (a `SuiteReport`, a vacuity or mutation verdict,
#: the comparison a pull-request comment is made of).
ReportT = TypeVar("ReportT")
ReportIn = TypeVar("ReportIn", contravariant=True)


class Writer(Protocol[ReportIn]):
    """Writes the output for `report` to `out`; `verbose` and `quiet` are the command
    line's -v and -q, `color` whether the text may be painted."""

    def __call__(self, report: ReportIn, out: TextSink, *, color: bool, verbose: bool, quiet: bool) -> None:
        """Write the whole output, a piece or all at once."""
        ...


@dataclass(frozen=True)
class Reporter(Generic[ReportT]):
    """A report format: what writes it, and what kind of output it is."""

    name: str
    write: Writer[ReportT]
    #: Written a piece at a time as it is made, so a large suite's output is never held
    #: whole; otherwise made whole first, so a reporter that raises writes nothing at all.
    streams: bool = False
    #: Meant for a human reading a log: it quotes model text as it is, so printed to a
    #: GitHub Actions log it is fenced off from the runner's command parser.
    for_log: bool = False
    #: Shows what a passing case's details hold (its checks' words, the record of its
    #: run) without `-v`: a run that writes no such output keeps passing cases compact
    #: (`report.compact`). A plugin's format is taken to show them.
    passing_details: bool = True

    @staticmethod
    def streaming(
        name: str, pieces: Callable[[ReportT], Iterable[str]], *, passing_details: bool = True
    ) -> Reporter[ReportT]:
        """A format written a piece at a time: each of `pieces(report)` as it is made."""

        def write(report: ReportT, out: TextSink, *, color: bool, verbose: bool, quiet: bool) -> None:
            for piece in pieces(report):
                out.write(piece)

        return Reporter(name, write, streams=True, passing_details=passing_details)

    @staticmethod
    def whole(
        name: str, render: Callable[..., str], *, for_log: bool = False, passing_details: bool = True
    ) -> Reporter[Any]:
        """A format made whole, then written: `render(report)` (given `color`, `verbose`
        and `quiet` too where it takes them), as a plugin's format is."""
        return Reporter(name, _text_writer(render), for_log=for_log, passing_details=passing_details)

    def __call__(
        self, report: ReportT, *, color: bool = False, verbose: bool = False, quiet: bool = False
    ) -> str:
        """The whole output for `report`, as the text an output holds (a lone surrogate
        as its visible escape, as every output writes it)."""
        out = io.StringIO()
        self.write(report, out, color=color, verbose=verbose, quiet=quiet)
        return encodable(out.getvalue())


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


def get_reporter(name: str) -> Reporter[SuiteReport]:
    """The reporter of a suite report's format `name`; a `UsageError` naming the choices if none."""
    if name in _BUILTIN:
        reporter: Reporter[SuiteReport] = importlib.import_module(_BUILTIN[name]).REPORTER
        return reporter
    plugin = _plugin_entry_points().get(name)
    if plugin is None:
        raise UsageError(f"unknown report format {name!r}; choose from: {', '.join(reporter_names())}")
    try:
        loaded: Callable[..., str] = plugin.load()
    except Exception as exc:
        raise UsageError(f"report format {name!r} ({plugin.value}) failed to load: {exc}") from None
    return Reporter.whole(name, loaded)


def _text_writer(render: Callable[..., str]) -> Writer[Any]:
    """A plugin's `render(report, *, color) -> str` as a writer: the text made whole, then
    written. Colour and verbosity are extras a format may offer; a plugin written for
    `(report, *, color)` is called as it expects, a format with no colour with none."""

    def write(report: Any, out: TextSink, *, color: bool, verbose: bool, quiet: bool) -> None:
        asked = {"verbose": verbose, "quiet": quiet}
        extra = {name: True for name, wanted in asked.items() if wanted and _takes(render, name)}
        if not _refuses(render, "color"):
            extra["color"] = color
        out.write(render(report, **extra))

    return write


def _takes(render: Callable[..., str], option: str) -> bool:
    try:
        return option in inspect.signature(render).parameters
    except (TypeError, ValueError):  # a callable without a signature to read (a C function)
        return False


def _refuses(render: Callable[..., str], option: str) -> bool:
    """Whether `render`'s signature says it takes no keyword `option` (none of that name
    and no `**` catch-all); a callable without a signature to read takes it."""
    try:
        parameters = inspect.signature(render).parameters.values()
    except (TypeError, ValueError):
        return False
    names = {parameter.name for parameter in parameters}
    catch_all = any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters)
    return option not in names and not catch_all
