"""Hand-made OTLP JSON, as the OTLP/HTTP JSON encoding writes it (hex ids, integer enums,
64-bit integers as decimal strings), for the cases a real instrumentation cannot be made
to emit on demand: cut-off spans, missing replies, truncated attributes."""

from __future__ import annotations

import json
from typing import Any

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
OTHER_TRACE = "0af7651916cd43dd8448eb211c80319c"
#: 2026-12-01T09:00:00Z in ns.
T0 = 1_796_115_600_000_000_000


def any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [any_value(item) for item in value]}}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": key_values(value)}}
    return {"stringValue": value}


def key_values(attributes: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": any_value(value)} for key, value in attributes.items()]


def span(
    span_id: str,
    name: str,
    start: int,
    attributes: dict[str, Any],
    *,
    trace: str = TRACE,
    parent: str = "",
    end: int | None = None,
    status: int = 0,
) -> dict[str, Any]:
    return {
        "traceId": trace,
        "spanId": span_id,
        "parentSpanId": parent,
        "name": name,
        "kind": 3,
        "startTimeUnixNano": str(T0 + start),
        "endTimeUnixNano": str(T0 + (start + 10 if end is None else end)),
        "attributes": key_values(attributes),
        "status": {"code": status} if status else {},
    }


def text(content: str) -> dict[str, Any]:
    return {"type": "text", "content": content}


def message(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "parts": list(parts)}


def tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}


def tool_response(call_id: str, response: str) -> dict[str, Any]:
    return {"type": "tool_call_response", "id": call_id, "response": response}


def chat(
    span_id: str,
    start: int,
    inputs: list[dict[str, Any]],
    outputs: list[dict[str, Any]] | None,
    *,
    trace: str = TRACE,
    tools: list[str] | None = None,
    end: int | None = None,
) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.system_instructions": json.dumps([text("You are a weather assistant.")]),
        "gen_ai.input.messages": json.dumps(inputs),
    }
    if outputs is not None:
        attributes["gen_ai.output.messages"] = json.dumps(outputs)
    if tools is not None:
        attributes["gen_ai.tool.definitions"] = json.dumps(
            [{"type": "function", "name": name} for name in tools]
        )
    return span(span_id, "chat gpt-4o", start, attributes, trace=trace, parent="a1a1a1a1a1a1a1a1", end=end)


def execute_tool(
    span_id: str, start: int, call_id: str, name: str, arguments: dict[str, Any], result: str, **kwargs: Any
) -> dict[str, Any]:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.call.arguments": json.dumps(arguments),
        "gen_ai.tool.call.result": result,
    }
    return span(span_id, f"execute_tool {name}", start, attributes, parent="a1a1a1a1a1a1a1a1", **kwargs)


QUESTION = message("user", text("What is the weather in Paris?"))
CALL = message("assistant", tool_call("call_1", "get_weather", {"city": "Paris"}))
RESULT = message("tool", tool_response("call_1", "sunny, 21C"))
ANSWER = message("assistant", text("It is sunny in Paris."))


def weather_spans(trace: str = TRACE, start: int = 0) -> list[dict[str, Any]]:
    """An agent run: the model calls get_weather, the tool answers, the model answers."""
    root = span(
        "a1a1a1a1a1a1a1a1",
        "invoke_agent weather",
        start,
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather"},
        trace=trace,
        end=start + 100,
    )
    return [
        root,
        chat("b2b2b2b2b2b2b2b2", start + 1, [QUESTION], [CALL], trace=trace, tools=["get_weather"]),
        execute_tool(
            "c3c3c3c3c3c3c3c3",
            start + 20,
            "call_1",
            "get_weather",
            {"city": "Paris"},
            "sunny, 21C",
            trace=trace,
        ),
        chat(
            "d4d4d4d4d4d4d4d4",
            start + 40,
            [QUESTION, CALL, RESULT],
            [ANSWER],
            trace=trace,
            tools=["get_weather"],
        ),
    ]


def document(spans: list[dict[str, Any]], service: str = "weather-service") -> dict[str, Any]:
    resource = {"attributes": key_values({"service.name": service})}
    return {
        "resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": {"name": "test"}, "spans": spans}]}]
    }
