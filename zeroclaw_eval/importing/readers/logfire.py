"""Pydantic Logfire's spans of model calls and tool runs, where they are not the GenAI
conventions `genai` reads, read into the parts of an `ImportedTrace`.

Logfire names a span by its message template (`Chat Completion with {request_data[model]!r}`)
and writes every dict or list attribute as JSON text. What it records, by integration:

- `instrument_openai`, older releases (or `version=1`): the request body as
  `request_data` (`messages`, `tools`) and the reply as `response_data` (`{"message",
  "usage"}`). Streamed, the request's span (`Chat Completion with …`) ends before the
  stream is read, and a log span (`streaming response from …`) holds the request and the
  reply: the first is the request half of the second (`conversation` reads them as one).
  Current releases write `gen_ai.input.messages` / `gen_ai.output.messages` instead.
- `instrument_openai_agents` (the OpenAI Agents SDK): a `Chat completion with …` span per
  model call, the messages sent as `input` and the reply as `output` (a list holding the
  Chat Completions message, or, for a streamed run, the Responses API `Response`); a
  `Responses API with …` span, the messages as Logfire's `events` list and the reply as
  the `response`; a `Function: {name}` span per tool run (`input` the arguments text,
  `output` the result, an error status and `error` when it failed); an `Agent run: {name!r}`
  span naming the agent.
"""

from __future__ import annotations

from typing import Any

from zeroclaw_eval._support.json.text import arguments_text
from zeroclaw_eval.boundary.provider import Message, ModelResponse, ToolCallRequest
from zeroclaw_eval.importing.messages import (
    assistant_reply,
    chat_message,
    chat_messages,
    listed,
    tool_names,
)
from zeroclaw_eval.importing.readers.otlp import Span, decoded, span_outcome
from zeroclaw_eval.importing.trace import ToolRun, tokens

_TEMPLATE = "logfire.msg_template"
#: The templates of Logfire's model-call spans (and log spans), by how they begin.
_MODEL_TEMPLATES = (
    "Chat Completion with",
    "streaming response from",
    "Chat completion with",
    "Responses API with",
)


def is_logfire(span: Span) -> bool:
    """Whether Logfire made the span (its instrumentation scope, or its template)."""
    return span.scope.startswith("logfire") or _TEMPLATE in span.attributes


def _template(span: Span) -> str:
    template = span.attributes.get(_TEMPLATE)
    return template if isinstance(template, str) else ""


def is_model_call(span: Span) -> bool:
    """Whether a Logfire span records a model call in one of its own shapes."""
    return is_logfire(span) and _template(span).startswith(_MODEL_TEMPLATES)


def is_tool(span: Span) -> bool:
    """Whether a Logfire span is an Agents SDK tool run (`Function: {name}`)."""
    return is_logfire(span) and _template(span) == "Function: {name}"


def agent_name(span: Span) -> str | None:
    """The agent an Agents SDK `Agent run` span names (None: not such a span)."""
    if not is_logfire(span) or not _template(span).startswith("Agent run:"):
        return None
    name = span.attributes.get("name")
    return name if isinstance(name, str) and name else None


def model_call(span: Span) -> tuple[list[Message], ModelResponse | None, list[str] | None] | None:
    """The messages sent, the reply (None: none recorded) and the tools offered (None:
    not recorded) of a Logfire model-call span in one of its own shapes; None when the
    span holds none of them (the GenAI conventions' attributes are `genai`'s)."""
    attributes = span.attributes
    template = _template(span)
    request = decoded(attributes.get("request_data"))
    if template.startswith(("Chat Completion with", "streaming response from")) and isinstance(request, dict):
        answer = decoded(attributes.get("response_data"))
        reply = _reply_data(answer) if isinstance(answer, dict) else None
        sent_messages = chat_messages(request.get("messages"))
        return _without_replies(sent_messages), reply, _offered(request.get("tools"))
    sent = decoded(attributes.get("input"))
    if template.startswith("Chat completion with") and isinstance(sent, list):
        return chat_messages(sent), _agents_output(decoded(attributes.get("output")), attributes), None
    events = decoded(attributes.get("events"))
    if template.startswith("Responses API with") and isinstance(events, list):
        messages = [message for event in events if (message := chat_message(event)) is not None]
        while messages and messages[-1].get("role") == "assistant":
            messages.pop()  # the reply, which `response` holds as the model gave it
        response = decoded(attributes.get("response"))
        reply = _responses_reply(response, attributes) if isinstance(response, dict) else None
        offered = _offered(response.get("tools")) if isinstance(response, dict) else None
        return messages, reply, offered
    return None


def _without_replies(messages: list[Message]) -> list[Message]:
    """A request's messages without what is no message of it: the Agents SDK's streamed
    run puts the `Response` it got beside the messages it sent."""
    return [message for message in messages if isinstance(message.get("role"), str)]


def _offered(tools: Any) -> list[str] | None:
    return tool_names(tools) if isinstance(tools, list) else None


def _reply_data(answer: dict[str, Any]) -> ModelResponse | None:
    """`response_data`: `{"message": <the assistant message>, "usage": {...}}`."""
    reply = assistant_reply(answer.get("message"))
    usage = answer.get("usage")
    if not isinstance(usage, dict):
        usage = {}
    if reply is None:
        return None
    return ModelResponse(
        reply.content,
        reply.tool_calls,
        tokens(usage.get("prompt_tokens")),
        tokens(usage.get("completion_tokens")),
    )


def _usage(attributes: dict[str, Any]) -> tuple[int, int]:
    usage = decoded(attributes.get("usage"))
    if not isinstance(usage, dict):
        usage = {}
    return tokens(usage.get("input_tokens")), tokens(usage.get("output_tokens"))


def _agents_output(output: Any, attributes: dict[str, Any]) -> ModelResponse | None:
    """An Agents SDK model span's `output`: a list holding the Chat Completions message,
    or (a streamed run) the Responses API `Response`."""
    first = listed(output)[0] if listed(output) else None
    if not isinstance(first, dict):
        return None
    if first.get("object") == "response":
        return _responses_reply(first, attributes)
    reply = assistant_reply(first)
    if reply is None:
        return None
    return ModelResponse(reply.content, reply.tool_calls, *_usage(attributes))


def _responses_reply(response: dict[str, Any], attributes: dict[str, Any]) -> ModelResponse | None:
    """A Responses API `Response`'s output items as the reply: its `function_call`s, and
    the text of its `message`s."""
    calls: list[ToolCallRequest] = []
    texts: list[str] = []
    for item in listed(response.get("output")):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call":
            calls.append(
                ToolCallRequest(
                    str(item.get("call_id") or ""),
                    str(item.get("name") or ""),
                    arguments_text(item.get("arguments")),
                )
            )
        elif item.get("type") == "message":
            texts.extend(
                str(part.get("text"))
                for part in listed(item.get("content"))
                if isinstance(part, dict) and part.get("type") == "output_text"
            )
    text = "".join(texts) or None
    if text is None and not calls:
        return None
    return ModelResponse(text, tuple(calls), *_usage(attributes))


def tool_run(span: Span) -> ToolRun:
    """An Agents SDK `Function: {name}` span as the tool run it recorded."""
    attributes = span.attributes
    name = attributes.get("name")
    output = attributes.get("output")
    return ToolRun(
        span.span_id,
        span.start,
        name if isinstance(name, str) else span.name,
        "",
        attributes.get("input"),
        output if isinstance(output, str) else None,
        False if attributes.get("error") not in (None, "null") else span_outcome(span),
    )
