"""Capture what a real instrumentation emits and write it as OTLP/HTTP JSON.

The importer reads traces as an OpenTelemetry collector or an OTLP/HTTP JSON client writes
them, so the tests feed it exactly that: spans (and log records, which older GenAI
instrumentations use for message content) recorded by the SDK in memory, encoded by the
OTLP exporter's own encoders and rendered with protobuf's JSON mapping.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

JsonDict = dict[str, Any]

# The OTLP/HTTP JSON encoding differs from protobuf's canonical JSON mapping in one way that
# matters here: trace and span ids are hex strings, not base64 (the spec's "JSON Protobuf
# Encoding" section). These are the keys that hold such ids, in spans, links and log records.
_ID_KEYS = frozenset({"traceId", "spanId", "parentSpanId"})


class OtlpCapture:
    """An SDK tracer provider and logger provider that keep everything in memory.

    Pass `tracer_provider` / `logger_provider` to an instrumentor's `instrument(...)` (or
    call `set_global()` for code that only uses the global providers). The processors are
    synchronous, so a span is captured the moment it ends, with no flush to wait for.
    """

    def __init__(self, service_name: str = "zeroclaw-capture") -> None:
        resource = Resource.create({"service.name": service_name})
        self.span_exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider(resource=resource)
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.span_exporter))
        # The SDK leaves this constructor unannotated.
        self.log_exporter = InMemoryLogRecordExporter()  # type: ignore[no-untyped-call]
        self.logger_provider = LoggerProvider(resource=resource)
        self.logger_provider.add_log_record_processor(SimpleLogRecordProcessor(self.log_exporter))

    def set_global(self) -> None:
        """Make these the process-wide providers (the API allows this once per process)."""
        from opentelemetry import trace
        from opentelemetry._logs import set_logger_provider

        trace.set_tracer_provider(self.tracer_provider)
        set_logger_provider(self.logger_provider)

    def spans(self) -> tuple[ReadableSpan, ...]:
        return self.span_exporter.get_finished_spans()

    def logs(self) -> tuple[ReadableLogRecord, ...]:
        return self.log_exporter.get_finished_logs()

    def traces_json(self) -> JsonDict:
        return spans_to_otlp_json(self.spans())

    def logs_json(self) -> JsonDict:
        return logs_to_otlp_json(self.logs())

    def shutdown(self) -> None:
        self.tracer_provider.shutdown()
        self.logger_provider.shutdown()

    def __enter__(self) -> OtlpCapture:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # Shutting down flushes nothing new (the processors are synchronous) but stops
        # instrumentations that outlive the block from adding to this capture.
        self.shutdown()


def spans_to_otlp_json(spans: Sequence[ReadableSpan]) -> JsonDict:
    """One ExportTraceServiceRequest, `{"resourceSpans": [...]}`, in OTLP/HTTP JSON."""
    message = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
    return {"resourceSpans": _hex_ids(message.get("resourceSpans", []))}


def logs_to_otlp_json(logs: Sequence[ReadableLogRecord]) -> JsonDict:
    """One ExportLogsServiceRequest, `{"resourceLogs": [...]}`, in OTLP/HTTP JSON."""
    message = MessageToDict(encode_logs(logs), use_integers_for_enums=True)
    return {"resourceLogs": _hex_ids(message.get("resourceLogs", []))}


def split_per_span(spans: Sequence[ReadableSpan]) -> Iterator[JsonDict]:
    """One export request per span, as an exporter behind a SimpleSpanProcessor sends them."""
    for span in spans:
        yield spans_to_otlp_json([span])


def write_json(path: Path, *requests: Mapping[str, Any]) -> None:
    """One JSON document; several requests (say traces and logs) merge their top-level keys."""
    merged: JsonDict = {}
    for request in requests:
        merged.update(request)
    path.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")


def write_jsonl(path: Path, requests: Iterable[Mapping[str, Any]]) -> None:
    """One export request per line, as the collector's file exporter writes them."""
    lines = [json.dumps(request, separators=(",", ":")) for request in requests]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _hex_ids(value: Any) -> Any:
    """Rewrite protobuf's base64 `bytes` ids as the lowercase hex OTLP/HTTP JSON requires."""
    if isinstance(value, list):
        return [_hex_ids(item) for item in value]
    if isinstance(value, dict):
        return {
            key: base64.b64decode(item).hex() if key in _ID_KEYS and isinstance(item, str) else _hex_ids(item)
            for key, item in value.items()
        }
    return value
