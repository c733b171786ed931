"""The fixture that importing the recorded weather run gives, whichever source recorded
it (OTLP GenAI spans, OpenInference spans, a LangSmith or Langfuse export): one tool
call of `get_weather` for Paris, its result scripted as a double, the answer. Only the
name, the provenance and whether the source records the tools offered differ."""

from __future__ import annotations

from typing import Any


def weather_fixture(model_name: str, provenance: dict[str, Any], *, offered: bool = True) -> dict[str, Any]:
    """The imported fixture, every field, under `model_name` with `provenance`; `offered`:
    the source records which tools the request offered (`tools_offered` is stated)."""
    expects: dict[str, Any] = {
        "response_contains": ["It is sunny in Paris."],
        "tools_used": ["get_weather"],
        "tools_offered": ["get_weather"],
        "trajectory": {
            "mode": "strict",
            "calls": [{"tool": "get_weather", "args": {"city": "Paris"}, "status": "ok"}],
        },
        "tool_results_contain": [{"tool": "get_weather", "needle": "sunny, 21C", "call_index": 0}],
        "all_tools_succeeded": True,
    }
    if not offered:
        del expects["tools_offered"]
    call = {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}
    return {
        "model_name": model_name,
        "tools": ["get_weather"],
        "turns": [
            {
                "user_input": "What is the weather in Paris?",
                "steps": [
                    {
                        "response": {
                            "type": "tool_calls",
                            "tool_calls": [call],
                            "input_tokens": 11,
                            "output_tokens": 7,
                        }
                    },
                    {
                        "response": {
                            "type": "text",
                            "content": "It is sunny in Paris.",
                            "input_tokens": 23,
                            "output_tokens": 5,
                        }
                    },
                ],
            }
        ],
        "expects": expects,
        "tool_doubles": {"get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]},
        "provenance": provenance,
    }
