"""Fixtures of the run-stage tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zeroclaw_eval.tools.workspace import Workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    """A workspace holding `docs/a.md`, `hello.txt`, and `link.txt`, a symlink to a
    secret file outside it."""
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("alpha doc", encoding="utf-8")
    (root / "hello.txt").write_text("hello 東京", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET", encoding="utf-8")
    os.symlink(outside / "secret.txt", root / "link.txt")
    return Workspace(root)
