"""A trace file `zeroclaw eval import` reads, written by your agent: OpenTelemetry SDK
exporters that append each batch of spans (or log records) to a file as one line of
OTLP/HTTP JSON, the shape an OTLP file exporter writes.

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(SpanFileExporter("traces.jsonl")))

`LogFileExporter` does the same for the log records that older GenAI instrumentations
write message content to (`BatchLogRecordProcessor`); both may append to one file.

Written here rather than taken from OpenTelemetry's own `opentelemetry-exporter-otlp-json-file`:
that package is a beta that pins the SDK's minor release and its sibling packages
exactly, so a project on another SDK release cannot install it beside its own; these
need only the SDK's public span and log record data, on any 1.x release since 1.20.

The encoding is OTLP's JSON mapping: ids as lowercase hex, 64-bit integers (times,
`intValue`) as decimal strings, enums as integers (span kind `SpanKind.value + 1`, the
status code as the SDK numbers it), attribute values as typed `AnyValue`s. Each batch is
one `write` to a file opened for appending, so lines from two exporters (or processes)
never interleave.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from zeroclaw_eval._support.json.otlp import any_value, key_values
from zeroclaw_eval._support.json.text import compact_json

__all__ = ["LogFileExporter", "SpanFileExporter"]


class _Appender:
    """One file, appended to a whole line at a time."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        self._closed = False

    def append(self, document: Mapping[str, Any]) -> bool:
        # A lone surrogate (text no UTF-8 holds) becomes "?": the file stays readable.
        line = (compact_json(document) + "\n").encode("utf-8", "replace")
        with self._lock:
            if self._closed:
                return False
            descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                written = 0
                while written < len(line):
                    written += os.write(descriptor, line[written:])
            finally:
                os.close(descriptor)
        return True

    def close(self) -> None:
        with self._lock:
            self._closed = True


class SpanFileExporter(SpanExporter):
    """Appends each batch of finished spans to `path` as one line of OTLP JSON
    (`{"resourceSpans": [...]}`), the file `zeroclaw eval import` reads."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._file = _Appender(path)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if not spans:
            return SpanExportResult.SUCCESS
        try:
            written = self._file.append({"resourceSpans": resource_spans(spans)})
        except (OSError, ValueError):
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS if written else SpanExportResult.FAILURE

    def shutdown(self) -> None:
        self._file.close()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True  # every export is written before it returns


def _log_base() -> Any:
    """The SDK's log exporter base class, by the name its release gives it."""
    from opentelemetry.sdk._logs import export

    return getattr(export, "LogRecordExporter", None) or export.LogExporter


def _log_result(ok: bool) -> Any:
    from opentelemetry.sdk._logs import export

    result = getattr(export, "LogRecordExportResult", None) or export.LogExportResult
    return result.SUCCESS if ok else result.FAILURE


class LogFileExporter(_log_base()):  # type: ignore[misc]
    """Appends each batch of log records to `path` as one line of OTLP JSON
    (`{"resourceLogs": [...]}`): the message content that older GenAI instrumentations
    write as log records, read by `zeroclaw eval import` with the spans they point at."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._file = _Appender(path)

    def export(self, batch: Sequence[Any]) -> Any:
        if not batch:
            return _log_result(True)
        try:
            return _log_result(self._file.append({"resourceLogs": resource_logs(batch)}))
        except (OSError, ValueError):
            return _log_result(False)

    def shutdown(self) -> None:
        self._file.close()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def _resource(resource: Any) -> dict[str, Any]:
    return {"attributes": key_values(getattr(resource, "attributes", None))}


def _scope(scope: Any) -> dict[str, Any]:
    if scope is None:
        return {}
    described: dict[str, Any] = {"name": scope.name}
    if scope.version:
        described["version"] = scope.version
    return described


def _grouped(
    items: Iterable[Any], resource_of: Any, scope_of: Any
) -> list[tuple[Any, list[tuple[Any, list[Any]]]]]:
    """Items grouped by resource, then by instrumentation scope, in the order first seen."""
    groups: list[tuple[Any, list[tuple[Any, list[Any]]]]] = []
    for item in items:
        resource, scope = resource_of(item), scope_of(item)
        scopes = next((found for known, found in groups if known is resource or known == resource), None)
        if scopes is None:
            scopes = []
            groups.append((resource, scopes))
        listed = next((found for known, found in scopes if known is scope or known == scope), None)
        if listed is None:
            listed = []
            scopes.append((scope, listed))
        listed.append(item)
    return groups


def _hex(value: int | None, digits: int) -> str:
    return format(value, f"0{digits}x") if value else ""


def span_json(span: ReadableSpan) -> dict[str, Any]:
    """One finished span in OTLP JSON."""
    context = span.context
    encoded: dict[str, Any] = {
        "traceId": _hex(context.trace_id if context else None, 32),
        "spanId": _hex(context.span_id if context else None, 16),
        "parentSpanId": _hex(span.parent.span_id if span.parent else None, 16),
        "name": span.name,
        "kind": span.kind.value + 1,  # OTLP counts from UNSPECIFIED = 0
        "startTimeUnixNano": str(span.start_time or 0),
        "endTimeUnixNano": str(span.end_time or 0),
        "attributes": key_values(span.attributes),
        "events": [
            {
                "timeUnixNano": str(event.timestamp),
                "name": event.name,
                "attributes": key_values(event.attributes),
            }
            for event in span.events
        ],
        "links": [
            {
                "traceId": _hex(link.context.trace_id, 32),
                "spanId": _hex(link.context.span_id, 16),
                "attributes": key_values(link.attributes),
            }
            for link in span.links
        ],
        "status": {"code": span.status.status_code.value},
    }
    if span.status.description:
        encoded["status"]["message"] = span.status.description
    return encoded


def resource_spans(spans: Sequence[ReadableSpan]) -> list[dict[str, Any]]:
    """Spans as OTLP's `resourceSpans`: grouped by resource and instrumentation scope."""
    grouped = _grouped(spans, lambda span: span.resource, lambda span: span.instrumentation_scope)
    return [
        {
            "resource": _resource(resource),
            "scopeSpans": [
                {"scope": _scope(scope), "spans": [span_json(span) for span in listed]}
                for scope, listed in scopes
            ],
        }
        for resource, scopes in grouped
    ]


def log_json(record: Any) -> dict[str, Any]:
    """One log record (the SDK's `log_record` of a batch item) in OTLP JSON."""
    encoded: dict[str, Any] = {
        "timeUnixNano": str(record.timestamp or 0),
        "observedTimeUnixNano": str(getattr(record, "observed_timestamp", None) or 0),
        "attributes": key_values(record.attributes),
        "traceId": _hex(record.trace_id, 32),
        "spanId": _hex(record.span_id, 16),
    }
    if record.severity_number is not None:
        encoded["severityNumber"] = record.severity_number.value
    if record.severity_text:
        encoded["severityText"] = record.severity_text
    if record.body is not None:
        encoded["body"] = any_value(record.body)
    event_name = getattr(record, "event_name", None)
    if event_name:
        encoded["eventName"] = event_name
    return encoded


def resource_logs(batch: Sequence[Any]) -> list[dict[str, Any]]:
    """A batch of log records as OTLP's `resourceLogs`."""
    # The record's resource is the batch item's own from SDK 1.39 on, the record's before.
    grouped = _grouped(
        batch,
        lambda item: getattr(item, "resource", None) or item.log_record.resource,
        lambda item: item.instrumentation_scope,
    )
    return [
        {
            "resource": _resource(resource),
            "scopeLogs": [
                {"scope": _scope(scope), "logRecords": [log_json(item.log_record) for item in listed]}
                for scope, listed in scopes
            ],
        }
        for resource, scopes in grouped
    ]
