"""A fixture's script: each turn's scripted steps as the provider replies they stand for."""

from __future__ import annotations

from zeroclaw_eval.fixtures.json_text import compact_json
from zeroclaw_eval.fixtures.model import LlmTrace, Response
from zeroclaw_eval.run.provider import ModelResponse, ToolCallRequest

#: Each turn's replies, in order: `script[turn][step]`.
Script = list[list[ModelResponse]]


def _to_model_response(response: Response, turn: int, step: int) -> ModelResponse:
    calls = []
    for index, call in enumerate(response.tool_calls):
        arguments = call.arguments
        if not isinstance(arguments, str):
            # Key order and non-ASCII text are kept, so the tool receives what the
            # fixture wrote.
            arguments = compact_json(arguments)
        # A call the fixture gives no id gets one, so that its result can be matched.
        call_id = call.id or f"call_{turn}_{step}_{index}"
        calls.append(ToolCallRequest(call_id, call.name, arguments))
    return ModelResponse(response.content, tuple(calls), response.input_tokens, response.output_tokens)


def script_of(trace: LlmTrace) -> Script:
    """Each turn's scripted steps as provider replies (an empty list where none)."""
    return [
        [_to_model_response(s.response, t, i) for i, s in enumerate(turn.steps or ())]
        for t, turn in enumerate(trace.turns)
    ]
