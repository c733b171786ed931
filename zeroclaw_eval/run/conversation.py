"""Where a whole conversation stands in a fixture's script, and whether it kept to it.

`zeroclaw eval serve` receives each request as the whole conversation so far, so its
position in the script (turn = user messages so far, step = assistant messages since the
last user message) and its faithfulness to the script are both read from the messages.
"""

from __future__ import annotations

import json
from typing import Any

from zeroclaw_eval.errors import Divergence
from zeroclaw_eval.fixtures.model import LlmTrace
from zeroclaw_eval.run.provider import ModelResponse
from zeroclaw_eval.run.replay import script_of


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
