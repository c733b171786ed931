"""The public API: exactly the names `__all__` declares, each resolving to the object of
the module that defines it; importing the package stays cheap. (The manual's Python
examples, which use the exported names alone, are type-checked and run by tests/docs.)"""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import zeroclaw_eval

ROOT = Path(__file__).resolve().parents[2]

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
    "LogFileExporter",
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
    "SpanFileExporter",
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
    "gemini_http_client",
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
    if typing.get_origin(exported) is not None:
        # A type alias (`dict[...]`, `Callable[...]`) names no module: its `__module__` is its
        # origin's. Told apart first, since on 3.10 `inspect.isclass` is True for one too: it
        # forwards `__class__` to its origin (python/cpython#89828, changed in 3.11).
        assert name in ("Message", "AgentFactory")
    else:
        # Not a re-export of a re-export: the lazy import loads only what defines it.
        assert inspect.isclass(exported) or inspect.isfunction(exported)
        assert exported.__module__ == module


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
