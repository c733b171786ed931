"""The house rules of the package, read from its source: imports flow one way between the
stages, no module imports itself in a circle, and every module says what it is for."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "zeroclaw_eval"

#: Each part of the package (a subpackage or a top-level module) and the parts it may
#: import. The stages come in the order data flows through them: fixtures -> run ->
#: grading -> report -> reporters -> cli; `runner` ties the first four together,
#: `serve` sits on `run`, and reporters never reach into the runner or the run.
MAY_IMPORT: dict[str, set[str]] = {
    "_version": set(),
    "errors": set(),
    "redaction": set(),
    "files": set(),
    "config": {"errors", "files"},
    "fixtures": {"errors", "files"},
    "run": {"errors", "redaction", "files", "config", "fixtures"},
    "grading": {"errors", "fixtures", "run"},
    "report": {"errors", "redaction", "fixtures", "run", "grading"},
    "runner": {"_version", "errors", "config", "fixtures", "run", "grading", "report"},
    "reporters": {"errors", "files", "fixtures", "grading", "report"},
    "serve": {"errors", "fixtures", "run"},
    # Mutation testing: replays a case as the runner does, then grades changed runs.
    "mutate": {"errors", "fixtures", "run", "grading", "runner"},
    # The agent and tools the configuration names, for every front end.
    "project": {"errors", "config", "run", "runner"},
    "cli": {
        "_version",
        "errors",
        "files",
        "config",
        "fixtures",
        "run",
        "grading",
        "report",
        "runner",
        "reporters",
        "serve",
        "project",
        "mutate",
    },
    # Like the CLI, a front end on the runner: pytest's, never imported by the CLI.
    "pytest_plugin": {
        "_version",
        "errors",
        "config",
        "fixtures",
        "run",
        "report",
        "runner",
        "reporters",
        "project",
    },
    "__main__": {"cli"},
}
#: The package's front door re-exports the public API from every part (lazily).
FACADE = "zeroclaw_eval"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _imports(module: str, path: Path) -> Iterator[str]:
    """Every zeroclaw_eval module `module` imports, at any depth (lazy imports and
    TYPE_CHECKING ones count: they are dependencies all the same)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base])
            # `from pkg import sub` imports the submodule when there is one.
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        yield from (name for name in names if name == FACADE or name.startswith(FACADE + "."))


def _part(module: str) -> str:
    return module.split(".")[1] if module != FACADE else FACADE


def test_every_part_of_the_package_has_a_place_in_the_flow() -> None:
    parts = {_part(module) for module in MODULES} - {FACADE}
    assert parts == set(MAY_IMPORT), "add the new part to MAY_IMPORT, in its place in the flow"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != FACADE))
def test_imports_flow_one_way(module: str) -> None:
    part = _part(module)
    allowed = MAY_IMPORT[part] | {part}
    wrong = sorted(name for name in _imports(module, MODULES[module]) if _part(name) not in allowed)
    assert not wrong, f"{module} ({part}) may import only {sorted(allowed)}, but imports {wrong}"


def test_no_import_cycles() -> None:
    graph = {module: set(_imports(module, path)) - {FACADE} for module, path in MODULES.items()}
    done: set[str] = set()

    def visit(module: str, trail: list[str]) -> None:
        if module in trail:
            cycle = [*trail[trail.index(module) :], module]
            pytest.fail("import cycle: " + " -> ".join(cycle))
        if module in done:
            return
        for imported in sorted(graph.get(module, ())):
            visit(imported, [*trail, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_says_what_it_is_for_and_stays_small(module: str) -> None:
    source = MODULES[module].read_text(encoding="utf-8")
    docstring = ast.get_docstring(ast.parse(source))
    assert docstring, f"{module} has no docstring saying what it holds"
    lines = source.count("\n")
    assert lines <= 300, f"{module} has {lines} lines; split it into modules of one idea each"
