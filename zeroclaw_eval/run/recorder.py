"""Recording at the model boundary: every request and its reply go into the `RunRecord`."""

from __future__ import annotations

from zeroclaw_eval.run.provider import Message, ModelResponse, Provider, ToolSpec
from zeroclaw_eval.run.record import ModelStep, RunRecord
from zeroclaw_eval.run.sent import roles_and_system_prompt


class RecordingProvider:
    """Records every reply of the provider it wraps, so any agent is recorded alike."""

    def __init__(self, inner: Provider, record: RunRecord) -> None:
        self._inner = inner
        self._record = record
        #: Index of the turn in progress; the harness sets it before each turn.
        self.turn = 0
        self._closed = False
        #: Requests refused because the case was over (an agent still asking after its
        #: last answer, or a turn left running past its time limit).
        self.late = 0

    def close(self) -> None:
        """End the case: an agent thread left running past it (a timed-out synchronous
        turn) must not add steps to a record already graded."""
        self._closed = True

    async def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        """Forward to the wrapped provider and record the request and its reply."""
        if self._closed:
            self.late += 1
            raise RuntimeError("this case is over: its provider takes no more requests")
        # Taken before forwarding: an agent may change its message list afterwards.
        roles, system = roles_and_system_prompt(messages)
        offered = [spec.name for spec in tools if isinstance(spec, ToolSpec)]
        response = await self._inner.complete(messages, tools)
        calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls]
        step = ModelStep(self.turn, response.content, calls, response.input_tokens, response.output_tokens)
        step.sent_roles, step.offered_tools, step.system_prompt = roles, offered, system
        self._record.steps.append(step)
        return response
