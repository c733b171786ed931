"""Fuzzing `zeroclaw eval import`: any value of any type in any field of a trace export
(OTLP with the GenAI conventions and their older log events, OpenInference, Langfuse,
LangSmith, LangChain's messages) ends in fixtures written inside `--out`, refusals, or
a usage error; never an exception."""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import example, given, strategies as st

from tests.importing import test_import_exports as exports
from tests.importing.otlp_docs import document, weather_spans
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.importing.importer import import_traces
from zeroclaw_eval.importing.scrub import Scrubber
from zeroclaw_eval.importing.sources import Selection

DATA = Path(__file__).resolve().parents[1] / "importing" / "data"


def _bases() -> list[Any]:
    """One export of each shape: attributes holding JSON text are unpacked, so a field
    inside them is fuzzed too (`_packed` writes them back)."""
    return [
        _unpacked(document(weather_spans())),
        exports._langsmith_runs(),
        exports._langfuse_trace(),
        _unpacked(json.loads((DATA / "openai_v2_2.3b0.json").read_text())),
        json.loads((DATA / "langfuse_observations_v2.json").read_text()),
    ]


def _unpacked(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _unpacked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unpacked(item) for item in value]
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            return {"__json__": _unpacked(json.loads(value))}
        except ValueError:
            return value
    return value


def _packed(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"__json__"}:
            return json.dumps(_packed(value["__json__"]))
        return {key: _packed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_packed(item) for item in value]
    return value


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


BASES = _bases()
PATHS = [(index, path) for index, base in enumerate(BASES) for path in _paths(base) if path]
WRONG = [
    None,
    5,
    -1,
    1.5,
    10**30,
    "",
    "x",
    "²",
    "\ud800",
    [],
    [None],
    [5],
    {},
    {"a": None},
    True,
    "../../x\n",
]


#: A change that puts a list where a value was, then a second that puts that same list
#: inside it: with the value shared rather than copied, the list held itself (and every
#: later example saw `WRONG` changed), and `_packed` recursed before the import ran.
_LISTED = WRONG.index([5])
_SELF_NESTING = [((0, PATHS[0][1]), WRONG[_LISTED]), ((0, (*PATHS[0][1], 0)), WRONG[_LISTED])]


@example(_SELF_NESTING)
@given(st.lists(st.tuples(st.sampled_from(PATHS), st.sampled_from(WRONG)), min_size=1, max_size=3))
def test_any_wrong_value_anywhere_is_written_refused_or_a_usage_error(changes: list[Any]) -> None:
    (first, _), _ = changes[0]
    doc = copy.deepcopy(BASES[first])
    for (index, path), value in changes:
        if index != first:
            continue
        target = doc
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = copy.deepcopy(value)  # `WRONG`'s values are shared by every example
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed the way there
    with tempfile.TemporaryDirectory() as folder:
        source, out = Path(folder) / "trace.json", Path(folder) / "deep" / "out"
        source.write_text(json.dumps(_packed(doc)), encoding="utf-8", errors="surrogatepass")
        try:
            outcome = import_traces([(source, "trace.json")], out, Selection(), Scrubber())
        except UsageError:
            return
        for written in outcome.written:
            assert written.path.parent == out, written.path
            assert written.path.name.isascii()
            assert written.path.name.isprintable()
            json.loads(written.path.read_text(encoding="utf-8"))
        assert [path for path in Path(folder).rglob("*.json") if path.parent not in (out, Path(folder))] == []


def test_the_wrong_values_are_never_changed_by_an_example() -> None:
    before = copy.deepcopy(WRONG)
    test_any_wrong_value_anywhere_is_written_refused_or_a_usage_error.hypothesis.inner_test(  # type: ignore[attr-defined]
        _SELF_NESTING
    )
    assert before == WRONG
