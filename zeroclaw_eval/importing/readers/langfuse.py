"""A Langfuse export, read into `ImportedTrace`s.

What Langfuse's public API returns (and its UI downloads): a trace with its
`observations` (`GET /api/public/traces/{id}`), a page of them (`{"data": [...]}`), a
list, or a page of observations themselves (`GET /api/public/v2/observations`, each
with its `traceId`). An observation of type `GENERATION` is a model call: its `input`
the messages sent (a list, or `{"messages", "tools"}` as Langfuse's OpenAI integration
records a request with tools), its `output` the reply, `usageDetails` (or `usage`) its
tokens. A `TOOL` observation is a tool run (`input` the arguments, `output` the result,
`level: ERROR` a failure, a `tool_call_id` in its metadata when the agent set one); an
`AGENT` observation names the agent.

The Langfuse SDK sends the same observations as OpenTelemetry spans
(`langfuse.observation.type`, `.input`, `.output`, `.usage_details`, `.level`,
`.metadata.<key>`), which an OTLP JSON file holds: they are read alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from zeroclaw_eval._support.json.text import compact_json
from zeroclaw_eval.boundary.provider import ModelResponse
from zeroclaw_eval.importing.messages import chat_messages, reply_of, tool_names
from zeroclaw_eval.importing.readers.otlp import Span, decoded, span_failed
from zeroclaw_eval.importing.trace import ImportedTrace, ModelCall, ToolRun, iso_ns, read_once, tokens


def _observation(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("type"), str) and "traceId" in item


def _trace(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("observations"), list)


def _items(document: Any) -> list[Any]:
    if isinstance(document, dict) and isinstance(document.get("data"), list):
        return list(document["data"])
    return document if isinstance(document, list) else [document]


def is_langfuse(document: Any) -> bool:
    """Whether `document` is a Langfuse trace or observation export."""
    items = _items(document)
    return bool(items) and (all(_trace(item) for item in items) or all(_observation(item) for item in items))


def langfuse_records(document: Any) -> Iterator[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """Each trace of a Langfuse export, as its id, the trace itself (`{}` for a page of
    observations) and its observations, for `read_langfuse` once every file is in."""
    for item in _items(document):
        if _trace(item):
            yield str(item.get("id") or ""), item, [o for o in item["observations"] if isinstance(o, dict)]
        elif _observation(item):
            yield str(item["traceId"]), {}, [item]


_PREFIX = "langfuse.observation."


def is_langfuse_otel(spans: list[Span]) -> bool:
    """Whether a trace's spans are the Langfuse SDK's observations."""
    return any(f"{_PREFIX}type" in span.attributes for span in spans)


def read_langfuse_spans(trace_id: str, spans: list[Span], source: str) -> ImportedTrace:
    """The observations the Langfuse SDK sent as spans, read as an export's."""
    observations = []
    for span in spans:
        attributes = span.attributes
        observation: dict[str, Any] = {
            "id": span.span_id,
            "name": span.name,
            "startTime": span.start,
            "endTime": span.end or None,
            "type": str(attributes.get(f"{_PREFIX}type", "span")).upper(),
            # The SDK marks a failure on the level; an error status says it as well.
            "level": "ERROR" if span_failed(span) else attributes.get(f"{_PREFIX}level", "DEFAULT"),
            "metadata": {},
        }
        for key, value in attributes.items():
            name = key[len(_PREFIX) :]
            if not key.startswith(_PREFIX):
                continue
            if name in ("input", "output", "usage_details"):
                observation["usageDetails" if name == "usage_details" else name] = decoded(value)
            elif name.startswith("metadata."):
                observation["metadata"][name[len("metadata.") :]] = decoded(value)
        observations.append(observation)
    trace = read_langfuse(trace_id, {}, observations, source)
    trace.service = next((span.service for span in spans if span.service), None)
    return trace


def _start(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else iso_ns(value)


def read_langfuse(
    trace_id: str, head: dict[str, Any], observations: list[dict[str, Any]], shown: str
) -> ImportedTrace:
    """One trace of Langfuse exports: the trace (`{}` if none said it) and its
    observations, of every file that held it, each read once (`read_once`)."""
    trace = ImportedTrace("langfuse", shown, trace_id)
    observations, trace.conflicting = read_once(observations, lambda o: str(o.get("id") or ""))
    starts = [_start(o.get("startTime")) for o in observations]
    trace.started_ns = iso_ns(head.get("timestamp")) or min((s for s in starts if s), default=None)
    name = head.get("name")
    trace.agent = name if isinstance(name, str) and name else None
    trace.service = head.get("environment") if isinstance(head.get("environment"), str) else None
    for observation, start in zip(observations, starts, strict=True):
        span_id = str(observation.get("id") or "")
        kind = str(observation.get("type")).upper()
        if observation.get("endTime") is None:
            trace.unfinished.append(span_id)
        if kind == "AGENT" and not trace.agent:
            name = observation.get("name")
            trace.agent = name if isinstance(name, str) and name else None
        elif kind == "GENERATION":
            trace.calls.append(_model_call(span_id, start or 0, observation))
        elif kind == "TOOL":
            trace.tools.append(_tool_run(span_id, start or 0, observation))
    return trace


def _model_call(span_id: str, start: int, observation: dict[str, Any]) -> ModelCall:
    sent = observation.get("input")
    call = ModelCall(span_id, start, chat_messages(sent), None, label=str(observation.get("name") or ""))
    call.reply_attribute = "output"
    call.failed = _failed(observation)
    reply = reply_of(observation.get("output"))
    if reply is not None:
        usage = observation.get("usageDetails") or observation.get("usage") or {}
        # Langfuse's names; the SDK's spans carry the provider's own.
        counted = [
            usage.get(key, usage.get(raw)) if isinstance(usage, dict) else None
            for key, raw in (("input", "prompt_tokens"), ("output", "completion_tokens"))
        ]
        call.reply = ModelResponse(reply.content, reply.tool_calls, tokens(counted[0]), tokens(counted[1]))
    if isinstance(sent, dict) and isinstance(sent.get("tools"), list):
        call.offered = tool_names(sent["tools"])
    return call


def _tool_run(span_id: str, start: int, observation: dict[str, Any]) -> ToolRun:
    metadata = observation.get("metadata")
    call_id = metadata.get("tool_call_id") if isinstance(metadata, dict) else None
    output = observation.get("output")
    if output is not None and not isinstance(output, str):
        output = compact_json(output)
    return ToolRun(
        span_id,
        start,
        str(observation.get("name") or ""),
        call_id if isinstance(call_id, str) else "",
        observation.get("input"),
        output,
        not _failed(observation),
    )


def _failed(observation: dict[str, Any]) -> bool:
    """Whether Langfuse says an observation failed: its level is ERROR (the SDKs set it,
    with the error as `statusMessage`, when the wrapped code raised)."""
    return str(observation.get("level") or "").upper() == "ERROR"
