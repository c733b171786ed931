"""Fixtures shared by every test module; what they build from lives in `tests/support/builders.py`."""

from __future__ import annotations

import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import HOSTILE_ANSWER_FIXTURE, PASSING, TYPO_FIXTURE, write_fixture
from tests.support.invoke import Runner, invoke, run_cli
from tests.support.scripts import TWO_TURNS, load
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.reporters.registry import ENTRY_POINT_GROUP, reset_registry
from zeroclaw_eval.serve.faults import parse_fault
from zeroclaw_eval.serve.server import ReplayServer

#: The module of the reporter plugin `install_plugin` installs.
PLUGIN_MODULE = "zc_eval_test_plugin"
_PLUGIN_SOURCE = """
def render(report, *, color=False):
    return f"TAP {len(report.cases)} cases\\n"

def boom(report, *, color=False):
    raise RuntimeError("reporter exploded")
"""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="Rewrite the golden files under tests/reporters/golden/ from the current output.",
    )


@pytest.fixture
def zeroclaw() -> Runner:
    """The installed `zeroclaw` console script, run in a subprocess."""
    return run_cli


@pytest.fixture
def cli() -> Runner:
    """The `zeroclaw` command, run in this process."""
    return invoke


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make `tempfile` (and so case workspaces) create folders under a directory this test owns."""
    base = tmp_path / "tmp"
    base.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    return base


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    """The reporter registry forgets discovered plugins before and after the test."""
    reset_registry()
    yield
    reset_registry()


@pytest.fixture
def install_plugin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_registry: None
) -> Callable[..., None]:
    """Install a reporter plugin for this test, as a distribution on `sys.path`: the module
    `PLUGIN_MODULE` (`render` and a raising `boom` unless `source` says otherwise) and an
    entry point per `name -> attribute` in `entries`."""

    def install(entries: dict[str, str], source: str = _PLUGIN_SOURCE) -> None:
        site = tmp_path / "site"
        site.mkdir(exist_ok=True)
        (site / f"{PLUGIN_MODULE}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        info = site / f"{PLUGIN_MODULE}-1.0.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: zc-eval-test-plugin\nVersion: 1.0\n", encoding="utf-8"
        )
        lines = "".join(f"{name} = {PLUGIN_MODULE}:{target}\n" for name, target in entries.items())
        (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}", encoding="utf-8")
        monkeypatch.syspath_prepend(str(site))
        monkeypatch.delitem(sys.modules, PLUGIN_MODULE, raising=False)

    return install


@pytest.fixture
def serve() -> Iterator[Callable[..., ReplayServer]]:
    """Start `ReplayServer`s on loopback: `serve(cases, *fault_specs, single=False,
    **settings)` (`user_input_match`, `tool_echo`, `per_turn`); each is stopped when the
    test ends."""
    started: list[ReplayServer] = []

    def start(cases: list[Case], *faults: str, single: bool = False, **settings: Any) -> ReplayServer:
        server = ReplayServer(cases, [parse_fault(f) for f in faults], single=single, **settings).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def two_turns(tmp_path: Path) -> Case:
    """The two-turn script (`tests.support.scripts.TWO_TURNS`), admitted."""
    return load(tmp_path, two_turns=TWO_TURNS)[0]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder whose default suite (evals/regression) holds one passing case."""
    write_fixture(tmp_path / "evals" / "regression", "echo_hello.json", PASSING)
    return tmp_path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose suite holds a passing, a failing (hostile) and a rejected fixture."""
    suite = tmp_path / "evals" / "regression"
    write_fixture(suite, "a_good.json", PASSING)
    write_fixture(suite, "b_hostile.json", HOSTILE_ANSWER_FIXTURE)
    write_fixture(suite, "c_typo.json", TYPO_FIXTURE)
    return tmp_path
