"""The OpenAI chat-completions bodies `zeroclaw eval serve` answers with."""

from __future__ import annotations

from typing import Any

from zeroclaw_eval.run.provider import ModelResponse


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
