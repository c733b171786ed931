"""The `otlp` format: the report as OpenTelemetry traces, in OTLP/JSON lines, for the
tracing backend a team already runs for its agents.

Each line is one `ExportTraceServiceRequest` in the OTLP/JSON encoding (ids in hex, times
and 64-bit integers as decimal strings), as the OpenTelemetry Collector's file exporter
writes them, so the file can be replayed into a collector (its `otlpjsonfile` receiver)
or posted line by line to an OTLP/HTTP endpoint's `/v1/traces`:

- the first line holds the suite's span, `test suite SUITE`, with the generic test
  attributes (`test.suite.name`, `test.suite.run.status`: success, failure or aborted);
- each further line holds one case's span, a child of the suite's (`test.case.name`, the
  fixture path; `test.case.result.status`: pass, or fail when the case fails the gate),
  with one `gen_ai.evaluation.result` event per check, as the GenAI semantic conventions
  define it (`gen_ai.evaluation.name`: the check id; `gen_ai.evaluation.score.label`: pass
  or fail; `gen_ai.evaluation.explanation`: what the check found, as the report words it,
  secrets already scrubbed). A run error or a rejection is the span's error status.

A report keeps durations, not clock times: the suite's span ends when the output is
written and starts its duration before, and each case's span starts with the suite's and
lasts the case's duration. A line per case keeps a large suite's output streamed.

Why written here rather than by the OpenTelemetry SDK's exporter: the SDK exports spans
as they end, in a process's own time; this writes a finished report's spans, one file
out, without a tracer provider or a collector to talk to.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from zeroclaw_eval._support.json.otlp import key_values
from zeroclaw_eval.errors import ExitCode
from zeroclaw_eval.report.model import REJECTED, CaseReport, SuiteReport
from zeroclaw_eval.report.tracing import SUITE, new_trace_id, span_id
from zeroclaw_eval.reporters.registry import Reporter

#: Span kinds and status codes of the OTLP protocol.
_INTERNAL, _OK, _ERROR = 1, 1, 2
EVALUATION_EVENT = "gen_ai.evaluation.result"
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _attributes(pairs: dict[str, object]) -> list[dict[str, Any]]:
    return key_values({key: value for key, value in pairs.items() if value is not None})


def _request(report: SuiteReport, spans: list[dict[str, Any]]) -> str:
    resource = {"attributes": _attributes({"service.name": "zeroclaw-eval", "zeroclaw.suite": report.suite})}
    scope = {"name": "zeroclaw-eval", "version": report.tool_version}
    request = {"resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": scope, "spans": spans}]}]}
    text = json.dumps(request, ensure_ascii=False, separators=(",", ":"))
    # One request a line: the line breaks a JSON string may hold raw (NEL, LS, PS: a
    # reader splitting on every Unicode line break would cut the request) are escaped.
    return text.translate(_LINE_BREAKS) + "\n"


def _suite_status(report: SuiteReport) -> str:
    if report.interrupted is not None:
        return "aborted"
    return "success" if report.exit_code() == ExitCode.OK else "failure"


def _events(case: CaseReport, at: int) -> list[dict[str, Any]]:
    events = []
    for grade in case.grades:
        pairs: dict[str, object] = {
            "gen_ai.evaluation.name": grade.check_id,
            "gen_ai.evaluation.score.label": "pass" if grade.passed else "fail",
            "gen_ai.evaluation.explanation": grade.detail or None,
            "zeroclaw.check.category": grade.category,
            "zeroclaw.check.pointer": grade.field.pointer,
            # Reported, deciding nothing (`grading.judges.gate`); left out where false.
            "zeroclaw.check.diagnostic": True if grade.diagnostic else None,
        }
        events.append({"timeUnixNano": str(at), "name": EVALUATION_EVENT, "attributes": _attributes(pairs)})
    return events


def _case_status(case: CaseReport) -> dict[str, Any]:
    if case.status == REJECTED and case.problems:
        return {"code": _ERROR, "message": f"rejected: {case.problems[0].what()}"}
    if case.error is not None:
        return {"code": _ERROR, "message": f"run error: {case.error.message}"}
    return {"code": _ERROR if case.blocks_gate else _OK}


def pieces(report: SuiteReport) -> Iterator[str]:
    """The suite's span, then each case's, a request a line."""
    # The run's own trace, whose case spans its agents were handed (`report.tracing`).
    trace_id = report.trace_id or new_trace_id()
    suite_id = span_id(trace_id, SUITE)
    end = time.time_ns()
    start = end - int(report.duration_ms * 1_000_000)
    counts = report.counts()
    suite_attributes: dict[str, object] = {
        "test.suite.name": report.suite,
        "test.suite.run.status": _suite_status(report),
        "zeroclaw.mode": report.mode,
        "zeroclaw.tool_version": report.tool_version,
        **{f"zeroclaw.cases.{outcome}": number for outcome, number in counts.items()},
    }
    suite_span = {
        "traceId": trace_id,
        "spanId": suite_id,
        "name": f"test suite {report.suite}",
        "kind": _INTERNAL,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": _attributes(suite_attributes),
        "status": {"code": _OK if _suite_status(report) == "success" else _ERROR},
    }
    yield _request(report, [suite_span])
    for case in report.cases:
        case_end = start + int(case.duration_ms * 1_000_000)
        attributes: dict[str, object] = {
            "test.case.name": case.path,
            "test.case.result.status": "fail" if case.blocks_gate else "pass",
            "zeroclaw.case.status": case.outcome,
            "zeroclaw.case.model_name": case.model_name,
            "zeroclaw.case.id": case.id,
        }
        span = {
            "traceId": trace_id,
            "spanId": span_id(trace_id, case.path),
            "parentSpanId": suite_id,
            "name": f"test case {case.path}",
            "kind": _INTERNAL,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(case_end),
            "attributes": _attributes(attributes),
            "events": _events(case, case_end),
            "status": _case_status(case),
        }
        yield _request(report, [span])


# Each check's words are the events' explanations: a passing check's too, where kept.
REPORTER = Reporter.streaming("otlp", pieces, passing_details=False)
