"""The replay provider: a real `Provider` that answers from a fixture's scripted steps.

Like httpx's mock transport, it is a full implementation of the interface rather than a
patched object. Each turn has its own FIFO of scripted steps; asking for more steps than
a turn scripts, or leaving some unconsumed, is a run error naming the turn.

`next_step` answers the same question for a whole conversation sent at once (what
`zeroclaw eval serve` receives): where in the script it stands, and whether it kept to it.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from zeroclaw_eval.case import LlmTrace, Response
from zeroclaw_eval.errors import RunError
from zeroclaw_eval.provider import Message, ModelResponse, ToolCallRequest, ToolSpec


def _to_model_response(response: Response, turn: int, step: int) -> ModelResponse:
    calls = []
    for index, call in enumerate(response.tool_calls):
        arguments = call.arguments
        if not isinstance(arguments, str):
            # Key order and non-ASCII text are kept, so the tool receives what the
            # fixture wrote.
            arguments = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
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


class Divergence(Exception):
    """The conversation a request carries does not follow the fixture's script."""

    def __init__(self, message: str, fixture: str | None = None) -> None:
        super().__init__(message)
        #: The fixture whose script the request was checked against, once known.
        self.fixture = fixture


def next_step(trace: LlmTrace, messages: list[dict[str, Any]]) -> ModelResponse:
    """The scripted answer to `messages`, after checking they follow the script."""
    script = script_of(trace)
    turn = -1
    step = 0
    pending: list[str] = []
    for position, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        where = f"messages[{position}]"
        if role in ("system", "developer"):
            continue
        if role == "user":
            if pending:
                raise Divergence(f"{where}: a user message came before the results of {', '.join(pending)}")
            turn += 1
            step = 0
            if turn >= len(trace.turns):
                raise Divergence(f"{where}: the fixture scripts only {len(trace.turns)} turn(s)")
            expected = trace.turns[turn].user_input
            if message.get("content") != expected:
                raise Divergence(f"{where}: turn {turn + 1} expects the user input {json.dumps(expected)}")
        elif role == "assistant":
            if turn < 0 or step >= len(script[turn]):
                raise Divergence(f"{where}: an assistant message the script does not have")
            pending = _check_assistant(where, message, script[turn][step])
            step += 1
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                raise Divergence(f"{where}: a tool result for {call_id!r}, which no pending call has")
            pending.remove(call_id)
        else:
            raise Divergence(f"{where}: unexpected role {role!r}")
    if turn < 0:
        raise Divergence("the conversation has no user message")
    if pending:
        raise Divergence(f"the results of {', '.join(pending)} were not fed back")
    if step >= len(script[turn]):
        raise Divergence(
            f"turn {turn + 1} scripts only {len(script[turn])} step(s); the agent asked for another"
        )
    return script[turn][step]


def _check_assistant(where: str, message: dict[str, Any], scripted: ModelResponse) -> list[str]:
    calls = message.get("tool_calls") or []
    if not isinstance(calls, list):
        raise Divergence(f"{where}: tool_calls must be a list")
    if not scripted.tool_calls:
        if calls:
            raise Divergence(f"{where}: the script answered with text here, not tool calls")
        return []
    sent = [(_get(c, "id"), _get(_get(c, "function"), "name")) for c in calls]
    wanted = [(c.id, c.name) for c in scripted.tool_calls]
    if sent != wanted:
        raise Divergence(f"{where}: the script asked for the tool calls {wanted}, the agent sent back {sent}")
    return [c.id for c in scripted.tool_calls]


def _get(value: Any, key: str) -> Any:
    """`value[key]` for an object, else None: request bodies are untrusted."""
    return value.get(key) if isinstance(value, dict) else None
