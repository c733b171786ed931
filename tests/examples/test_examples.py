"""The examples: real agents written with the public API only, each gated by its own suite
(`zeroclaw eval run` and `zeroclaw eval vacuity` from its folder)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from tests.support.invoke import Runner

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FOLDERS = sorted(path.parent for path in EXAMPLES.glob("*/zeroclaw.toml"))
# The frameworks an example is built on, which the test environment may lack
# (pydantic-ai needs Python 3.11 or newer).
NEEDS = {"openai_loop": "openai", "pydantic_ai": "pydantic_ai"}


@pytest.fixture(params=FOLDERS, ids=[folder.name for folder in FOLDERS])
def example(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder: Path = request.param
    pytest.importorskip(NEEDS[folder.name])
    monkeypatch.setattr(sys, "path", list(sys.path))  # the example's folder is put on it
    for module in folder.glob("*.py"):
        monkeypatch.delitem(sys.modules, module.stem, raising=False)
    return folder


def test_the_examples_readme_lists_every_example_folder() -> None:
    listed = re.findall(r"^\| `(\w+)/` \|", (EXAMPLES / "README.md").read_text(encoding="utf-8"), re.M)
    assert listed == [folder.name for folder in FOLDERS]
    assert sorted(NEEDS) == listed  # and each says which framework it needs


def test_the_example_passes_its_own_suite(cli: Runner, example: Path) -> None:
    result = cli("eval", "run", "--format", "json", "--details", "all", cwd=example)
    assert result.code == 0, result.stdout + result.stderr
    report = result.json()
    assert report["counts"]["passed"] == report["counts"]["total"] >= 1
    # Every request went through the harness, checked against the script and recorded.
    steps = [step for case in report["cases"] for step in case["record"]["steps"]]
    assert steps
    assert all(step["sent_roles"][0] == "system" for step in steps)


def test_every_case_of_the_example_can_fail(cli: Runner, example: Path) -> None:
    result = cli("eval", "vacuity", cwd=example)
    assert result.code == 0, result.stdout + result.stderr


def test_the_examples_use_the_public_api_only() -> None:
    # `nox -s lint` also type-checks them with mypy --strict against these names.
    import zeroclaw_eval

    reached = []
    for path in sorted(EXAMPLES.glob("*/*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("zeroclaw_eval"):
                private = node.module != "zeroclaw_eval" or any(
                    a.name not in zeroclaw_eval.__all__ for a in node.names
                )
                if private:
                    reached.append(f"{path.relative_to(EXAMPLES)}: from {node.module} import ...")
            elif isinstance(node, ast.Import) and any(
                a.name.startswith("zeroclaw_eval.") for a in node.names
            ):
                reached.append(f"{path.relative_to(EXAMPLES)}: import {node.names[0].name}")
    assert reached == []
