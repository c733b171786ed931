"""A trace file, read: its format recognised from its shape, every trace in it read into
an `ImportedTrace` (or the reason it cannot be), and `--select` applied.

- OTLP JSON (`resourceSpans` / `resourceLogs`, one document or JSON lines): each trace
  whose spans follow OpenInference (`openinference.span.kind`), are the Langfuse SDK's
  observations (`langfuse.observation.type`) or MLflow's (`mlflow.spanType`), or follow
  the GenAI conventions (`gen_ai.*`, with the shapes OpenLLMetry and Logfire wrote before
  them); traces with none (HTTP or database spans) are not agent runs and are passed over;
- a Langfuse trace export: a trace with its `observations` (or a list of them, or the
  API's `{"data": [...]}` page);
- a LangSmith run export: a root run with its `child_runs`, or a flat list of runs.

Every file is gathered before any trace is read (`Gathered`): a trace may be split over
two files or exported again in another, and each of its records is read once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zeroclaw_eval._support.files import read_bounded
from zeroclaw_eval._support.json.text import loads_untrusted
from zeroclaw_eval.errors import UnfaithfulTrace, UsageError
from zeroclaw_eval.importing.readers.otlp import OtlpTraces, read_otlp
from zeroclaw_eval.importing.trace import ImportedTrace, SourceTraces, iso_ns, read_once

#: The largest trace file read: exports of a day of traffic are split long before this.
MAX_SOURCE_BYTES = 512 * 1024 * 1024

#: What `--select` may filter on.
SELECT_KEYS = ("trace", "service", "since", "until")


@dataclass(frozen=True)
class Selection:
    """Which traces to import: each key given must match (any of its values)."""

    traces: frozenset[str] = frozenset()
    services: frozenset[str] = frozenset()
    since_ns: int | None = None
    until_ns: int | None = None

    @classmethod
    def parse(cls, items: tuple[str, ...]) -> Selection:
        """`--select KEY=VALUE` items; `UsageError` for a key or time it does not know."""
        traces: set[str] = set()
        services: set[str] = set()
        since = until = None
        for item in items:
            key, sep, value = item.partition("=")
            if not sep or key not in SELECT_KEYS or not value:
                raise UsageError(
                    f"--select {item!r}: give KEY=VALUE with KEY one of {', '.join(SELECT_KEYS)}"
                    " (trace=4bf92f3577b34da6a3ce929d0e0e4736, service=checkout, since=2026-12-01T00:00Z)"
                )
            if key == "trace":
                traces.add(value.lower())
            elif key == "service":
                services.add(value)
            elif key == "since":
                since = _time(item, value)
            else:
                until = _time(item, value)
        return cls(frozenset(traces), frozenset(services), since, until)

    def takes(self, trace: ImportedTrace) -> bool:
        """Whether `trace` is selected."""
        if self.traces and trace.trace_id.lower() not in self.traces:
            return False
        if self.services and trace.service not in self.services:
            return False
        started = trace.started_ns
        if self.since_ns is not None and (started is None or started < self.since_ns):
            return False
        return self.until_ns is None or (started is not None and started <= self.until_ns)


def _time(item: str, value: str) -> int:
    """An ISO 8601 time (UTC when it names no zone) as ns since the epoch."""
    found = iso_ns(value)
    if found is None:
        raise UsageError(f"--select {item!r}: {value!r} is not an ISO 8601 time such as 2026-12-01T09:30Z")
    return found


@dataclass
class _Export:
    """One trace of Langfuse or LangSmith exports: its records of every file, the trace
    object Langfuse exports (the first one, `{}` until one is read) and the files."""

    head: dict[str, Any] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


@dataclass
class Gathered:
    """What the files given hold, gathered before any trace is read: a trace may go on in
    another file (an exporter rotating its file) or be exported again in another (two
    exports that overlap), and is one trace whose every record is read once
    (`trace.read_once`)."""

    otlp: OtlpTraces = field(default_factory=OtlpTraces)
    #: Langfuse and LangSmith traces by (format, trace id), in the order first read.
    exports: dict[tuple[str, str], _Export] = field(default_factory=dict)
    #: The SHA-256 of each file read: a file given twice (or a copy of it) is read once,
    #: its log records too, which have no id to tell them by.
    digests: set[bytes] = field(default_factory=set)

    def add(
        self, trace_format: str, trace_id: str, head: dict[str, Any], records: list[Any], shown: str
    ) -> None:
        """Records of one trace a file holds (Langfuse's with the trace object, if the
        file has it), after those of the files before."""
        export = self.exports.setdefault((trace_format, trace_id), _Export())
        export.head = export.head or head
        export.records.extend(records)
        if shown not in export.files:
            export.files.append(shown)


def read_source(path: Path, shown: str, gathered: Gathered) -> None:
    """Every trace of the file `path` (named `shown` in messages and provenance), added to
    `gathered` (`gathered_traces` reads them once every file is in)."""
    raw = read_bounded(path, MAX_SOURCE_BYTES, limit=("a trace file", "export fewer traces per file"))
    if isinstance(raw, str):
        raise UsageError(f"{shown}: {raw}")
    digest = hashlib.sha256(raw).digest()
    if digest in gathered.digests:
        return
    gathered.digests.add(digest)
    try:
        text = raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{shown}: not UTF-8 text (byte {exc.start}); export the traces as JSON") from None
    documents = _documents(text, shown)
    if _is_otlp(documents[0][1]):
        read_otlp(documents, shown, gathered.otlp)
        return
    # One document, or JSON lines (LangSmith's runs, one per line).
    document = documents[0][1] if len(documents) == 1 else [value for _, value in documents]
    from zeroclaw_eval.importing.readers.langfuse import is_langfuse, langfuse_records
    from zeroclaw_eval.importing.readers.langsmith import is_langsmith, langsmith_records

    if is_langfuse(document):
        for trace_id, head, observations in langfuse_records(document):
            gathered.add("langfuse", trace_id, head, observations, shown)
        return
    if is_langsmith(document):
        for trace_id, run in langsmith_records(document):
            gathered.add("langsmith", trace_id, {}, [run], shown)
        return
    raise UsageError(
        f"{shown}: not a trace export this command reads: OTLP JSON (resourceSpans), a Langfuse"
        " trace (with observations) or a LangSmith run (with run_type)"
    )


def _documents(text: str, shown: str) -> list[tuple[int, Any]]:
    """The JSON values of `text`, each with the line it starts on: one document, or JSON
    lines (an OTLP file exporter's export requests, LangSmith's runs). Parsed once, here;
    `UsageError` naming the line that is not JSON, or an empty file."""
    try:
        return [(1, loads_untrusted(text))]
    except ValueError:
        pass
    documents = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                documents.append((number, loads_untrusted(line)))
            except ValueError as exc:
                raise UsageError(
                    f"{shown}:{number}: neither one JSON document nor JSON lines ({exc})"
                ) from None
    if not documents:
        raise UsageError(f"{shown} is empty; export the traces as JSON")
    return documents


def _is_otlp(document: Any) -> bool:
    """Whether a document is an OTLP JSON export request."""
    return isinstance(document, dict) and bool({"resourceSpans", "resourceLogs"} & document.keys())


def gathered_traces(gathered: Gathered) -> SourceTraces:
    """Every agent run of the files read into `gathered`: the Langfuse and LangSmith
    traces in the order first read, then those of OTLP JSON."""
    from zeroclaw_eval.importing.readers.langfuse import read_langfuse
    from zeroclaw_eval.importing.readers.langsmith import read_langsmith

    found = SourceTraces()
    for (trace_format, trace_id), export in gathered.exports.items():
        shown = ", ".join(export.files)
        if trace_format == "langfuse":
            found.traces.append(read_langfuse(trace_id, export.head, export.records, shown))
        else:
            found.traces.append(read_langsmith(trace_id, export.records, shown))
    found.extend(_otlp_traces(gathered.otlp))
    return found


def _otlp_traces(otlp: OtlpTraces) -> SourceTraces:
    """Every agent run among the traces of the OTLP JSON files read into `otlp`, each
    span read once (`read_once`, by its id: the trace's is the same for all)."""
    from zeroclaw_eval.importing.readers.genai import is_genai, read_genai
    from zeroclaw_eval.importing.readers.langfuse import is_langfuse_otel, read_langfuse_spans
    from zeroclaw_eval.importing.readers.mlflow import is_mlflow, read_mlflow
    from zeroclaw_eval.importing.readers.openinference import is_openinference, read_openinference

    readers = (
        (is_openinference, read_openinference),
        (is_langfuse_otel, read_langfuse_spans),
        (is_mlflow, read_mlflow),
        (is_genai, read_genai),
    )
    found = SourceTraces()
    for trace_id, given in otlp.traces().items():
        spans, conflicting = read_once(given, lambda span: span.span_id)
        shown = ", ".join(otlp.sources.get(trace_id, ()))
        reader = next((read for test, read in readers if test(spans)), None)
        if reader is None:
            found.passed_over += 1
            continue
        try:
            trace = reader(trace_id, spans, shown)
        except UnfaithfulTrace as refused:
            known = ImportedTrace(
                "", shown, trace_id, service=next((s.service for s in spans if s.service), None)
            )
            known.started_ns = min((span.start for span in spans if span.start), default=None)
            found.refused.append((known, refused))
            continue
        trace.conflicting = conflicting
        found.traces.append(trace)
    return found
