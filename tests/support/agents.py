"""Agents the tests run in place of the reference loop."""

from __future__ import annotations

from zeroclaw_eval.agent.loop import AgentContext


class RaisingAgent:
    """Makes one echo call, then raises."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        """Call echo, then fail with `ValueError("agent exploded")`."""
        await self.context.tools.call("echo", {"message": "before the crash"}, "r1")
        raise ValueError("agent exploded")
