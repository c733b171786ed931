"""`zeroclaw eval import` reads what it was given once: a span (by its trace and span
ids), a Langfuse observation or a LangSmith run seen again under its id (the same file
named twice, two exports that overlap, a record an exporter wrote twice) is one record,
and one seen again with other content is refused naming the id, never a traceback."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.importing import test_import_exports as exports
from tests.importing.otlp_docs import OTHER_TRACE, TRACE, document, weather_spans
from tests.support.invoke import Result, invoke

DATA = Path(__file__).resolve().parent / "data"
TOOL_SPAN = "c3c3c3c3c3c3c3c3"


def _import(tmp_path: Path, *sources: Any) -> Result:
    """Import each of `sources` (a document, written to a file of its own, or a path)."""
    paths = []
    for number, source in enumerate(sources):
        if isinstance(source, Path):
            paths.append(str(source))
            continue
        path = tmp_path / f"export{number}.json"
        path.write_text(json.dumps(source), encoding="utf-8")
        paths.append(str(path))
    return invoke("eval", "import", *paths, "--out", str(tmp_path / "out"), cwd=tmp_path)


def _fixtures(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted((tmp_path / "out").glob("*.json"))]


def _written_once(tmp_path: Path, *sources: Any) -> dict[str, Any]:
    """The one fixture an import of `sources` writes, without its provenance's files
    (which name each file given)."""
    result = _import(tmp_path, *sources)
    assert result.code == 0, result.stderr
    (fixture,) = _fixtures(tmp_path)
    fixture["provenance"].pop("source")
    return fixture


def _expected(tmp_path: Path, source: Any) -> dict[str, Any]:
    """The fixture of `source` imported alone."""
    alone = tmp_path / "alone"
    alone.mkdir()
    return _written_once(alone, source)


def _tool_result(spans: list[dict[str, Any]], result: str) -> list[dict[str, Any]]:
    """`spans` with what the tool span recorded as its result changed to `result`."""
    changed = copy.deepcopy(spans)
    (tool,) = (span for span in changed if span["spanId"] == TOOL_SPAN)
    for attribute in tool["attributes"]:
        if attribute["key"] == "gen_ai.tool.call.result":
            attribute["value"] = {"stringValue": result}
    return changed


def test_an_otlp_file_given_twice_is_read_once(tmp_path: Path) -> None:
    source = tmp_path / "traces.json"
    source.write_text(json.dumps(document(weather_spans())))
    result = _import(tmp_path, source, source)
    assert result.code == 0, result.stderr
    assert "2 steps, 1 tool call;" in result.stderr  # not each step and call twice over
    (fixture,) = _fixtures(tmp_path)
    assert len(fixture["turns"][0]["steps"]) == 2
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": {"city": "Paris"}, "status": "ok"}
    ]


def test_an_otlp_file_of_log_records_given_twice_is_read_once(tmp_path: Path) -> None:
    """Log records have no id of their own: a file given again (or a copy of it) is
    read once, its log records with it, so no message is carried twice."""
    source = DATA / "openai_v2_2.3b0.json"
    copied = tmp_path / "copy.json"
    copied.write_bytes(source.read_bytes())
    expected = _expected(tmp_path, json.loads(source.read_text()))
    assert _written_once(tmp_path, source, copied) == expected


def test_a_span_an_exporter_wrote_twice_is_read_once(tmp_path: Path) -> None:
    spans = weather_spans()
    expected = _expected(tmp_path, document(spans))
    assert _written_once(tmp_path, document([*spans, *copy.deepcopy(spans[1:])])) == expected


def test_a_trace_in_two_exports_that_overlap_is_one_case(tmp_path: Path) -> None:
    """The second export holds the first one's trace again, and another trace."""
    spans = weather_spans()
    result = _import(tmp_path, document(spans), document([*spans, *weather_spans(trace=OTHER_TRACE)]))
    assert result.code == 0, result.stderr
    fixtures = _fixtures(tmp_path)
    assert sorted(fixture["provenance"]["trace_id"] for fixture in fixtures) == sorted([TRACE, OTHER_TRACE])
    assert [len(fixture["turns"][0]["steps"]) for fixture in fixtures] == [2, 2]


def test_a_span_seen_again_with_other_content_is_refused_naming_it(tmp_path: Path) -> None:
    other = _tool_result(weather_spans(), "rainy, 12C")
    result = _import(
        tmp_path, document([*weather_spans(), *weather_spans(trace=OTHER_TRACE)]), document(other)
    )
    assert result.code == 1
    assert f"refused: trace {TRACE}: span {TOOL_SPAN}: recorded twice with different content" in result.stderr
    assert "Traceback" not in result.stderr
    # The other trace of the files is still imported.
    assert [fixture["provenance"]["trace_id"] for fixture in _fixtures(tmp_path)] == [OTHER_TRACE]


def test_a_langfuse_trace_in_two_exports_is_one_case(tmp_path: Path) -> None:
    """`GET /api/public/traces/{id}`, and a page of traces that holds it again."""
    expected = _expected(tmp_path, exports._langfuse_trace())
    page = {"data": [exports._langfuse_trace()], "meta": {"page": 1}}
    assert _written_once(tmp_path, exports._langfuse_trace(), page) == expected


def test_a_langfuse_observation_given_twice_is_read_once(tmp_path: Path) -> None:
    expected = _expected(tmp_path, exports._langfuse_trace())
    trace = exports._langfuse_trace()
    trace["observations"] += copy.deepcopy(trace["observations"])
    assert _written_once(tmp_path, trace) == expected


def test_a_langfuse_observation_seen_again_with_other_content_is_refused(tmp_path: Path) -> None:
    trace = exports._langfuse_trace()
    again = copy.deepcopy(trace["observations"][1])
    again["output"] = "rainy, 12C"
    trace["observations"].append(again)
    result = _import(tmp_path, trace)
    assert result.code == 1
    assert "refused: trace lf-trace-1: span o2: recorded twice with different content" in result.stderr
    assert "Traceback" not in result.stderr


def test_langsmith_runs_in_two_exports_are_one_case(tmp_path: Path) -> None:
    """`list_runs` written as JSON, and again as JSON lines."""
    expected = _expected(tmp_path, exports._langsmith_runs())
    lines = tmp_path / "runs.jsonl"
    lines.write_text("".join(json.dumps(run) + "\n" for run in exports._langsmith_runs()))
    assert _written_once(tmp_path, exports._langsmith_runs(), lines) == expected


def test_a_langsmith_run_seen_again_with_other_content_is_refused(tmp_path: Path) -> None:
    runs = exports._langsmith_runs()
    again = copy.deepcopy(runs[2])
    again["outputs"] = {"output": "rainy, 12C"}
    result = _import(tmp_path, [*runs, again])
    assert result.code == 1
    assert (
        f"refused: trace {exports.TRACE_ID}: span r2: recorded twice with different content" in result.stderr
    )
    assert "Traceback" not in result.stderr


def test_a_langsmith_root_run_with_its_children_nested_and_listed_is_read_once(tmp_path: Path) -> None:
    """`read_run(load_child_runs=True)` nests the children; a list that also holds them
    flat holds each twice, once without `child_runs`."""
    root, *children = exports._langsmith_runs()
    expected = _expected(tmp_path, [root, *children])
    nested = {**copy.deepcopy(root), "child_runs": copy.deepcopy(children)}
    assert _written_once(tmp_path, [nested, *children]) == expected
