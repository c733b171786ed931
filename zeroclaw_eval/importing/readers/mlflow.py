"""MLflow Tracing's spans, as its OTLP exporter sends them by default, read into an
`ImportedTrace`.

MLflow writes every attribute as JSON text (`mlflow.spanType` is `'"CHAT_MODEL"'`). A
span's kind is `mlflow.spanType`: a `CHAT_MODEL` (or `LLM`) span is a model call, its
`mlflow.spanInputs` the keyword arguments of the client call (`messages`, `tools`: the
OpenAI or Anthropic request) and `mlflow.spanOutputs` what it returned (a Chat Completion,
an Anthropic `Message`); its tokens are `mlflow.chat.tokenUsage`. A `TOOL` span is a
tool run: its inputs are the function's arguments by name, its outputs the result (none
when it raised: an error status and an `exception` event). An `AGENT` span names the
agent. (With `MLFLOW_ENABLE_OTEL_GENAI_SEMCONV=true` MLflow writes the GenAI conventions
instead, which `genai` reads.)
"""

from __future__ import annotations

from typing import Any

from zeroclaw_eval._support.json.text import compact_json
from zeroclaw_eval.boundary.provider import ModelResponse
from zeroclaw_eval.importing.messages import chat_messages, reply_of, tool_names
from zeroclaw_eval.importing.readers.otlp import Span, decoded, span_failed, span_outcome
from zeroclaw_eval.importing.trace import ImportedTrace, ModelCall, ToolRun, tokens

_TYPE, _INPUTS, _OUTPUTS = "mlflow.spanType", "mlflow.spanInputs", "mlflow.spanOutputs"
_MODEL_TYPES = frozenset({"CHAT_MODEL", "LLM"})


def is_mlflow(spans: list[Span]) -> bool:
    """Whether a trace's spans are MLflow's own (`mlflow.spanType`)."""
    return any(_TYPE in span.attributes for span in spans)


def _value(span: Span, key: str) -> Any:
    """An attribute MLflow wrote as JSON text, parsed."""
    return decoded(span.attributes.get(key))


def read_mlflow(trace_id: str, spans: list[Span], source: str) -> ImportedTrace:
    """The model calls and tool runs of one trace's spans."""
    trace = ImportedTrace("mlflow", source, trace_id)
    trace.service = next((span.service for span in spans if span.service), None)
    trace.started_ns = min((span.start for span in spans if span.start), default=None)
    for span in spans:
        kind = _value(span, _TYPE)
        if span.end == 0 or span.end < span.start:
            trace.unfinished.append(span.span_id)
        if kind == "AGENT" and trace.agent is None:
            name = _value(span, "mlflow.spanFunctionName")
            trace.agent = name if isinstance(name, str) and name else span.name or None
        elif kind in _MODEL_TYPES:
            trace.calls.append(_model_call(span))
            provider = _value(span, "mlflow.message.format")  # the client's API: openai, anthropic
            trace.provider = trace.provider or (provider if isinstance(provider, str) and provider else None)
        elif kind == "TOOL":
            trace.tools.append(_tool_run(span))
    return trace


def _model_call(span: Span) -> ModelCall:
    inputs = _value(span, _INPUTS)
    call = ModelCall(span.span_id, span.start, chat_messages(inputs), None, label=span.name)
    call.reply_attribute = _OUTPUTS
    call.failed = span_failed(span)
    reply = reply_of(_value(span, _OUTPUTS))
    if reply is not None:
        usage = _value(span, "mlflow.chat.tokenUsage")
        usage = usage if isinstance(usage, dict) else {}
        counted = tokens(usage.get("input_tokens")), tokens(usage.get("output_tokens"))
        call.reply = ModelResponse(reply.content, reply.tool_calls, *counted)
    offered = inputs.get("tools") if isinstance(inputs, dict) else None
    if isinstance(offered, list):
        call.offered = tool_names(offered)
    return call


def _tool_run(span: Span) -> ToolRun:
    name = _value(span, "mlflow.spanFunctionName")
    output = _value(span, _OUTPUTS)
    if output is not None and not isinstance(output, str):
        output = compact_json(output)
    return ToolRun(
        span.span_id,
        span.start,
        name if isinstance(name, str) and name else span.name,
        "",
        _value(span, _INPUTS),
        output,
        span_outcome(span),
    )
