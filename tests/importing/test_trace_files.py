"""Trace files as `zeroclaw eval import` reads them, and `--select`: what a file that
cannot be read says (naming the file and the line), a byte-order mark, a file given
twice, and which traces a selection by id, service and time takes, at its edges."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.importing.otlp_docs import OTHER_TRACE, TRACE, document, weather_spans
from tests.support.invoke import Result, invoke


def _import(tmp_path: Path, content: str | bytes, *args: str, name: str = "traces.json") -> Result:
    source = tmp_path / name
    if isinstance(content, bytes):
        source.write_bytes(content)
    else:
        source.write_text(content, encoding="utf-8")
    return invoke("eval", "import", name, *args, "--out", "out", cwd=tmp_path)


def _trace_ids(tmp_path: Path) -> list[str]:
    return sorted(
        json.loads(path.read_text(encoding="utf-8"))["provenance"]["trace_id"]
        for path in (tmp_path / "out").glob("*.json")
    )


def _weather(*traces: tuple[str, int]) -> str:
    """OTLP JSON of the weather run once per (trace id, start in ns after T0)."""
    return json.dumps(document([item for trace, start in traces for item in weather_spans(trace, start)]))


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("", "traces.json is empty; export the traces as JSON"),
        ("\n  \n", "traces.json is empty; export the traces as JSON"),
        (b'{"a": "\xff"}', "traces.json: not UTF-8 text (byte 7); export the traces as JSON"),
        (
            '{"a": 1}\n{oops\n',
            "traces.json:2: neither one JSON document nor JSON lines (Expecting property name",
        ),
        (
            '{"run_type": "llm"}',
            "traces.json: not a trace export this command reads: OTLP JSON (resourceSpans), a Langfuse"
            " trace (with observations) or a LangSmith run (with run_type)",
        ),
    ],
    ids=["empty", "blank-lines", "not-utf-8", "a-line-not-json", "no-export"],
)
def test_a_file_that_cannot_be_read_is_a_usage_error_naming_it(
    tmp_path: Path, content: str | bytes, said: str
) -> None:
    result = _import(tmp_path, content)
    assert result.code == 2
    assert f"Error: {said}" in result.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_a_line_of_json_lines_that_is_no_otlp_export_is_named(tmp_path: Path) -> None:
    result = _import(tmp_path, _weather((TRACE, 0)) + "\n\n[1]\n")
    assert result.code == 2
    assert (
        "Error: traces.json:3: not an OTLP JSON export (an object with resourceSpans or resourceLogs)"
        in result.stderr
    )


def test_a_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    result = _import(tmp_path, b"\xef\xbb\xbf" + _weather((TRACE, 0)).encode("utf-8"))
    assert result.code == 0, result.stderr
    assert _trace_ids(tmp_path) == [TRACE]


def test_a_file_given_twice_is_read_once(tmp_path: Path) -> None:
    (tmp_path / "copy.json").write_text(_weather((TRACE, 0)), encoding="utf-8")
    result = _import(tmp_path, _weather((TRACE, 0)), "copy.json")
    assert result.code == 0, result.stderr
    assert _trace_ids(tmp_path) == [TRACE]
    (path,) = (tmp_path / "out").glob("*.json")
    fixture: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert fixture["provenance"]["source"] == "traces.json"
    assert len(fixture["turns"][0]["steps"]) == 2


@pytest.mark.parametrize(
    ("select", "said"),
    [
        ("trace", "--select 'trace': give KEY=VALUE with KEY one of trace, service, since, until"),
        ("trace=", "--select 'trace=': give KEY=VALUE with KEY one of trace, service, since, until"),
        ("colour=red", "--select 'colour=red': give KEY=VALUE with KEY one of trace, service, since, until"),
        (
            "since=yesterday",
            "--select 'since=yesterday': 'yesterday' is not an ISO 8601 time such as 2026-12-01T09:30Z",
        ),
        ("until=12:00", "--select 'until=12:00': '12:00' is not an ISO 8601 time such as 2026-12-01T09:30Z"),
    ],
)
def test_a_select_it_cannot_read_says_what_it_takes(tmp_path: Path, select: str, said: str) -> None:
    result = _import(tmp_path, _weather((TRACE, 0)), "--select", select)
    assert result.code == 2
    assert f"Error: {said}" in result.stderr


SECOND = 1_000_000_000


@pytest.mark.parametrize(
    ("selects", "imported"),
    [
        (("since=2026-12-01T09:00:01Z",), [OTHER_TRACE]),
        (("since=2026-12-01T09:00:00Z",), sorted([TRACE, OTHER_TRACE])),
        (("until=2026-12-01T09:00:00Z",), [TRACE]),
        (("until=2026-12-01T08:59:59.999Z",), []),
        (("since=2026-12-01T09:00:00Z", "until=2026-12-01T09:00:00.5Z"), [TRACE]),
        (("trace=" + TRACE, "trace=" + OTHER_TRACE), sorted([TRACE, OTHER_TRACE])),
        (("trace=" + TRACE, "service=checkout"), []),
        (("service=checkout", "service=weather-service"), sorted([TRACE, OTHER_TRACE])),
    ],
    ids=[
        "since-after-the-first",
        "since-exactly-the-first",
        "until-exactly-the-first",
        "until-before-both",
        "between",
        "either-trace",
        "every-key-must-match",
        "either-service",
    ],
)
def test_a_selection_takes_the_traces_that_started_within_its_times_inclusive(
    tmp_path: Path, selects: tuple[str, ...], imported: list[str]
) -> None:
    args = [arg for select in selects for arg in ("--select", select)]
    result = _import(tmp_path, _weather((TRACE, 0), (OTHER_TRACE, SECOND)), *args)
    assert result.code == (0 if imported else 1), result.stderr
    assert _trace_ids(tmp_path) == imported


def test_a_trace_that_says_no_start_is_not_taken_by_a_time(tmp_path: Path) -> None:
    spans = weather_spans()
    for item in spans:
        item["startTimeUnixNano"] = "0"
    data = json.dumps(document(spans))
    assert _import(tmp_path, data, "--select", "since=2000-01-01T00:00Z").code == 1
    assert _import(tmp_path, data, "--select", "until=2100-01-01T00:00Z").code == 1
    assert _trace_ids(tmp_path) == []
