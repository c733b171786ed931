"""The package stays ruff- and mypy-clean: checked here so CI enforces it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The same folders the nox lint session checks.
LINTED = ("zeroclaw_eval", "tests", "benchmarks", "examples", "noxfile.py")


def _tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False, timeout=300
    )


@pytest.mark.parametrize(
    "command",
    [
        ("ruff", "check", *LINTED),
        ("ruff", "format", "--check", *LINTED),
    ],
    ids=["ruff-check", "ruff-format"],
)
def test_ruff_is_clean(command: tuple[str, ...]) -> None:
    result = _tool(*command)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = _tool("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
