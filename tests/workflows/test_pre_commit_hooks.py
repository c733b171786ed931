"""`.pre-commit-hooks.yaml`: the hook other repositories use is a manifest pre-commit reads,
its entry is a command this package installs, and that command, given the files a commit
changed, passes a good fixture and fails a bad one at its field.

The manifest is read with the strict YAML-subset reader (`tests/yaml_subset.py`), which
refuses what it cannot read exactly, since the test dependencies hold no YAML package.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from yaml import safe_load as load

from tests.support.builders import PASSING, TYPO_FIXTURE, line_col, write_fixture
from tests.support.invoke import run_cli
from zeroclaw_eval.cli import main

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
#: The keys pre-commit's manifest schema defines (it ignores any other, silently).
HOOK_KEYS = {
    "id", "name", "entry", "language", "alias", "files", "exclude", "types", "types_or",
    "exclude_types", "additional_dependencies", "args", "always_run", "fail_fast",
    "pass_filenames", "description", "language_version", "log_file",
    "minimum_pre_commit_version", "require_serial", "stages", "verbose",
}  # fmt: skip


@pytest.fixture(scope="module")
def hook() -> dict[str, Any]:
    hooks = load(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(hooks, list)
    (found,) = [h for h in hooks if h["id"] == "zeroclaw-eval-check"]
    assert isinstance(found, dict)
    return found


def test_the_hook_is_a_manifest_entry_pre_commit_reads(hook: dict[str, Any]) -> None:
    assert {"id", "name", "entry", "language"} <= set(hook)
    assert set(hook) <= HOOK_KEYS, f"keys pre-commit does not know: {sorted(set(hook) - HOOK_KEYS)}"
    assert hook["language"] == "python"  # pre-commit installs this package for the hook
    assert hook.get("pass_filenames", True)  # the changed files are the arguments


def test_the_entry_is_an_installed_script_and_a_command(hook: dict[str, Any]) -> None:
    script, *words = shlex.split(hook["entry"])
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["scripts"][script] == "zeroclaw_eval.cli:entry"  # which runs main
    command: click.Command | None = main
    context = click.Context(main)
    for word in words:
        assert isinstance(command, click.Group), f"{word!r} follows a command that has no subcommands"
        command = command.get_command(context, word)
    assert command is not None
    assert command.name == "check"


@pytest.mark.parametrize(
    ("path", "checked"),
    [
        ("evals/regression/echo.json", True),
        ("evals/capability/deep/case.json", True),
        ("evals/README.md", False),
        ("src/evals/case.json", False),
        ("package.json", False),
    ],
)
def test_the_files_pattern_takes_the_fixtures_under_evals(
    hook: dict[str, Any], path: str, checked: bool
) -> None:
    # pre-commit matches `files` with re.search against the path from the repository root.
    assert bool(re.search(hook["files"], path)) is checked


def test_the_hook_fails_a_bad_fixture_and_passes_a_good_one(hook: dict[str, Any], tmp_path: Path) -> None:
    script, *words = shlex.split(hook["entry"])
    suite = tmp_path / "evals" / "regression"
    write_fixture(suite, "good.json", PASSING)
    write_fixture(suite, "typo.json", TYPO_FIXTURE)
    # As pre-commit runs it: the entry, then the changed files, from the repository root.
    good = run_cli(*words, "evals/regression/good.json", cwd=tmp_path, script=script)
    assert good.code == 0, good.stdout + good.stderr
    bad = run_cli(
        *words, "evals/regression/typo.json", "evals/regression/good.json", cwd=tmp_path, script=script
    )
    assert bad.code == 1, bad.stdout + bad.stderr
    line, col = line_col(TYPO_FIXTURE, '"tool_used"')
    assert (
        f"evals/regression/typo.json:{line}:{col}: /expects/tool_used: unknown expectation key" in bad.stdout
    )
