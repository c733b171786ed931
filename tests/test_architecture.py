"""The house rules of the package, read from its source: imports flow one way between the
folders that name the stages, no module imports itself in a circle, every module says
first what it is for, a module holds one idea and a folder a handful of them."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "zeroclaw_eval"

#: Each part of the package (a folder or a top-level module) and the parts it may import,
#: in the order data flows through them. At the bottom, what every stage may use (the
#: `_support` ground floor, the errors); then a fixture admitted as a case (`cases`) and
#: which fixtures run (`collect`); the two boundaries' types
#: and record (`boundary`), on which the tools and the agent loop stand; the wire formats
#: an agent speaks (`wire`, which knows nothing of scripts or agents) and the ways an
#: agent is reached (`backends`); grading, the report, the runner that ties them
#: together, mutation testing; the reporters, which read finished reports only (never the
#: runner, the agent or the tools); `serve`, which stands on the wire and the
#: conversation matcher alone; the CLI and the pytest plugin on top, reaching the agent
#: and its tools only through the runner.
MAY_IMPORT: dict[str, set[str]] = {
    "_version": set(),
    "_support": set(),
    "errors": set(),
    "config": {"errors"},
    "cases": {"errors"},
    "collect": {"errors", "cases"},
    "boundary": {"errors", "cases"},
    "tools": {"errors", "cases", "boundary"},
    "agent": {"errors", "config", "cases", "boundary", "tools"},
    "wire": {"errors", "cases", "boundary"},
    "backends": {"errors", "config", "cases", "boundary", "tools", "agent", "wire"},
    "grading": {"errors", "cases", "collect", "boundary", "tools"},
    "report": {"errors", "cases", "boundary", "grading"},
    "runner": {
        "_version",
        "errors",
        "config",
        "cases",
        "collect",
        "boundary",
        "tools",
        "agent",
        "backends",
        "grading",
        "report",
    },
    # Mutation testing: replays a case as the runner does, then grades changed runs.
    "mutate": {"errors", "cases", "collect", "boundary", "tools", "agent", "grading", "runner"},
    # Traces in, fixtures out: read, scrubbed, made turns and a recorded run, graded.
    # Anthropic-shaped messages in a trace are read as the wire reads them.
    "importing": {"errors", "cases", "boundary", "tools", "wire", "grading"},
    # A rendered report sent where people read it (the pull request's comment).
    "publish": {"errors"},
    # A finished report (or mutation or vacuity verdict) in, text out.
    "reporters": {"errors", "cases", "collect", "grading", "report", "mutate"},
    # `zeroclaw eval mcp` serves a fixture's tools as `serve` serves its model replies.
    "serve": {"errors", "cases", "collect", "boundary", "tools", "agent", "wire"},
    "cli": {
        "_version",
        "errors",
        "config",
        "cases",
        "collect",
        "grading",
        "report",
        "runner",
        "mutate",
        "reporters",
        "serve",
        "importing",
        "publish",
        # The HTTP limits `serve --help` shows, from a module of constants.
        "wire",
    },
    # Like the CLI, a front end on the runner: pytest's, never imported by the CLI.
    "pytest_plugin": {"_version", "errors", "config", "cases", "collect", "report", "runner", "reporters"},
    "__main__": {"cli"},
}
#: The ground floor, which every part above it may use.
GROUND = "_support"
#: What stands on nothing: the version, the ground floor itself, the errors.
FOUNDATIONS = frozenset({"_version", GROUND, "errors"})
#: The package's front door re-exports the public API from every part (lazily).
FACADE = "zeroclaw_eval"
#: Past this many lines a module most likely holds more than one idea; one that truly is
#: one idea says so here, with the reason (none does today).
SOFT_LIMIT = 500
LONGER_ONES: dict[str, str] = {}
#: A folder of more modules than this reads as a list, not a stage: give it subfolders.
MAX_MODULES = 15


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
    allowed = MAY_IMPORT[part] | {part} | (set() if part in FOUNDATIONS else {GROUND})
    wrong = sorted(name for name in _imports(module, MODULES[module]) if _part(name) not in allowed)
    assert not wrong, f"{module} ({part}) may import only {sorted(allowed)}, but imports {wrong}"


def test_the_rules_themselves_have_no_circle() -> None:
    # A part that may import a part that may import it back would let a cycle in.
    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for other in MAY_IMPORT[start] - seen:
            if other == goal or reaches(other, goal, seen | {other}):
                return True
        return False

    circular = sorted(part for part in MAY_IMPORT if reaches(part, part, set()))
    assert circular == []


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
def test_every_module_says_first_what_it_is_for(module: str) -> None:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{module} has no docstring saying what it holds"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_holds_one_idea(module: str) -> None:
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    if module in LONGER_ONES:
        return
    assert lines <= SOFT_LIMIT, (
        f"{module} has {lines} lines: split off what is a second idea, or, if it truly is one,"
        " say why in LONGER_ONES"
    )


@pytest.mark.parametrize("folder", sorted({path.parent for path in MODULES.values()}))
def test_a_folder_names_a_stage_not_a_list(folder: Path) -> None:
    modules = [path for path in folder.glob("*.py") if path.name != "__init__.py"]
    assert len(modules) <= MAX_MODULES, (
        f"{folder.relative_to(PACKAGE.parent)} holds {len(modules)} modules; group them in subfolders"
    )


def test_the_stage_map_of_the_package_docstring_names_every_folder() -> None:
    # The map a reader meets first: a folder missing from it is a stage nobody was told of.
    docstring = ast.get_docstring(ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))) or ""
    mapped = {line.split()[0].rstrip("/") for line in docstring.splitlines() if line.startswith("    ")}
    folders = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    assert mapped == folders - {"config"}, "list each folder (and only folders) in the package's stage map"
    assert "`config/`" in docstring
