"""OpenLLMetry's spans (Traceloop's `opentelemetry-instrumentation-*` and `traceloop-sdk`)
as releases up to 0.54 wrote them, read into the parts of an `ImportedTrace`.

A model call is a span with `llm.request.type: chat` (or `gen_ai.prompt.*` attributes):
the request's messages flattened into indexed attributes, `gen_ai.prompt.N.role`,
`.content`, `.tool_calls.M.{id,name,arguments}` and `.tool_call_id`; the reply as
`gen_ai.completion.0.*`, the same way; the tools offered as `llm.request.functions.K.name`;
the tokens as `gen_ai.usage.input_tokens` (or `prompt_tokens`). Releases from 0.55 on
write the current GenAI conventions (`gen_ai.input.messages`), which `genai` reads.

`traceloop-sdk`'s decorators make the rest: a `@tool` span (`traceloop.span.kind: tool`)
is a tool run, its arguments the `kwargs` of `traceloop.entity.input` and its result the
JSON-encoded `traceloop.entity.output`; a `@workflow` or `@agent` span names the agent.
"""

from __future__ import annotations

from typing import Any

from zeroclaw_eval._support.json.text import arguments_text
from zeroclaw_eval.boundary.provider import Message, ModelResponse, ToolCallRequest
from zeroclaw_eval.boundary.sent import message_text
from zeroclaw_eval.importing.readers.openinference import unflattened
from zeroclaw_eval.importing.readers.otlp import Span, decoded, span_outcome
from zeroclaw_eval.importing.trace import ToolRun

PROMPT, COMPLETION = "gen_ai.prompt", "gen_ai.completion"
_KIND = "traceloop.span.kind"


def is_chat(span: Span) -> bool:
    """Whether a span is a model call OpenLLMetry wrote (`llm.request.type: chat`, or its
    indexed attributes); its content may be on log records instead (`genai` reads them)."""
    return span.attributes.get("llm.request.type") == "chat" or has_indexed(span)


def has_indexed(span: Span) -> bool:
    """Whether a span holds a model call's content as OpenLLMetry's indexed attributes."""
    return any(key.startswith((PROMPT + ".", COMPLETION + ".")) for key in span.attributes)


def indexed_call(attributes: dict[str, Any]) -> tuple[list[Message], ModelResponse | None, list[str] | None]:
    """The request's messages, the reply (None: none recorded) and the tools offered
    (None: not recorded) of an indexed model-call span."""
    messages = [_message(flat) for flat in unflattened(attributes, PROMPT)]
    replies = unflattened(attributes, COMPLETION)
    reply = None
    if replies:
        message = _message(replies[0])
        calls = tuple(
            ToolCallRequest(call["id"], call["function"]["name"], call["function"]["arguments"])
            for call in message.get("tool_calls", [])
        )
        text = message_text(message.get("content")) or None
        reply = ModelResponse(text, calls) if text is not None or calls else None
    functions = unflattened(attributes, "llm.request.functions")
    offered = [str(function["name"]) for function in functions if isinstance(function.get("name"), str)]
    return messages, reply, offered if functions else None


def _message(flat: dict[str, Any]) -> Message:
    message: Message = {"role": flat.get("role"), "content": flat.get("content")}
    calls = [
        ToolCallRequest(
            str(call.get("id") or ""), str(call.get("name") or ""), arguments_text(call.get("arguments", ""))
        ).as_openai()
        for call in unflattened(flat, "tool_calls")
    ]
    if calls:
        message["tool_calls"] = calls
    if flat.get("role") == "tool" or "tool_call_id" in flat:
        message["tool_call_id"] = str(flat.get("tool_call_id") or "")
    return message


def is_tool(span: Span) -> bool:
    """Whether a span is a `@tool` span of traceloop-sdk."""
    return span.attributes.get(_KIND) == "tool"


def agent_name(span: Span) -> str | None:
    """The agent a `@workflow` or `@agent` span names (None: not such a span)."""
    if span.attributes.get(_KIND) not in ("workflow", "agent"):
        return None
    name = span.attributes.get("traceloop.entity.name")
    return name if isinstance(name, str) and name else None


def tool_run(span: Span) -> ToolRun:
    """A `@tool` span as the tool run it recorded."""
    attributes = span.attributes
    name = attributes.get("gen_ai.tool.name", attributes.get("traceloop.entity.name"))
    arguments = decoded(attributes.get("traceloop.entity.input"))
    if (
        isinstance(arguments, dict)
        and not arguments.get("args")
        and isinstance(arguments.get("kwargs"), dict)
    ):
        arguments = arguments["kwargs"]  # the function's keywords: the call's arguments
    output = attributes.get("traceloop.entity.output")
    result = decoded(output)
    return ToolRun(
        span.span_id,
        span.start,
        name if isinstance(name, str) else span.name.removesuffix(".tool"),
        "",
        arguments,
        None if output is None else result if isinstance(result, str) else str(output),
        span_outcome(span),
    )
