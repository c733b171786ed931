"""The pytest plugin: each fixture of a suite becomes a test item, run with `run_case`.

Opt-in. Registered under the `pytest11` entry-point group, so pytest imports this module
in every run of every project that has zeroclaw-eval installed; it does nothing unless
`--zeroclaw[=SUITE]` is given or the ini option `zeroclaw_suite` names a suite. At import
it loads only pytest and the standard library; the rest of the package is imported once
the plugin is switched on.

Switched on, it reads the project's `[eval]` settings (`load_config`, from the rootdir):
the agent factory or agent command, the project's tools, `case_timeout_secs` and
`max_tool_iterations`. Cases are always replayed: live mode spends tokens and stays with
`zeroclaw eval run --mode live`. Each fixture is a file node
(`evals/regression/echo_hello.json`) holding one item named after the file's stem; a
rejected fixture is an error at setup, a run error or a failed check a failure, shown
with the table's lines and the fixture field's `path:line:col`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

if TYPE_CHECKING:
    from zeroclaw_eval.cases.case import Case, RejectedFixture
    from zeroclaw_eval.report.model import CaseReport
    from zeroclaw_eval.runner import RunOptions

#: What a bare `--zeroclaw` stores: "on, with the configured suite".
_CONFIGURED = "\0configured"
_SUITE_HELP = (
    "Run each fixture of a zeroclaw-eval suite as a test (replayed). SUITE defaults to the ini"
    " option zeroclaw_suite, else [eval].suite_dir; write --zeroclaw=SUITE, since a bare"
    " --zeroclaw takes the next argument as the suite."
)


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--zeroclaw[=SUITE]` and the ini option `zeroclaw_suite`."""
    group = parser.getgroup("zeroclaw", "zeroclaw-eval: fixtures as tests")
    group.addoption(
        "--zeroclaw", dest="zeroclaw", nargs="?", const=_CONFIGURED, metavar="SUITE", help=_SUITE_HELP
    )
    parser.addini(
        "zeroclaw_suite",
        "A zeroclaw-eval suite folder (relative to this file) whose fixtures run as tests in"
        " every pytest run; empty: only with --zeroclaw.",
        default="",
    )


class _Plugin:
    """The switched-on plugin: its suite, found when pytest starts (a missing suite is a
    usage error then), and the gate, made on first use. An agent that does not import,
    or a configuration mistake, then fails the fixtures' collection, not the pytest run:
    the other tests still run (the ones that debug that agent, say)."""

    def __init__(self, suite: Path, rootpath: Path) -> None:
        self.suite = suite
        self._rootpath = rootpath
        self._gate: RunOptions | None = None
        self._failure: str | None = None

    def gate(self) -> RunOptions:
        """The gate (how the cases run), made once, on the first call; `_GateError`
        saying why when it cannot be made."""
        if self._failure is not None:
            raise _GateError(self._failure)
        if self._gate is None:
            from zeroclaw_eval.errors import EvalError

            try:
                self._gate = _make_gate(self._rootpath)
            except EvalError as error:
                self._failure = f"zeroclaw-eval: {error}"
                raise _GateError(self._failure) from None
        return self._gate


class _GateError(Exception):
    """The gate could not be made: every fixture's collection says why."""


_PLUGIN = pytest.StashKey[_Plugin]()


def pytest_configure(config: pytest.Config) -> None:
    """Switch the plugin on when asked: find the suite, and add it to what pytest collects
    when no path on the command line chose what to run."""
    on, requested = _requested_suite(config)
    if not on:
        return
    from zeroclaw_eval.errors import EvalError

    try:
        suite = _suite(config, requested)
    except EvalError as error:
        raise pytest.UsageError(f"zeroclaw-eval: {error}") from None
    plugin = config.stash[_PLUGIN] = _Plugin(suite, config.rootpath)
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        # Paths given on the command line select as usual (`pytest tests/test_x.py` runs
        # no evals); otherwise the suite joins the testpaths.
        here = config.invocation_params.dir
        chosen = [(here / arg.split("::")[0]).resolve() for arg in config.args]
        if not any(path == plugin.suite or path in plugin.suite.parents for path in chosen):
            config.args.append(str(plugin.suite))


def _requested_suite(config: pytest.Config) -> tuple[bool, Path | None]:
    """Whether the plugin is on, and the suite asked for, made absolute (None: the
    `[eval].suite_dir` of the configuration)."""
    flag = config.getoption("zeroclaw")
    if flag and flag != _CONFIGURED:
        return True, config.invocation_params.dir / flag
    ini = str(config.getini("zeroclaw_suite"))
    if ini:
        base = config.inipath.parent if config.inipath is not None else config.rootpath
        return True, base / ini
    return flag is not None, None


def _suite(config: pytest.Config, requested: Path | None) -> Path:
    """The suite folder, checked; the configuration is read only when no suite was named."""
    from zeroclaw_eval.collect.suite import discover, display_path
    from zeroclaw_eval.errors import UsageError
    from zeroclaw_eval.report.words import NOTHING_RAN

    if requested is None:
        from zeroclaw_eval.config.load import load_config

        loaded = load_config(cwd=config.rootpath)
        requested = loaded.resolve(loaded.settings.suite_dir)
    suite = requested.resolve()
    if suite.exists() and not suite.is_dir():
        raise UsageError(
            f"--zeroclaw takes a suite folder, and {display_path(suite)} is not one; write"
            " --zeroclaw=SUITE (a bare --zeroclaw takes the next argument as its suite)"
        )
    if not suite.is_dir():
        raise UsageError(
            f"suite folder not found: {display_path(suite)} (give --zeroclaw=SUITE, or set the ini"
            " option zeroclaw_suite or [eval].suite_dir)"
        )
    if not discover(suite):
        raise UsageError(f"no fixtures found in {display_path(suite)} ({NOTHING_RAN})")
    return suite


def _make_gate(rootpath: Path) -> RunOptions:
    from zeroclaw_eval.config.load import load_config
    from zeroclaw_eval.runner.project import run_options

    return run_options(load_config(cwd=rootpath))


def pytest_report_header(config: pytest.Config) -> str | None:
    """Say which suite replays through which agent (nothing when the plugin is off); the
    agent is named from the configuration, not imported."""
    plugin = config.stash.get(_PLUGIN, None)
    if plugin is None:
        return None
    from zeroclaw_eval._version import __version__
    from zeroclaw_eval.collect.suite import display_path
    from zeroclaw_eval.config.load import load_config
    from zeroclaw_eval.errors import EvalError
    from zeroclaw_eval.runner.project import described_agent

    try:
        agent = described_agent(load_config(cwd=config.rootpath))
    except EvalError:
        agent = "an agent its configuration cannot name (see the fixtures' errors)"
    from zeroclaw_eval.reporters.safety import shown_lines

    return shown_lines(f"zeroclaw-eval {__version__}: replaying {display_path(plugin.suite)} with {agent}")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> EvalFile | None:
    """A fixture of the suite (a direct `*.json` child, as for `zeroclaw eval run`)."""
    plugin = parent.config.stash.get(_PLUGIN, None)
    if plugin is None or file_path.suffix != ".json" or file_path.parent.resolve() != plugin.suite:
        return None
    result: EvalFile = EvalFile.from_parent(parent, path=file_path)
    return result


class EvalFile(pytest.File):
    """A fixture file: admitted when collected, holding one `EvalItem`."""

    def collect(self) -> Iterator[EvalItem]:
        from zeroclaw_eval.cases.admission import load_fixture

        try:
            gate = self.config.stash[_PLUGIN].gate()
        except _GateError as error:
            # An item that errors at setup, not a collection error: pytest stops a whole
            # run at collection errors, and the other tests must still run.
            yield EvalItem.from_parent(self, name=self.path.stem, fixture=None, broken=str(error))
            return
        fixture = load_fixture(self.path, gate.nameable_tools, max_bytes=gate.max_fixture_bytes)
        yield EvalItem.from_parent(self, name=self.path.stem, fixture=fixture)


class EvalItem(pytest.Item):
    """One case: a rejected fixture errors at setup; a run error or a failed check fails."""

    def __init__(
        self, *, fixture: Case | RejectedFixture | None, broken: str | None = None, **kwargs: Any
    ) -> None:
        from zeroclaw_eval.cases.case import Case

        super().__init__(**kwargs)
        self.fixture = fixture
        #: Why no case can run at all (the agent or the configuration), when that is so.
        self.broken = broken
        #: The fixture's display name (None for a rejected fixture that has no readable one).
        self.model_name = (
            fixture.trace.model_name if isinstance(fixture, Case) else fixture.model_name if fixture else None
        )
        if self.model_name:
            self.user_properties.append(("model_name", self.model_name))
        mark = fixture.trace.xfail if isinstance(fixture, Case) else None
        if mark is not None:
            # The fixture's `xfail` is pytest's own: its failure is reported xfailed, its
            # pass XPASS, failing the session under a strict mark.
            self.add_marker(pytest.mark.xfail(reason=mark.reason, strict=mark.strict))

    def setup(self) -> None:
        from zeroclaw_eval.cases.case import RejectedFixture
        from zeroclaw_eval.collect.suite import display_path
        from zeroclaw_eval.report.model import CaseReport

        fixture = self.fixture
        if self.broken is not None:
            _fail(self.broken)
        if isinstance(fixture, RejectedFixture):
            # Raised in setup, so pytest counts an error: no agent was ever tried.
            shown = CaseReport(
                fixture.name, display_path(fixture.path), fixture.model_name, problems=fixture.problems
            )
            _fail(self._explain(shown))

    def runtest(self) -> None:
        from zeroclaw_eval.cases.case import Case
        from zeroclaw_eval.errors import AgentLoadError, EvalError
        from zeroclaw_eval.runner import run_case

        assert isinstance(self.fixture, Case)  # setup stopped a rejected fixture
        try:
            report = asyncio.run(run_case(self.fixture, self.config.stash[_PLUGIN].gate()))
        except AgentLoadError as error:
            # The factory would fail every case alike: say so once, then stop.
            self.session.shouldstop = "zeroclaw-eval: the agent could not be made (see the first failure)"
            _fail(f"configuration error: {error}")
        except EvalError as error:
            _fail(str(error))
        if not report.passed:
            _fail(self._explain(report))

    def _explain(self, report: CaseReport) -> str:
        """The table's lines for `report`, less its header line (the node id names the
        case): each failing check, expected vs found, at its `path:line:col`."""
        from zeroclaw_eval.reporters.table import case_lines

        verbose = int(self.config.getoption("verbose")) > 0
        lines = case_lines(report, False, verbose)[1:]
        return "\n".join(line.removeprefix("    ") for line in lines)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        from zeroclaw_eval.reporters.safety import log_line

        # The failure's header line: a fixture's name and model_name are its author's text.
        name = log_line(self.path.name)
        return self.path, None, f"{name} ({log_line(self.model_name)})" if self.model_name else name


def _fail(message: str) -> NoReturn:
    """Fail the item with `message`, which quotes fixtures, agents and configuration: held
    to the rule every line the CLI prints is (`safety.shown_lines`), as pytest prints it
    to the same terminals and CI logs."""
    from zeroclaw_eval.reporters.safety import shown_lines

    pytest.fail(shown_lines(message), pytrace=False)
