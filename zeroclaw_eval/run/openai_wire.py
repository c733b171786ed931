"""The OpenAI chat-completions wire format, where the harness speaks it to an agent (the
replay server, the in-process client): the tools a request offers, and the reply body."""

from __future__ import annotations

from typing import Any

from zeroclaw_eval.run.provider import ModelResponse, ToolSpec


def offered_specs(tools: Any) -> list[ToolSpec]:
    """The `tools` of a request as specs (entries that are not functions are skipped:
    what an agent sends is untrusted)."""
    specs = []
    for entry in tools if isinstance(tools, list) else []:
        function = entry.get("function") if isinstance(entry, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if isinstance(name, str):
            parameters = function.get("parameters")  # type: ignore[union-attr]
            description = function.get("description")  # type: ignore[union-attr]
            specs.append(
                ToolSpec(
                    name,
                    description if isinstance(description, str) else "",
                    parameters if isinstance(parameters, dict) else {},
                )
            )
    return specs


def error_body(status: int, message: str, kind: str) -> dict[str, Any]:
    """An OpenAI error body, which the official clients turn into their own errors."""
    return {"error": {"message": message, "type": kind, "code": status}}


def completion(response: ModelResponse, model: str, number: int) -> dict[str, Any]:
    """`response` as an OpenAI chat-completion body."""
    message: dict[str, Any] = {"role": "assistant", "content": response.content}
    if response.tool_calls:
        message["tool_calls"] = [call.as_openai() for call in response.tool_calls]
    return {
        "id": f"chatcmpl-zeroclaw-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if response.tool_calls else "stop"}
        ],
        "usage": {
            "prompt_tokens": response.input_tokens,
            "completion_tokens": response.output_tokens,
            "total_tokens": response.input_tokens + response.output_tokens,
        },
    }
