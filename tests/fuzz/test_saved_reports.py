"""Fuzzing saved reports: a report the harness wrote, one field of it replaced by any JSON
value (or removed, or a key added), read back by every command that reads one
(`render`, `merge`, `run --baseline`, `compare`), with and without GitHub Actions'
environment.

Each read ends cleanly: the report is read (exit 0 or 1), or refused (exit 2, one
`Error:` line naming the file); never a traceback, never a workflow command the CLI did
not write, and a refused baseline writes no output."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, strategies as st

from tests.fuzz.budget import share
from tests.fuzz.hostile import hostile_text
from tests.support.builders import FAILING, PASSING, write_fixture
from tests.support.ci_log import executed_commands
from tests.support.invoke import invoke
from tests.support.reports import every_status_report
from zeroclaw_eval.report.codec import report_to_dict
from zeroclaw_eval.report.model import ShardInfo

HOSTILE_TEXT = hostile_text(long=False, max_pieces=3)
#: Any JSON value, hostile text among the strings, bounded in size: NaN, the infinities
#: and numbers of hundreds of digits among the numbers (Python's JSON reads and writes them).
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**400), 10**400) | st.floats() | HOSTILE_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(HOSTILE_TEXT, inner, max_size=3),
    max_leaves=8,
)


def _seed() -> dict[str, Any]:
    report = every_status_report()
    report.shard = ShardInfo(1, 2, "0" * 64, len(report.cases) * 2)
    data: dict[str, Any] = json.loads(json.dumps(report_to_dict(report)))
    return data


SEED = _seed()


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in `value` a value sits, by its keys and indexes."""
    found = [here] if here else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*here, index))
    return found


PATHS = _paths(SEED)


@st.composite
def damaged_reports(draw: st.DrawFn) -> dict[str, Any]:
    """The seed with one place replaced, removed, or given a key no version writes."""
    data = copy.deepcopy(SEED)
    path = draw(st.sampled_from(PATHS))
    parent: Any = data
    for step in path[:-1]:
        parent = parent[step]
    how = draw(st.sampled_from(["replace", "remove", "add"]))
    if how == "replace" or not isinstance(parent, dict):
        parent[path[-1]] = draw(JSON_VALUES)
    elif how == "remove":
        del parent[path[-1]]
    else:
        parent[draw(HOSTILE_TEXT)] = draw(JSON_VALUES)
    return data


def _check(result: Any) -> None:
    assert result.code in (0, 1, 2), result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    if result.code == 2:
        assert result.stderr.startswith("Error: "), result.stderr[:500]
    commands = {command.name for command in executed_commands(result.stdout + result.stderr)}
    assert commands <= {"stop-commands", "error", "warning", "notice"}, commands


def _write(folder: Path, data: dict[str, Any]) -> str:
    (folder / "report.json").write_text(
        json.dumps(data, ensure_ascii=False), encoding="utf-8", errors="surrogatepass"
    )
    return "report.json"


@share(0.5)
@given(data=damaged_reports(), actions=st.booleans())
def test_a_damaged_report_renders_or_is_refused_cleanly(data: dict[str, Any], actions: bool) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(folder / "summary.md")} if actions else {}
        for fmt in ("table", "github"):
            _check(invoke("eval", "render", _write(folder, data), "--format", fmt, cwd=folder, env=env))


@share(0.3)
@given(data=damaged_reports())
def test_a_damaged_shard_merges_or_is_refused_cleanly(data: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        other = copy.deepcopy(SEED)
        other["shard"]["index"] = 2
        (folder / "other.json").write_text(json.dumps(other), encoding="utf-8")
        result = invoke("eval", "merge", _write(folder, data), "other.json", cwd=folder)
        _check(result)


@share(0.2)
@given(data=damaged_reports())
def test_a_damaged_baseline_is_read_or_refused_before_anything_runs(data: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        write_fixture(folder / "evals" / "regression", "a.json", PASSING)
        write_fixture(folder / "evals" / "regression", "b.json", FAILING)
        result = invoke(
            "eval", "run", "--baseline", _write(folder, data), "--report", "json=out.json", cwd=folder
        )
        _check(result)
        if result.code == 2:
            assert not (folder / "out.json").exists()


@share(0.3)
@given(data=damaged_reports(), head=st.booleans())
def test_a_damaged_report_compares_or_is_refused_cleanly(data: dict[str, Any], head: bool) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "seed.json").write_text(json.dumps(SEED), encoding="utf-8")
        damaged = _write(folder, data)
        reports = ("seed.json", damaged) if head else (damaged, "seed.json")
        result = invoke("eval", "compare", *reports, "-o", "comment.md", cwd=folder)
        _check(result)
        if result.code == 0:
            comment = (folder / "comment.md").read_text(encoding="utf-8")
            assert len(comment) <= 65_536  # GitHub's limit on a comment's body
            assert "inf" not in comment.split("|")  # no number read as infinite
