"""Mutation testing of zeroclaw-eval's own source: do its tests catch the bugs a change
could plant? (`nox -s mutation_self`, which installs what this needs.)

    python tools/mutation_self.py [AREA...] [--changed-since REF] [--check] [--record]
        [--write-docs] [--only GLOB] [--max-children N]

Each AREA is a group of modules and the tests that state their behaviour (`AREAS`);
without one, every area runs. mutmut 3 (well kept, per-function mutants) plants the
mutants, afresh each run (see `_run`); this script scopes each run, scores it per module
and keeps the ratchet:

- an area runs in `.mutation/AREA/`, a copy of the working tree, whose `mutants/` copy
  is installed in development mode first: tests that start the console script in a
  subprocess then run the mutant too (mutmut names it in the environment they inherit);
- a module's score is the share of its mutants the tests kill, timeouts counted as
  killed, and the mutants judged equivalent (`tools/mutation_equivalents.toml`, each
  with the change it makes, checked against `mutmut show`, and why) left out;
- `--record` writes the scores to `tools/mutation_scores.json`, `--check` fails (exit 1)
  when a module scores below its recorded score, `--write-docs` puts the table into
  `docs/development.md`;
- `--changed-since REF` runs only the modules that changed since REF (a pull request's
  base), for CI; `--only GLOB` only an area's modules matching GLOB (one module while
  its tests are written).

Why a script of ours around mutmut: mutmut runs one configuration from the project's
own pyproject.toml, so the scoping per area, the per-module score, the equivalents and
the ratchet are ours to write; mutmut does the mutating and the running.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

import tomllib  # Python 3.11 and later: the nox session runs on one

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / ".mutation"
SCORES = ROOT / "tools" / "mutation_scores.json"
EQUIVALENTS = ROOT / "tools" / "mutation_equivalents.toml"
DOCS = ROOT / "docs" / "development.md"
DOCS_START = "<!-- mutation-scores:start -->"
DOCS_END = "<!-- mutation-scores:end -->"


@dataclass(frozen=True)
class Area:
    """Modules (globs under the repository) and the tests that state their behaviour."""

    sources: tuple[str, ...]
    tests: tuple[str, ...]


AREAS: dict[str, Area] = {
    "importing": Area(
        ("zeroclaw_eval/importing/*.py", "zeroclaw_eval/importing/readers/*.py"),
        ("tests/importing", "tests/fuzz/test_import.py"),
    ),
    "backends": Area(
        ("zeroclaw_eval/backends/*.py",),
        (
            "tests/backends",
            "tests/cli/commands/test_run_agent_cmd.py",
            "tests/cli/commands/test_run_agent_service.py",
            "tests/cli/commands/test_run_live.py",
            "tests/cli/commands/test_run_text_agents.py",
        ),
    ),
    "mcp": Area(
        ("zeroclaw_eval/tools/mcp.py",),
        ("tests/cli/commands/test_run_mcp.py", "tests/cli/commands/test_run_mcp_upstream.py", "tests/tools"),
    ),
    "publish": Area(("zeroclaw_eval/publish/*.py",), ("tests/publish",)),
    # Not tests/cli/commands/test_calibrate.py: it runs the console script in a temporary
    # folder, where mutmut's stats run (MUTANT_UNDER_TEST=stats, inherited) finds no
    # configuration and the command fails. So grading/judges/calibration.py scores low
    # here (54 %, not recorded) until its agreement and records are tested in-process.
    "grading": Area(
        ("zeroclaw_eval/grading/*.py", "zeroclaw_eval/grading/judges/*.py"),
        (
            "tests/grading",
            "tests/cli/commands/test_run_judge.py",
            "tests/cli/commands/test_run_judge_scored.py",
            "tests/cli/commands/test_judge_gate.py",
            "tests/report/test_cost_caps.py",
        ),
    ),
    "wire": Area(("zeroclaw_eval/wire/*.py",), ("tests/wire",)),
    "pull_request": Area(
        ("zeroclaw_eval/reporters/pull_request.py",),
        ("tests/reporters", "tests/publish"),
    ),
}

#: mutmut's words for how a mutant ended, sorted into caught, not caught and not run.
CAUGHT = {"killed", "timeout", "segfault", "caught by type check"}
MISSED = {"survived", "no tests", "suspicious"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("areas", nargs="*", metavar="AREA", help="one of: " + ", ".join(AREAS))
    parser.add_argument("--changed-since", metavar="REF", help="only the modules changed since REF")
    parser.add_argument("--check", action="store_true", help="fail when a module scores below its record")
    parser.add_argument("--record", action="store_true", help="write the scores to the ratchet")
    parser.add_argument("--write-docs", action="store_true", help="put the table into docs/development.md")
    parser.add_argument(
        "--only", action="append", metavar="GLOB", help="only the area's modules matching GLOB (repeatable)"
    )
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    options = parser.parse_args()
    unknown = [name for name in options.areas if name not in AREAS]
    if unknown:
        parser.error(f"unknown area {unknown[0]!r}; the areas: {', '.join(AREAS)}")
    chosen = options.areas or list(AREAS)
    changed = _changed(options.changed_since) if options.changed_since else None
    equivalents = _equivalents()
    scores: dict[str, tuple[int, int]] = {}
    stale: list[str] = []
    for name in chosen:
        sources = _sources(AREAS[name], changed)
        if options.only:
            sources = [source for source in sources if any(fnmatch(source, glob) for glob in options.only)]
        if not sources:
            continue
        statuses = _run(name, AREAS[name], sources, options.max_children)
        diffs = {mutant: _show(name, mutant) for mutant in statuses if mutant in equivalents}
        for mutant, (change, _reason) in equivalents.items():
            if mutant in statuses and change not in diffs[mutant]:
                stale.append(mutant)
        judged = {mutant for mutant in diffs if mutant not in stale}
        for module, counts in _scored(statuses, judged).items():
            scores[module] = counts
    recorded = _recorded()
    print(_table(scores, recorded))
    for mutant in stale:
        print(f"stale equivalent (the mutant changes something else now; judge it again): {mutant}")
    if options.record:
        recorded.update({module: _percent(*counts) for module, counts in scores.items()})
        SCORES.write_text(json.dumps(dict(sorted(recorded.items())), indent=2) + "\n", encoding="utf-8")
    if options.write_docs:
        _write_docs({**recorded, **{m: _percent(*c) for m, c in scores.items()}})
    if options.check:
        dropped = [m for m, c in scores.items() if m in recorded and _percent(*c) < recorded[m] - 0.05]
        for module in dropped:
            print(f"{module}: {_percent(*scores[module]):.1f}% is below its recorded {recorded[module]:.1f}%")
        return 1 if dropped else 0
    return 0


def _changed(ref: str) -> set[str]:
    """The files changed between `ref` and the working tree."""
    listed = subprocess.run(
        ["git", "diff", "--name-only", ref], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    return set(listed.split())


def _sources(area: Area, changed: set[str] | None) -> list[str]:
    """The area's module files; with `changed`, all of them when one of its tests changed,
    else those that changed."""
    files = sorted(str(path.relative_to(ROOT)) for pattern in area.sources for path in ROOT.glob(pattern))
    files = [name for name in files if not name.endswith("__init__.py")]
    if changed is None or any(name.startswith(test) for test in area.tests for name in changed):
        return files
    return [name for name in files if name in changed]


def _run(name: str, area: Area, sources: list[str], children: int) -> dict[str, str]:
    """Run mutmut over `sources` with the area's tests; each mutant's status."""
    work = WORK / name
    _copy_tree(work)
    config = {
        "source_paths": sources,
        "also_copy": sorted({entry.name for entry in work.iterdir() if entry.name != "mutants"}),
        "pytest_add_cli_args_test_selection": list(area.tests),
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-q", "-x"],
    }
    pyproject = work / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text + "\n[tool.mutmut]\n" + _toml(config), encoding="utf-8")
    # The mutants' copy installed in development mode, so a subprocess imports it too.
    # Made afresh every run: mutmut keeps its last run's map of which tests reach each
    # function and its mutants' results, and collects the map for new tests only, so a
    # function the tests now reach another way (made async, moved) kept the old tests'
    # map, and its mutants ran against too few (a PATCH sent without its body "survived"
    # the test that catches it). A score is of the code and tests as they are now.
    mutants = work / "mutants"
    shutil.rmtree(mutants, ignore_errors=True)
    _copy_tree(mutants, source=work)
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "-e", str(mutants)], check=True
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(children)]
    subprocess.run(command, cwd=work, env=env, check=False)
    listed = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = (re.match(r"\s*(\S+): (.+)$", line) for line in listed.splitlines())
    return {match[1]: match[2].strip() for match in found if match}


def _copy_tree(target: Path, source: Path = ROOT) -> None:
    """Copy the working tree's files (tracked and new, not ignored) into `target`,
    keeping mutmut's results there (its own files) between runs."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split("\n")
    for name in filter(None, listed):
        if name.startswith(".mutation/"):
            continue
        origin = source / name
        if not origin.is_file():
            continue
        copy = target / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if not copy.exists() or copy.read_bytes() != origin.read_bytes():
            shutil.copy2(origin, copy)


def _show(name: str, mutant: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "mutmut", "show", mutant], cwd=WORK / name, capture_output=True, text=True
    ).stdout


def _scored(statuses: dict[str, str], equivalent: set[str]) -> dict[str, tuple[int, int]]:
    """Per module: (caught, counted), equivalents and mutants not run left out."""
    scores: dict[str, tuple[int, int]] = {}
    for mutant, status in statuses.items():
        if mutant in equivalent or (status not in CAUGHT and status not in MISSED):
            continue
        module = mutant.rsplit(".", 1)[0]
        caught, counted = scores.get(module, (0, 0))
        scores[module] = (caught + (status in CAUGHT), counted + 1)
    return scores


def _percent(caught: int, counted: int) -> float:
    return 100.0 * caught / counted if counted else 100.0


def _equivalents() -> dict[str, tuple[str, str]]:
    """The mutants judged equivalent: name -> (the line the mutant adds, why)."""
    if not EQUIVALENTS.exists():
        return {}
    data = tomllib.loads(EQUIVALENTS.read_text(encoding="utf-8"))
    return {entry["mutant"]: (entry["change"], entry["reason"]) for entry in data.get("equivalent", [])}


def _recorded() -> dict[str, float]:
    if not SCORES.exists():
        return {}
    return {module: float(score) for module, score in json.loads(SCORES.read_text(encoding="utf-8")).items()}


def _table(scores: dict[str, tuple[int, int]], recorded: dict[str, float]) -> str:
    lines = [f"{'module':<55} {'killed':>7} {'of':>5} {'score':>7} {'recorded':>9}"]
    for module, (caught, counted) in sorted(scores.items()):
        before = f"{recorded[module]:.1f}%" if module in recorded else "-"
        lines.append(f"{module:<55} {caught:>7} {counted:>5} {_percent(caught, counted):>6.1f}% {before:>9}")
    return "\n".join(lines)


def _write_docs(scores: dict[str, float]) -> None:
    rows = ["| module | mutants killed |", "|---|---:|"]
    rows += [f"| `{module}` | {score:.1f}% |" for module, score in sorted(scores.items())]
    text = DOCS.read_text(encoding="utf-8")
    start, end = text.index(DOCS_START) + len(DOCS_START), text.index(DOCS_END)
    DOCS.write_text(text[:start] + "\n" + "\n".join(rows) + "\n" + text[end:], encoding="utf-8")


def _toml(config: dict[str, list[str]]) -> str:
    return "".join(f"{key} = {json.dumps(value)}\n" for key, value in config.items())


if __name__ == "__main__":
    sys.exit(main())
