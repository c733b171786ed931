"""`zeroclaw_eval.importing.otlp_file`: the trace file an agent writes with the SDK's own
processors, held to what OpenTelemetry's protobuf encoder writes for the same spans and
log records, and read by `zeroclaw eval import`."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from opentelemetry._logs import LogRecord
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

from tests.importing.otlp_capture import logs_to_otlp_json, spans_to_otlp_json
from zeroclaw_eval import LogFileExporter, SpanFileExporter
from zeroclaw_eval.importing.readers.otlp import read_otlp

ATTRIBUTES: dict[str, Any] = {
    "text": '東京 "quoted"',
    "flag": True,
    "count": 2**62,
    "ratio": 0.25,
    "names": ["a", "b"],
    "numbers": [1, 2],
}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _read(documents: list[dict[str, Any]]) -> Any:
    """What the importer reads of OTLP JSON documents: spans and logs, as its dataclasses."""
    found = read_otlp(enumerate(documents, 1), "file")
    return found.traces(), found.logs


def _record_spans(provider: TracerProvider) -> None:
    tracer = provider.get_tracer("agent", "1.2.3")
    with tracer.start_as_current_span("invoke_agent", kind=SpanKind.INTERNAL, attributes=ATTRIBUTES):
        with tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT) as chat:
            chat.add_event("gen_ai.choice", {"index": 0})
        with tracer.start_as_current_span("execute_tool refund") as tool:
            tool.record_exception(ConnectionRefusedError("refused"))
            tool.set_status(Status(StatusCode.ERROR, "refused"))


def test_spans_are_written_as_the_protobuf_encoder_writes_them(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support"}))
    provider.add_span_processor(SimpleSpanProcessor(SpanFileExporter(path)))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    _record_spans(provider)
    provider.shutdown()
    written = _lines(path)
    assert len(written) == 3  # a line per batch: SimpleSpanProcessor exports each span alone
    oracle = [spans_to_otlp_json([span]) for span in memory.get_finished_spans()]
    assert _read(written) == _read(oracle)
    for mine, theirs in zip(written, oracle, strict=True):
        (span,) = mine["resourceSpans"][0]["scopeSpans"][0]["spans"]
        (expected,) = theirs["resourceSpans"][0]["scopeSpans"][0]["spans"]
        for key in ("traceId", "spanId", "kind", "startTimeUnixNano", "endTimeUnixNano", "name"):
            assert span[key] == expected[key], key
        assert span["parentSpanId"] == expected.get("parentSpanId", "")
        assert span["status"].get("code", 0) == expected["status"].get("code", 0)
        assert span["attributes"] == expected.get("attributes", [])
        assert (
            mine["resourceSpans"][0]["scopeSpans"][0]["scope"]
            == theirs["resourceSpans"][0]["scopeSpans"][0]["scope"]
        )


def test_log_records_are_written_as_the_protobuf_encoder_writes_them(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    provider = LoggerProvider(resource=Resource.create({"service.name": "support"}))
    provider.add_log_record_processor(SimpleLogRecordProcessor(LogFileExporter(path)))
    oracle: list[Any] = []

    class Keep(SimpleLogRecordProcessor):
        def __init__(self) -> None:
            pass

        def on_emit(self, log_record: Any) -> None:
            oracle.append(log_record)

        def shutdown(self) -> None:
            pass

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return True

    provider.add_log_record_processor(Keep())
    logger = provider.get_logger("gen_ai")
    body = {"content": "What is the weather in Paris?", "tool_calls": [{"id": "call_1"}]}
    logger.emit(
        LogRecord(
            timestamp=1_700_000_000_000_000_000,
            trace_id=0x5B8AA5A2D2C872E8321CF37308D69DF2,
            span_id=0x051581BF3CB55C13,
            body=body,
            attributes={"gen_ai.system": "openai"},
            event_name="gen_ai.user.message",
        )
    )
    provider.shutdown()
    (written,) = _lines(path)
    expected = logs_to_otlp_json(oracle)
    assert _read([written]) == _read([expected])
    (record,) = written["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    (theirs,) = expected["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    for key in ("timeUnixNano", "traceId", "spanId", "body", "attributes", "eventName"):
        assert record[key] == theirs[key], key


def test_two_exporters_appending_to_one_file_never_interleave_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    providers = []
    for _ in range(2):
        provider = TracerProvider()
        provider.add_span_processor(BatchSpanProcessor(SpanFileExporter(path), max_export_batch_size=7))
        providers.append(provider)

    def spans(provider: TracerProvider) -> None:
        tracer = provider.get_tracer("agent")
        for index in range(200):
            with tracer.start_as_current_span(f"span {index}", attributes={"padding": "x" * 5000}):
                pass

    threads = [threading.Thread(target=spans, args=(provider,)) for provider in providers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for provider in providers:
        provider.shutdown()
    lines = _lines(path)  # every line is whole JSON
    assert sum(len(line["resourceSpans"][0]["scopeSpans"][0]["spans"]) for line in lines) == 400


def test_after_shutdown_nothing_more_is_written(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    with provider.get_tracer("agent").start_as_current_span("late"):
        pass
    exporter = SpanFileExporter(path)
    exporter.shutdown()
    assert exporter.export(memory.get_finished_spans()).name == "FAILURE"
    assert not path.exists()
