"""Fixtures shared by every test module; what they build from lives in `tests/builders.py`."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.invoke import Runner, invoke, run_cli


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
