"""Agents the tests run in place of the reference loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zeroclaw_eval.agent.loop import AgentContext, ReferenceAgent
from zeroclaw_eval.boundary.provider import Message


class RaisingAgent:
    """Makes one echo call, then raises."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        """Call echo, then fail with `ValueError("agent exploded")`."""
        await self.context.tools.call("echo", {"message": "before the crash"}, "r1")
        raise ValueError("agent exploded")


class Rewriting(ReferenceAgent):
    """The reference loop, but each tool result goes through `rewrite` before it is sent;
    `dispatch` says whether the call runs through the harness's tools at all, and
    `with_ids` whether it passes the call's id when it does."""

    rewrite: Callable[[str, bool], str] = staticmethod(lambda content, success: content)
    dispatch = True
    with_ids = True

    async def _dispatch(self, response: Any) -> None:
        self.messages.append(
            {
                "role": "assistant",
                "content": response.content,
                "tool_calls": [call.as_openai() for call in response.tool_calls],
            }
        )
        for call in response.tool_calls:
            content, success = "made up", True
            if self.dispatch:
                outcome = await self._tools.call(call.name, call.arguments, call.id if self.with_ids else "")
                content, success = outcome.content, outcome.success
            sent: Message = {
                "role": "tool",
                "tool_call_id": call.id,
                "content": type(self).rewrite(content, success),
            }
            self.messages.append(sent)


def rewriting(**overrides: Any) -> Callable[[AgentContext], Rewriting]:
    kind = type(
        "Variant",
        (Rewriting,),
        {key: staticmethod(value) if callable(value) else value for key, value in overrides.items()},
    )
    return lambda context: kind(context)
