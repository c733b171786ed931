"""The OpenTelemetry GenAI semantic conventions, read from OTLP spans into an
`ImportedTrace`.

A model call is a span whose `gen_ai.operation.name` is `chat` (or `text_completion`,
`generate_content`). Its messages come from whichever form the instrumentation wrote:

- the current attributes: `gen_ai.input.messages`, `gen_ai.output.messages` and
  `gen_ai.system_instructions`, messages of typed parts (`text`, `tool_call`,
  `tool_call_response`), as JSON text or as structured values; also on a
  `gen_ai.client.inference.operation.details` event;
- the older per-message events (span events, or log records pointing at the span):
  `gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`,
  `gen_ai.tool.message` and `gen_ai.choice`, each with the message in its body.

A tool run is a span whose operation is `execute_tool`, with `gen_ai.tool.name`,
`gen_ai.tool.call.id`, `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`
(pydantic-ai's older `tool_arguments` and `tool_response` too). The provider is
`gen_ai.provider.name` or the older `gen_ai.system`; the tools offered are
`gen_ai.tool.definitions`.
"""

from __future__ import annotations

import json
from typing import Any

from zeroclaw_eval._support.json.text import arguments_text, loads_untrusted
from zeroclaw_eval.boundary.provider import Message, ModelResponse, ToolCallRequest
from zeroclaw_eval.errors import UnfaithfulTrace
from zeroclaw_eval.importing.messages import assistant_reply, listed, tool_names
from zeroclaw_eval.importing.readers import logfire, openllmetry
from zeroclaw_eval.importing.readers.otlp import Event, Span, decoded, named, span_failed, span_outcome
from zeroclaw_eval.importing.trace import ImportedTrace, ModelCall, ToolRun, tokens, unread_content

MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
INPUT, OUTPUT, SYSTEM = "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"
_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_MESSAGE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
_CHOICE_EVENT = "gen_ai.choice"
#: The part types that are text, calls or their results (thinking is left out).
_TEXTUAL = frozenset({"text", "tool_call", "tool_call_response", "reasoning"})


def is_genai(spans: list[Span]) -> bool:
    """Whether a trace's spans follow the GenAI conventions (or the shapes before them
    that OpenLLMetry and Logfire wrote)."""
    return any(
        _operation(span) is not None
        or "gen_ai.system" in span.attributes
        or openllmetry.is_chat(span)
        or logfire.is_model_call(span)
        for span in spans
    )


def _operation(span: Span) -> str | None:
    operation = span.attributes.get("gen_ai.operation.name")
    return operation if isinstance(operation, str) else None


def read_genai(trace_id: str, spans: list[Span], source: str) -> ImportedTrace:
    """The model calls and tool runs of one trace's spans."""
    trace = ImportedTrace("otel-genai", source, trace_id)
    trace.service = next((span.service for span in spans if span.service), None)
    trace.started_ns = min((span.start for span in spans if span.start), default=None)
    for span in spans:
        operation = _operation(span)
        if span.end == 0 or span.end < span.start:
            trace.unfinished.append(span.span_id)
        if trace.agent is None:
            trace.agent = _agent_name(span, operation)
        if operation in MODEL_OPERATIONS or (operation is None and _earlier_chat(span)):
            trace.calls.append(_model_call(trace_id, span))
            trace.provider = trace.provider or named(span, "gen_ai.provider.name", "gen_ai.system")
        elif openllmetry.is_tool(span):
            trace.tools.append(openllmetry.tool_run(span))
        elif logfire.is_tool(span):
            trace.tools.append(logfire.tool_run(span))
        elif operation == "execute_tool" or (operation is None and "gen_ai.tool.name" in span.attributes):
            trace.tools.append(_tool_run(trace_id, span))
    return trace


def _agent_name(span: Span, operation: str | None) -> str | None:
    """The agent a span names: an `invoke_agent` span's `gen_ai.agent.name`, or what an
    OpenLLMetry workflow or a Logfire agent run span says."""
    if operation == "invoke_agent":
        name = span.attributes.get("gen_ai.agent.name")
        return name if isinstance(name, str) else None
    return openllmetry.agent_name(span) or logfire.agent_name(span)


def _earlier_chat(span: Span) -> bool:
    """A model call written before `gen_ai.operation.name`: a `chat …` span with
    `gen_ai.system`, OpenLLMetry's indexed attributes, Logfire's own shapes."""
    if "gen_ai.system" in span.attributes and span.name.startswith("chat"):
        return True
    return openllmetry.is_chat(span) or logfire.is_model_call(span)


def json_attribute(trace_id: str, span: Span, key: str, value: Any) -> Any:
    """An attribute that holds JSON: parsed from text, or as structured already;
    `UnfaithfulTrace` naming it when its text is not JSON (cut by a length limit?)."""
    if not isinstance(value, str):
        return value
    try:
        return loads_untrusted(value)
    except ValueError:
        raise UnfaithfulTrace(
            trace_id,
            f"{span.span_id} ({span.name})",
            key,
            "is not JSON: was it cut by an attribute length limit (OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT)?",
        ) from None


def _model_call(trace_id: str, span: Span) -> ModelCall:
    attributes = dict(span.attributes)
    details = next((event for event in span.events if event.name == _DETAILS_EVENT), None)
    if details is not None:
        attributes.update({k: v for k, v in details.attributes.items() if k not in attributes})
    call = ModelCall(span.span_id, span.start, [], None, label=span.name, failed=span_failed(span))
    other = None if INPUT in attributes or OUTPUT in attributes else _other_shape(span)
    if INPUT in attributes or OUTPUT in attributes:
        system = json_attribute(trace_id, span, SYSTEM, attributes.get(SYSTEM))
        if isinstance(system, list) and system:
            call.messages.append({"role": "system", "content": _parts_text(system)})
        for message in listed(json_attribute(trace_id, span, INPUT, attributes.get(INPUT))):
            call.messages.extend(parts_messages(message))
        outputs = listed(json_attribute(trace_id, span, OUTPUT, attributes.get(OUTPUT)))
        call.reply = parts_reply(outputs[0]) if outputs else None
        call.reply_attribute = OUTPUT
    elif other is not None:
        call.messages, call.reply, call.offered, call.reply_attribute = other
    else:
        call.messages, call.reply = _from_events(span.events)
        # Named as the current conventions name it unless the span has the older events.
        older = any(event.name in _MESSAGE_EVENTS for event in span.events)
        call.reply_attribute = f"{_CHOICE_EVENT} event" if older else OUTPUT
    if call.reply is not None:
        call.reply = _with_usage(call.reply, attributes)
    definitions = attributes.get("gen_ai.tool.definitions")
    if definitions is not None:
        call.offered = tool_names(json_attribute(trace_id, span, "gen_ai.tool.definitions", definitions))
    call.output_tools = _output_tools(attributes.get("model_request_parameters"))
    if not call.messages and call.reply is None:
        call.unread = [key for key in unread_content(attributes) if key not in (INPUT, OUTPUT, SYSTEM)]
    return call


def _other_shape(span: Span) -> tuple[list[Message], ModelResponse | None, list[str] | None, str] | None:
    """A model call in a shape before the current conventions: OpenLLMetry's indexed
    attributes, Logfire's own; with the attribute its reply is read from."""
    if openllmetry.has_indexed(span):
        return (*openllmetry.indexed_call(span.attributes), f"{openllmetry.COMPLETION}.0")
    found = logfire.model_call(span)
    if found is None:
        return None
    where = "response_data" if "request_data" in span.attributes else "output"
    return (*found, "response" if "events" in span.attributes else where)


def _parts_text(parts: list[Any]) -> str:
    return "".join(
        str(part.get("content", ""))
        for part in parts
        if isinstance(part, dict) and part.get("type") == "text"
    )


def parts_messages(message: Any) -> list[Message]:
    """One message of typed parts as chat messages: its text and tool calls, and a
    `tool` message for each tool call response it carries."""
    if not isinstance(message, dict):
        return []
    role = message.get("role")
    parts = listed(message.get("parts"))
    responses = [
        part for part in parts if isinstance(part, dict) and part.get("type") == "tool_call_response"
    ]
    if responses:
        return [
            {
                "role": "tool",
                "tool_call_id": str(part.get("id") or ""),
                "content": _response(part),  # `response` in the conventions; pydantic-ai: `result`
            }
            for part in responses
        ]
    # An image, audio or a file is input a fixture's text cannot replay: kept as it came,
    # a user message of it has no text, and is refused (`conversation`).
    media = [part for part in parts if isinstance(part, dict) and str(part.get("type")) not in _TEXTUAL]
    chat: Message = {"role": role, "content": parts if media and role == "user" else _parts_text(parts)}
    calls = [
        ToolCallRequest(
            str(part.get("id") or ""), str(part.get("name") or ""), arguments_text(part.get("arguments"))
        )
        for part in parts
        if isinstance(part, dict) and part.get("type") == "tool_call"
    ]
    if calls:
        chat["tool_calls"] = [call.as_openai() for call in calls]
    return [chat]


def _response(part: dict[str, Any]) -> str:
    value = part.get("response", part.get("result"))
    return "" if value is None else _result_text(value)


def _result_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def parts_reply(message: Any) -> ModelResponse | None:
    """The reply an output message of typed parts stands for (None: it holds nothing)."""
    chat = parts_messages(message)
    return assistant_reply(chat[0]) if chat and chat[0].get("role") != "tool" else None


def _from_events(events: list[Event]) -> tuple[list[Message], ModelResponse | None]:
    """The request's messages and the reply from the older per-message events."""
    messages: list[Message] = []
    reply: ModelResponse | None = None
    for event in sorted(events, key=lambda event: event.time):
        body = event.body if isinstance(event.body, dict) else {}
        role = _MESSAGE_EVENTS.get(event.name)
        if role is not None:
            messages.append(_event_message(role, body))
        elif event.name == _CHOICE_EVENT and reply is None and body.get("index", 0) == 0:
            message = body.get("message")
            message = dict(message) if isinstance(message, dict) else {}
            if "tool_calls" not in message and "tool_calls" in body:
                message["tool_calls"] = body["tool_calls"]  # OpenLLMetry puts them beside the message
            reply = assistant_reply(_event_message("assistant", message))
    return messages, reply


def _event_message(role: str, body: dict[str, Any]) -> Message:
    message: Message = {"role": body.get("role", role), "content": body.get("content")}
    calls = []
    for call in listed(body.get("tool_calls")):
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            request = ToolCallRequest(
                str(call.get("id") or ""),
                str(function.get("name") or ""),
                arguments_text(function.get("arguments")),
            )
            calls.append(request.as_openai())
    if calls:
        message["tool_calls"] = calls
    if role == "tool":
        message["tool_call_id"] = str(body.get("id") or "")
        content = body.get("content")
        message["content"] = content if isinstance(content, str) else _result_text(content)
    return message


#: Where the conventions (and their earlier releases) put a call's tokens.
_USAGE = (
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.prompt_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
)


def _with_usage(reply: ModelResponse, attributes: dict[str, Any]) -> ModelResponse:
    if not any(key in attributes for key in _USAGE):
        return reply  # the tokens the reply's own shape said, if any

    def count(key: str, legacy: str) -> int:
        return tokens(attributes.get(key, attributes.get(legacy)))

    input_tokens = count("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
    output_tokens = count("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
    return ModelResponse(reply.content, reply.tool_calls, input_tokens, output_tokens)


def _tool_run(trace_id: str, span: Span) -> ToolRun:
    attributes = span.attributes
    name = attributes.get("gen_ai.tool.name")
    call_id = attributes.get("gen_ai.tool.call.id")
    arguments = attributes.get("gen_ai.tool.call.arguments", attributes.get("tool_arguments"))
    result = attributes.get("gen_ai.tool.call.result", attributes.get("tool_response"))
    return ToolRun(
        span.span_id,
        span.start,
        name if isinstance(name, str) else span.name,
        call_id if isinstance(call_id, str) else "",
        arguments,
        None if result is None else _result_text(result),
        span_outcome(span),
    )


def _output_tools(parameters: Any) -> frozenset[str]:
    """The output tools pydantic-ai offered (`model_request_parameters.output_tools`): a
    call to one is the run's structured answer (`final_result`), which no tool runs."""
    data = decoded(parameters)
    tools = data.get("output_tools") if isinstance(data, dict) else None
    return frozenset(
        tool["name"] for tool in listed(tools) if isinstance(tool, dict) and isinstance(tool.get("name"), str)
    )
