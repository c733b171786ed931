"""Shared helpers for the end-to-end tests: the installed console script, run for real."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest


def console_script() -> str:
    """The installed `zeroclaw` script beside this interpreter (else on PATH)."""
    beside = Path(sys.executable).parent / ("zeroclaw.exe" if os.name == "nt" else "zeroclaw")
    if beside.exists():
        return str(beside)
    found = shutil.which("zeroclaw")
    if found is None:
        raise RuntimeError("the zeroclaw console script is not installed; run pip install -e '.[test]'")
    return found


@dataclass
class Result:
    """A finished `zeroclaw` process."""

    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """stdout parsed as JSON."""
        return json.loads(self.stdout)


Runner = Callable[..., Result]


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Result:
    """Run the console script with `args`; NO_COLOR and GITHUB_* are unset unless given."""
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR" and not k.startswith("GITHUB_")}
    environment.update(env or {})
    completed = subprocess.run(
        [console_script(), *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    return Result(completed.returncode, completed.stdout, completed.stderr)


@pytest.fixture
def zeroclaw() -> Runner:
    """`run_cli`, as a fixture."""
    return run_cli


def write_fixture(folder: Path, name: str, fixture: dict[str, Any] | str) -> Path:
    """Write a fixture (a dict, dumped as JSON, or literal text) into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    text = fixture if isinstance(fixture, str) else json.dumps(fixture, indent=2, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, snippet: str) -> int:
    """1-based line of the first occurrence of `snippet` in `text`."""
    index = text.index(snippet)
    return text.count("\n", 0, index) + 1


#: A fixture that passes: one echo dispatch whose result carries the value.
PASSING = {
    "model_name": "echo-hello",
    "turns": [
        {
            "user_input": "Echo hello",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [{"id": "c1", "name": "echo", "arguments": {"message": "hello"}}],
                    }
                },
                {"response": {"type": "text", "content": "hello"}},
            ],
        }
    ],
    "expects": {"exact_tool_calls": 1, "tool_results_contain": [{"tool": "echo", "needle": "hello"}]},
}


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make `tempfile` (and so case workspaces) create folders under a directory this test owns."""
    base = tmp_path / "tmp"
    base.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    return base
