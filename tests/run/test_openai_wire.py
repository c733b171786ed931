"""`zeroclaw_eval.run.openai_wire`: the chat-completion bodies serve answers with."""

from __future__ import annotations

from zeroclaw_eval.run.openai_wire import completion
from zeroclaw_eval.run.provider import ModelResponse, ToolCallRequest


def test_completion_is_an_openai_chat_completion_body() -> None:
    response = ModelResponse(None, (ToolCallRequest("c1", "echo", '{"message":"x"}'),), 7, 3)
    body = completion(response, "m", 4)
    assert body["object"] == "chat.completion"
    assert body["model"] == "m"
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": '{"message":"x"}'}}
        ],
    }
    assert body["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    text = completion(ModelResponse("hi"), "m", 5)
    assert text["choices"][0]["finish_reason"] == "stop"
    assert "tool_calls" not in text["choices"][0]["message"]
