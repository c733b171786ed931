"""OTLP JSON, read: the spans and log records of an OTLP/HTTP JSON body, or of the JSON
lines an OTLP file exporter writes (one export request per line), grouped by trace.

The OTLP/HTTP JSON encoding differs from protobuf's canonical JSON mapping in ways a
reader must take as written: trace and span ids are hex (not base64; some exporters
write base64 still, so 24- and 12-character base64 ids are read too), enums are
integers (`kind: 3`, `status.code: 2`; their names are taken as well), 64-bit integers
are decimal strings. Attribute values (`AnyValue`) become Python values: a string, a
number, a boolean, a list or a dict.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval._support.json.text import loads_untrusted
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.importing.messages import listed

#: `Status.code` of a span that failed (`STATUS_CODE_ERROR`).
STATUS_ERROR = 2
#: A status whose code is spelled no way a status is: it proves neither outcome.
STATUS_UNKNOWN = -1


@dataclass
class Event:
    """A span event or a log record: its name, time, attributes and body."""

    name: str
    time: int
    attributes: dict[str, Any]
    body: Any = None


@dataclass
class Span:
    """One span, with the log records that point at it."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    status: int = 0
    service: str | None = None
    #: The name of the instrumentation scope that made it (`logfire.openai_agents`).
    scope: str = ""


@dataclass
class OtlpTraces:
    """What one or more files held: spans by trace id, in the order first seen, log
    records by (trace id, span id), and the files each trace came from (an exporter
    rotating its file may split a trace in two)."""

    spans: dict[str, list[Span]] = field(default_factory=dict)
    logs: dict[tuple[str, str], list[Event]] = field(default_factory=dict)
    sources: dict[str, list[str]] = field(default_factory=dict)

    def traces(self) -> dict[str, list[Span]]:
        """The spans of each trace, each with the log records that point at it (each
        copy of a span given twice, so that the copies still compare equal and the span
        is read once: `trace.read_once`)."""
        for spans in self.spans.values():
            for span in spans:
                span.events.extend(self.logs.get((span.trace_id, span.span_id), ()))
        self.logs.clear()
        return self.spans


def read_otlp(
    documents: Iterable[tuple[int, Any]], source: str, found: OtlpTraces | None = None
) -> OtlpTraces:
    """The spans and logs of OTLP JSON export requests (each with the line it starts on),
    added to `found`; `UsageError` naming `source` and the line of one that is not."""
    found = found if found is not None else OtlpTraces()
    for line, document in documents:
        if not isinstance(document, dict) or not ({"resourceSpans", "resourceLogs"} & document.keys()):
            raise UsageError(
                f"{source}:{line}: not an OTLP JSON export (an object with resourceSpans or resourceLogs)"
            )
        for resource in listed(document.get("resourceSpans")):
            service = _service(resource)
            for scope in listed(_get(resource, "scopeSpans")):
                scope_name = _get(_get(scope, "scope"), "name")
                for raw in listed(_get(scope, "spans")):
                    span = _span(raw, service)
                    span.scope = scope_name if isinstance(scope_name, str) else ""
                    found.spans.setdefault(span.trace_id, []).append(span)
                    files = found.sources.setdefault(span.trace_id, [])
                    if source not in files:
                        files.append(source)
        for resource in listed(document.get("resourceLogs")):
            for scope in listed(_get(resource, "scopeLogs")):
                for raw in listed(_get(scope, "logRecords")):
                    trace_id, span_id = _id(_get(raw, "traceId")), _id(_get(raw, "spanId"))
                    found.logs.setdefault((trace_id, span_id), []).append(_log(raw))
    return found


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _int(value: Any) -> int:
    """A 64-bit integer as OTLP JSON writes it: a decimal string (or a number)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        return int(value)
    return 0


def _id(value: Any) -> str:
    """A trace or span id as lowercase hex, from hex or base64 text ("" for none)."""
    if not isinstance(value, str) or not value:
        return ""
    lowered = value.lower()
    if len(value) in (16, 32) and all(c in "0123456789abcdef" for c in lowered):
        return lowered
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return value
    return decoded.hex() if len(decoded) in (8, 16) else value


def any_value(value: Any) -> Any:
    """An OTLP `AnyValue` as a Python value."""
    if not isinstance(value, dict):
        return value
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value:
        return value["boolValue"]
    if "intValue" in value:
        return _int(value["intValue"])
    if "doubleValue" in value:
        return value["doubleValue"]
    if "arrayValue" in value:
        return [any_value(item) for item in listed(_get(value["arrayValue"], "values"))]
    if "kvlistValue" in value:
        return attributes(_get(value["kvlistValue"], "values"))
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def attributes(values: Any) -> dict[str, Any]:
    """A list of OTLP `KeyValue`s as a dict."""
    return {
        item["key"]: any_value(item.get("value"))
        for item in listed(values)
        if isinstance(item, dict) and isinstance(item.get("key"), str)
    }


def _service(resource: Any) -> str | None:
    name = attributes(_get(_get(resource, "resource"), "attributes")).get("service.name")
    return name if isinstance(name, str) else None


#: How a span's `Status.code` is spelled, by the code it stands for: proto JSON's enum
#: name and number, and what exporters outside the protocol write (the SDKs' own enum
#: names, the number as text or as a float).
_STATUS_CODES = {
    "status_code_unset": 0, "unset": 0, "0": 0,
    "status_code_ok": 1, "ok": 1, "1": 1,
    "status_code_error": STATUS_ERROR, "error": STATUS_ERROR, "2": STATUS_ERROR,
}  # fmt: skip


def _status(value: Any) -> int:
    """A span status's code: 0 unset (none given), 1 ok, `STATUS_ERROR`, or
    `STATUS_UNKNOWN` for a code spelled no way a status is (which proves nothing)."""
    code = _get(value, "code")
    if code is None:
        return 0
    if isinstance(code, float) and code.is_integer():
        code = int(code)
    if isinstance(code, int) and not isinstance(code, bool):
        return code if code in (0, 1, STATUS_ERROR) else STATUS_UNKNOWN
    if isinstance(code, str):
        return _STATUS_CODES.get(code.strip().lower(), STATUS_UNKNOWN)
    return STATUS_UNKNOWN


def _span(raw: Any, service: str | None) -> Span:
    events = [
        Event(
            str(_get(event, "name") or ""),
            _int(_get(event, "timeUnixNano")),
            attributes(_get(event, "attributes")),
        )
        for event in listed(_get(raw, "events"))
    ]
    return Span(
        trace_id=_id(_get(raw, "traceId")),
        span_id=_id(_get(raw, "spanId")),
        parent_id=_id(_get(raw, "parentSpanId")),
        name=str(_get(raw, "name") or ""),
        start=_int(_get(raw, "startTimeUnixNano")),
        end=_int(_get(raw, "endTimeUnixNano")),
        attributes=attributes(_get(raw, "attributes")),
        events=events,
        status=_status(_get(raw, "status")),
        service=service,
    )


def decoded(value: Any) -> Any:
    """An attribute that an SDK wrote as JSON text (Langfuse's, Logfire's, MLflow's,
    OpenLLMetry's dicts and lists), parsed; text that is not JSON, and any other value,
    as it is."""
    if not isinstance(value, str):
        return value
    try:
        return loads_untrusted(value)
    except ValueError:
        return value


def named(span: Span, *keys: str) -> str | None:
    """The first of `keys` a span holds as non-empty text (a provider's, an agent's name)."""
    for key in keys:
        value = span.attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def span_failed(span: Span) -> bool:
    """Whether a span says the work it wraps failed: an error status (by number or by
    name, or as the `otel.status_code` attribute some exporters write), an `error.type`
    attribute (the semantic conventions' error class), or an exception event (what
    `record_exception` writes: named `exception` in any case, or carrying
    `exception.type`)."""
    if span.status == STATUS_ERROR or span.attributes.get("error.type"):
        return True
    marked = span.attributes.get("otel.status_code")
    if isinstance(marked, str) and marked.strip().lower() in ("error", "status_code_error"):
        return True
    return any(
        event.name.lower() == "exception" or "exception.type" in event.attributes for event in span.events
    )


def span_outcome(span: Span) -> bool | None:
    """What a span proves of the work it wraps: False it failed (`span_failed`), True it
    ended with no sign of failure, None when its status is spelled no way a status is
    (a reader cannot tell what the exporter meant)."""
    if span_failed(span):
        return False
    return None if span.status == STATUS_UNKNOWN else True


def _log(raw: Any) -> Event:
    attrs = attributes(_get(raw, "attributes"))
    # The event's name: the record's own field (OTLP 1.5), else the attribute older SDKs set.
    name = _get(raw, "eventName") or attrs.get("event.name") or ""
    time = _int(_get(raw, "timeUnixNano")) or _int(_get(raw, "observedTimeUnixNano"))
    return Event(str(name), time, attrs, any_value(_get(raw, "body")))
