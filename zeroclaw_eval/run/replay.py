"""The replay provider: a real `Provider` that answers from a fixture's scripted steps.

Like httpx's mock transport, it is a full implementation of the interface rather than a
patched object. Each turn has its own FIFO of scripted steps; asking for more steps than
a turn scripts, or leaving some unconsumed, is a run error naming the turn.
"""

from __future__ import annotations

from collections import deque

from zeroclaw_eval.errors import RunError
from zeroclaw_eval.fixtures.json_text import compact_json
from zeroclaw_eval.fixtures.model import LlmTrace, Response
from zeroclaw_eval.run.provider import Message, ModelResponse, ToolCallRequest, ToolSpec


def _to_model_response(response: Response, turn: int, step: int) -> ModelResponse:
    calls = []
    for index, call in enumerate(response.tool_calls):
        arguments = call.arguments
        if not isinstance(arguments, str):
            # Key order and non-ASCII text are kept, so the tool receives what the
            # fixture wrote.
            arguments = compact_json(arguments)
        call_id = call.id or f"call_{turn}_{step}_{index}"
        calls.append(ToolCallRequest(call_id, call.name, arguments))
    content = response.content
    return ModelResponse(content, tuple(calls), response.input_tokens, response.output_tokens)


def script_of(trace: LlmTrace) -> list[list[ModelResponse]]:
    """Each turn's scripted steps as provider replies (an empty list where none)."""
    return [
        [_to_model_response(s.response, t, i) for i, s in enumerate(turn.steps or ())]
        for t, turn in enumerate(trace.turns)
    ]


class ReplayProvider:
    """Serves the scripted steps of a fixture, one turn at a time."""

    def __init__(self, trace: LlmTrace) -> None:
        self._turns = script_of(trace)
        self._queue: deque[ModelResponse] = deque()
        self._turn = 0
        self._served = 0
        #: The first divergence seen, kept even if the agent swallows the exception.
        self.divergence: RunError | None = None

    def begin_turn(self, turn: int) -> None:
        """Load the scripted steps of `turn` (0-based)."""
        self._turn = turn
        self._served = 0
        self._queue = deque(self._turns[turn])

    def finish_turn(self) -> RunError | None:
        """The run error for this turn, if the agent diverged from its script."""
        if self.divergence is not None:
            return self.divergence
        if self._queue:
            left = len(self._queue)
            first = self._served
            return RunError(
                f"turn {self._turn + 1}: the agent finished the turn with {left} scripted"
                f" step(s) unconsumed (first: step {first + 1}); the script expects more"
                " model calls than the agent made",
                f"/turns/{self._turn}/steps/{first}",
            )
        return None

    async def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        """The next scripted step of the current turn."""
        if not self._queue:
            scripted = self._served
            if not self._turns[self._turn]:
                message = (
                    f"turn {self._turn + 1}: the agent asked the model for a step but the turn"
                    " scripts none (a turn without steps can only run in live mode)"
                )
            else:
                message = (
                    f"turn {self._turn + 1}: the agent asked the model for step {scripted + 1}"
                    f" but the turn scripts only {scripted} step(s)"
                )
            self.divergence = RunError(message, f"/turns/{self._turn}/steps")
            raise self.divergence
        self._served += 1
        return self._queue.popleft()
