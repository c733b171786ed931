"""A tool-calling agent written as a plain loop over the official `openai` client.

The loop is the agent's own; only its client is the harness's: `openai_http_client`
answers the SDK's chat-completions requests with `context.provider`, and the agent runs
tools through `context.tools`, so the gate sees every request and every dispatch.
"""

from __future__ import annotations

from typing import Any

from openai import AsyncOpenAI

from zeroclaw_eval import Agent, AgentContext, openai_http_client

SYSTEM_PROMPT = "You are a careful assistant. Use a tool whenever one can answer."


class OpenAILoopAgent:
    """Asks the model, runs the tools it calls, feeds the results back, stops at text."""

    def __init__(self, client: AsyncOpenAI, context: AgentContext, model: str = "gpt-4o-mini") -> None:
        self.client = client
        self.tools = context.tools
        self.max_rounds = context.max_tool_iterations
        self.model = model
        self.messages: list[Any] = [{"role": "system", "content": SYSTEM_PROMPT}]

    async def run_turn(self, user_input: str) -> str:
        self.messages.append({"role": "user", "content": user_input})
        offered: list[Any] = [spec.as_openai() for spec in self.tools.specs()]
        for _ in range(self.max_rounds + 1):
            reply = await self.client.chat.completions.create(
                model=self.model, messages=self.messages, tools=offered
            )
            message = reply.choices[0].message
            calls = [call for call in message.tool_calls or [] if call.type == "function"]
            if not calls:
                answer = message.content or ""
                self.messages.append({"role": "assistant", "content": answer})
                return answer
            self.messages.append(message.model_dump(exclude_none=True))
            for call in calls:
                outcome = await self.tools.call(call.function.name, call.function.arguments, call.id)
                self.messages.append({"role": "tool", "tool_call_id": call.id, "content": outcome.content})
        raise RuntimeError(f"the model still calls tools after {self.max_rounds} rounds")


def make_agent(context: AgentContext) -> Agent:
    """The agent, with an `openai` client whose requests the harness answers."""
    client = AsyncOpenAI(
        api_key="replay",
        base_url="http://zeroclaw.invalid/v1",
        http_client=openai_http_client(context.provider),
    )
    return OpenAILoopAgent(client, context)
