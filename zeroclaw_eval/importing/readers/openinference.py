"""OpenInference (Arize Phoenix's conventions), read from OTLP spans into an
`ImportedTrace`.

OpenInference flattens structured values into dotted attributes with list indices:
`llm.input_messages.0.message.role`, `…message.content` (or text parts,
`…message.contents.0.message_content.text`), `…message.tool_calls.0.tool_call.id`,
`…tool_call.function.name` and `…function.arguments`, `…message.tool_call_id`; the
reply is `llm.output_messages.0.message.*`; the tools offered, `llm.tools.N.tool.json_schema`.
A span's kind is `openinference.span.kind`: `LLM` spans are model calls, `TOOL` spans
tool runs (`tool.name`, arguments as `input.value`, the result as `output.value`),
`AGENT` spans name the agent.
"""

from __future__ import annotations

from typing import Any

from zeroclaw_eval._support.json.text import arguments_text, loads_untrusted
from zeroclaw_eval.boundary.provider import Message, ModelResponse, ToolCallRequest
from zeroclaw_eval.boundary.sent import message_text
from zeroclaw_eval.importing.messages import tool_names
from zeroclaw_eval.importing.readers.otlp import Span, named, span_failed, span_outcome
from zeroclaw_eval.importing.trace import ImportedTrace, ModelCall, ToolRun, tokens, unread_content

KIND = "openinference.span.kind"
INPUT, OUTPUT = "llm.input_messages", "llm.output_messages"


def is_openinference(spans: list[Span]) -> bool:
    """Whether a trace's spans follow OpenInference."""
    return any(KIND in span.attributes for span in spans)


def read_openinference(trace_id: str, spans: list[Span], source: str) -> ImportedTrace:
    """The model calls and tool runs of one trace's spans."""
    trace = ImportedTrace("openinference", source, trace_id)
    trace.service = next((span.service for span in spans if span.service), None)
    trace.started_ns = min((span.start for span in spans if span.start), default=None)
    for span in spans:
        kind = str(span.attributes.get(KIND, "")).upper()
        if span.end == 0 or span.end < span.start:
            trace.unfinished.append(span.span_id)
        if kind == "AGENT" and trace.agent is None:
            name = span.attributes.get("agent.name")
            trace.agent = name if isinstance(name, str) and name else span.name or None
        elif kind == "LLM":
            trace.calls.append(_model_call(span))
            trace.provider = trace.provider or named(span, "llm.provider", "llm.system")
        elif kind == "TOOL":
            trace.tools.append(_tool_run(span))
    return trace


def unflattened(attributes: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """The list a flattened attribute family stands for: `prefix.N.rest` -> item N's
    `rest` (itself a dotted key), items in index order."""
    items: dict[int, dict[str, Any]] = {}
    start = prefix + "."
    for key, value in attributes.items():
        if not key.startswith(start):
            continue
        index, _, rest = key[len(start) :].partition(".")
        if index.isdigit() and rest:
            items.setdefault(int(index), {})[rest] = value
    return [items[index] for index in sorted(items)]


def _message(flat: dict[str, Any]) -> Message:
    role = flat.get("message.role")
    content = flat.get("message.content")
    if content is None:
        parts = unflattened(flat, "message.contents")
        texts = [part.get("message_content.text") for part in parts]
        content = "".join(text for text in texts if isinstance(text, str)) if texts else None
    message: Message = {"role": role, "content": content}
    calls = []
    for call in unflattened(flat, "message.tool_calls"):
        arguments = call.get("tool_call.function.arguments", "")
        request = ToolCallRequest(
            str(call.get("tool_call.id") or ""),
            str(call.get("tool_call.function.name") or ""),
            arguments_text(arguments),
        )
        calls.append(request.as_openai())
    if calls:
        message["tool_calls"] = calls
    call_id = flat.get("message.tool_call_id")
    if role == "tool" or call_id is not None:
        message["role"] = "tool"
        message["tool_call_id"] = str(call_id or "")
    return message


def _model_call(span: Span) -> ModelCall:
    attributes = span.attributes
    call = ModelCall(
        span.span_id, span.start, [], None, label=span.name, reply_attribute=f"{OUTPUT}.0.message"
    )
    call.failed = span_failed(span)
    call.messages = [_message(flat) for flat in unflattened(attributes, INPUT)]
    outputs = unflattened(attributes, OUTPUT)
    if outputs:
        message = _message(outputs[0])
        calls = tuple(
            ToolCallRequest(c["id"], c["function"]["name"], c["function"]["arguments"])
            for c in message.get("tool_calls", [])
        )
        text = message_text(message.get("content")) or None
        if text is not None or calls:
            call.reply = ModelResponse(
                text, calls, _count(attributes, "prompt"), _count(attributes, "completion")
            )
    tools = unflattened(attributes, "llm.tools")
    if tools:
        schemas = []
        for tool in tools:
            schema = tool.get("tool.json_schema")
            try:
                schemas.append(loads_untrusted(schema) if isinstance(schema, str) else schema)
            except ValueError:
                continue
        call.offered = tool_names(schemas)
    if not call.messages and call.reply is None:
        call.unread = [key for key in unread_content(attributes) if not key.startswith((INPUT, OUTPUT))]
    return call


def _count(attributes: dict[str, Any], which: str) -> int:
    return tokens(attributes.get(f"llm.token_count.{which}"))


def _tool_run(span: Span) -> ToolRun:
    attributes = span.attributes
    name = attributes.get("tool.name")
    call_id = attributes.get("tool_call.id") or attributes.get("tool.id")
    result = attributes.get("output.value")
    return ToolRun(
        span.span_id,
        span.start,
        name if isinstance(name, str) else span.name,
        call_id if isinstance(call_id, str) else "",
        _arguments(attributes.get("input.value", attributes.get("tool.parameters"))),
        None if result is None else _result(result),
        span_outcome(span),
    )


def _arguments(value: Any) -> Any:
    """A tool span's input: the call's arguments, or (LlamaIndex's `FunctionTool.acall`)
    the function's `{"kwargs": {...}}`, whose keywords they are."""
    try:
        data = loads_untrusted(value) if isinstance(value, str) else value
    except ValueError:
        return value
    if isinstance(data, dict) and set(data) <= {"args", "kwargs"} and isinstance(data.get("kwargs"), dict):
        return data["kwargs"] if not data.get("args") else value
    return value


def _result(value: Any) -> str:
    """A tool span's output: the result text, or (LlamaIndex's `ToolOutput`, as JSON) its
    `raw_output` when it is text."""
    text = str(value)
    if not text.startswith("{"):
        return text
    try:
        data = loads_untrusted(text)
    except ValueError:
        return text
    if isinstance(data, dict) and isinstance(data.get("raw_output"), str) and "tool_name" in data:
        return str(data["raw_output"])
    return text
