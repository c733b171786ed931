"""The `otlp` format: a report as OpenTelemetry traces in OTLP/JSON lines, read back by
the OTLP protocol's own schema (opentelemetry-proto), strictly."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import FAILING, PASSING, TYPO_FIXTURE, write_fixture
from tests.support.invoke import Runner
from tests.support.reports import every_status_report
from zeroclaw_eval.reporters import get_reporter

trace_service = pytest.importorskip(
    "opentelemetry.proto.collector.trace.v1.trace_service_pb2",
    reason="opentelemetry-proto comes with the test extra: pip install -e '.[test]'",
)
json_format = pytest.importorskip("google.protobuf.json_format")


def _requests(text: str) -> list[Any]:
    """Each line as an ExportTraceServiceRequest, refused on any field the schema lacks.
    OTLP/JSON writes ids in hex where protobuf's JSON mapping has base64: turned first."""
    requests = []
    for line in text.split("\n")[:-1]:
        data = json.loads(line)
        for resource in data["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in span:
                            span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
        requests.append(json_format.ParseDict(data, trace_service.ExportTraceServiceRequest()))
    return requests


def _attrs(owner: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for kv in owner.attributes:
        kind = kv.value.WhichOneof("value")
        found[kv.key] = getattr(kv.value, kind)
    return found


def _spans(text: str) -> list[Any]:
    return [
        span for r in _requests(text) for rs in r.resource_spans for ss in rs.scope_spans for span in ss.spans
    ]


def test_a_suite_is_a_span_and_each_case_a_child_with_an_evaluation_event_per_check() -> None:
    report = every_status_report()
    text = get_reporter("otlp")(report)
    suite, *cases = _spans(text)
    # A request a line (streamed), whatever line breaks the model's text holds.
    assert len(text.splitlines()) == text.count("\n") == 1 + len(report.cases)
    assert _attrs(suite)["test.suite.name"] == report.suite
    assert _attrs(suite)["test.suite.run.status"] == "failure"
    assert [span.parent_span_id for span in cases] == [suite.span_id] * len(report.cases)
    assert {span.trace_id for span in cases} == {suite.trace_id}
    assert [_attrs(span)["test.case.name"] for span in cases] == [case.path for case in report.cases]
    assert [_attrs(span)["test.case.result.status"] for span in cases] == ["pass", "fail", "fail", "fail"]
    for span, case in zip(cases, report.cases, strict=True):
        events = [event for event in span.events if event.name == "gen_ai.evaluation.result"]
        assert len(events) == len(case.grades)  # one per check
        for event, grade in zip(events, case.grades, strict=True):
            said = _attrs(event)
            assert said["gen_ai.evaluation.name"] == grade.check_id
            assert said["gen_ai.evaluation.score.label"] == ("pass" if grade.passed else "fail")
            if grade.detail:
                assert said["gen_ai.evaluation.explanation"] == grade.detail
        assert span.start_time_unix_nano <= span.end_time_unix_nano
    # A run error and a rejection are the span's error, said.
    errored, rejected = cases[2], cases[3]
    assert errored.status.code == 2
    assert errored.status.message.startswith("run error: ")
    assert rejected.status.message.startswith("rejected: ")
    assert cases[0].status.code == 1


def test_the_installed_command_writes_otlp_beside_the_other_outputs(cli: Runner, tmp_path: Path) -> None:
    suite = tmp_path / "evals" / "regression"
    write_fixture(suite, "a_pass.json", PASSING)
    write_fixture(suite, "b_fail.json", FAILING)
    write_fixture(suite, "c_typo.json", TYPO_FIXTURE)
    result = cli(
        "eval", "run", "--report", "otlp=reports/eval.otlp.jsonl", "--report", "json=r.json", cwd=tmp_path
    )
    assert result.code == 1
    text = (tmp_path / "reports" / "eval.otlp.jsonl").read_text(encoding="utf-8")
    suite_span, *case_spans = _spans(text)
    assert _attrs(suite_span)["test.suite.run.status"] == "failure"
    checks = sum(
        len(case["checks"] if "checks" in case else case["grades"])
        for case in json.loads((tmp_path / "r.json").read_text())["cases"]
    )
    assert sum(len(span.events) for span in case_spans) == checks
    assert [_attrs(span)["test.case.result.status"] for span in case_spans] == ["pass", "fail", "fail"]
