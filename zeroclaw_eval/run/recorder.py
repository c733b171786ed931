"""Recording at the model boundary: every provider reply goes into the `RunRecord`."""

from __future__ import annotations

from zeroclaw_eval.run.provider import Message, ModelResponse, Provider, ToolSpec
from zeroclaw_eval.run.record import ModelStep, RunRecord


class RecordingProvider:
    """Records every reply of the provider it wraps, so any agent is recorded alike."""

    def __init__(self, inner: Provider, record: RunRecord) -> None:
        self._inner = inner
        self._record = record
        #: Index of the turn in progress; the harness sets it before each turn.
        self.turn = 0

    async def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        """Forward to the wrapped provider and record its reply."""
        response = await self._inner.complete(messages, tools)
        calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls]
        self._record.steps.append(
            ModelStep(self.turn, response.content, calls, response.input_tokens, response.output_tokens)
        )
        return response
