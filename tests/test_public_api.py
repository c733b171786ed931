"""The public API: exactly the names `__all__` declares, each resolving to the object of
the module that defines it; importing the package stays cheap; and the README's Python
API examples type-check with `mypy --strict` against the exported names alone and run."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import zeroclaw_eval

ROOT = Path(__file__).resolve().parent.parent

# Pinned on purpose: adding or removing a public name is a decision, made here too.
PUBLIC = [
    "Agent",
    "AgentContext",
    "AgentFactory",
    "Case",
    "CaseReport",
    "ConfigError",
    "EvalError",
    "FieldRef",
    "FixtureProblem",
    "GradeResult",
    "LiveOptions",
    "LlmTrace",
    "Message",
    "ModelResponse",
    "MutationReport",
    "ProjectTool",
    "Provider",
    "RecordedCall",
    "ReferenceAgent",
    "RejectedFixture",
    "ReplayServer",
    "RunError",
    "RunOptions",
    "RunRecord",
    "SuiteReport",
    "SyncAgent",
    "ToolCallRequest",
    "ToolChoice",
    "ToolDispatcher",
    "ToolOutcome",
    "ToolSpec",
    "UsageError",
    "VacuityReport",
    "VacuousCase",
    "__version__",
    "anthropic_http_client",
    "check_vacuity",
    "grade",
    "load_config",
    "load_fixture",
    "load_suite",
    "mutate_suite",
    "openai_http_client",
    "render_report",
    "reporter_names",
    "run_case",
    "run_suite",
]


def test_all_is_exactly_the_public_api() -> None:
    assert sorted(zeroclaw_eval.__all__) == PUBLIC
    assert dir(zeroclaw_eval) == PUBLIC


@pytest.mark.parametrize("name", [name for name in PUBLIC if name != "__version__"])
def test_every_exported_name_is_imported_from_the_module_that_defines_it(name: str) -> None:
    exported = getattr(zeroclaw_eval, name)
    module = zeroclaw_eval._EXPORTS[name]
    assert getattr(sys.modules[module], name) is exported
    if inspect.isclass(exported) or inspect.isfunction(exported):
        # Not a re-export of a re-export: the lazy import loads only what defines it.
        assert exported.__module__ == module
    else:
        assert name in ("Message", "AgentFactory")  # type aliases, which name no module


def test_type_checkers_see_the_same_exports_as_the_lazy_imports() -> None:
    tree = ast.parse(Path(zeroclaw_eval.__file__).read_text(encoding="utf-8"))
    checked = next(
        node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    )
    seen = {
        alias.asname or alias.name: node.module
        for node in checked.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert seen == zeroclaw_eval._EXPORTS


def test_the_version_is_the_one_the_installed_distribution_reports() -> None:
    from importlib.metadata import version

    assert zeroclaw_eval.__version__ == version("zeroclaw-eval")


def test_unknown_attribute_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = zeroclaw_eval.nope  # type: ignore[attr-defined]


def test_import_does_not_load_the_heavy_dependencies() -> None:
    code = (
        "import sys, zeroclaw_eval; "
        "print(','.join(m for m in ('pydantic', 'click', 'jinja2', 're2', 'asyncio') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == ""


def _readme_examples() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.DOTALL)


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("readme")
    blocks = _readme_examples()
    assert len(blocks) >= 4, "the README's Python API section lost its examples"
    paths = []
    for number, block in enumerate(blocks, 1):
        path = folder / f"example_{number}.py"
        path.write_text(block, encoding="utf-8")
        paths.append(path)
    return paths


def test_readme_examples_type_check_strictly(examples: list[Path], tmp_path: Path) -> None:
    # An empty config: only --strict applies, not the project's own mypy settings.
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", str(config), *map(str, examples)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_readme_examples_run(examples: list[Path], tmp_path: Path) -> None:
    # In a folder that holds the repository's evals/ as a reader's checkout does, so that
    # what an example writes (reports/) lands outside the checkout.
    (tmp_path / "evals").symlink_to(ROOT / "evals", target_is_directory=True)
    for example in examples:
        completed = subprocess.run(
            [sys.executable, str(example)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        assert completed.returncode == 0, f"{example.name}:\n{completed.stdout}{completed.stderr}"
    assert (tmp_path / "reports" / "eval.xml").read_text(encoding="utf-8").startswith("<?xml")
