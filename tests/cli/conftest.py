"""Fixtures of the command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders import HOSTILE_ANSWER_FIXTURE, PASSING, TYPO_FIXTURE, write_fixture


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose suite holds a passing, a failing (hostile) and a rejected fixture."""
    suite = tmp_path / "evals" / "regression"
    write_fixture(suite, "a_good.json", PASSING)
    write_fixture(suite, "b_hostile.json", HOSTILE_ANSWER_FIXTURE)
    write_fixture(suite, "c_typo.json", TYPO_FIXTURE)
    return tmp_path
