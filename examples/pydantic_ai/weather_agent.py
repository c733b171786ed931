"""A pydantic-ai `Agent` with a tool of the project's own, adapted to the agent protocol.

The pydantic-ai agent is built as it would be in production; only two things come from
the harness: its `openai` client (whose requests `context.provider` answers) and the
body of its tool, which goes through `context.tools`, so the gate records the dispatch
and a fixture may double the tool.
"""

from __future__ import annotations

from openai import AsyncOpenAI
from pydantic_ai import Agent as PydanticAgent, RunContext
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from zeroclaw_eval import Agent, AgentContext, openai_http_client

INSTRUCTIONS = "You answer questions about the weather. Always ask the get_weather tool."


def build(client: AsyncOpenAI, context: AgentContext) -> PydanticAgent[None, str]:
    """The pydantic-ai agent, its weather tool dispatched through the harness."""
    model = OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(openai_client=client))
    agent: PydanticAgent[None, str] = PydanticAgent(model, instructions=INSTRUCTIONS)

    @agent.tool
    async def get_weather(ctx: RunContext[None], city: str) -> str:
        """The current weather in a city."""
        outcome = await context.tools.call("get_weather", {"city": city}, ctx.tool_call_id or "")
        return outcome.content

    return agent


class WeatherAgent:
    """Answers one user turn at a time, keeping the conversation between turns."""

    def __init__(self, agent: PydanticAgent[None, str]) -> None:
        self.agent = agent
        self.history: list[ModelMessage] = []

    async def run_turn(self, user_input: str) -> str:
        result = await self.agent.run(user_input, message_history=self.history)
        self.history = result.all_messages()
        return result.output


def make_agent(context: AgentContext) -> Agent:
    """The agent, with an `openai` client whose requests the harness answers."""
    client = AsyncOpenAI(
        api_key="replay",
        base_url="http://zeroclaw.invalid/v1",
        http_client=openai_http_client(context.provider),
    )
    return WeatherAgent(build(client, context))
