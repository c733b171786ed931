"""A pydantic-ai agent whose run ends on its structured answer (`output_type`: the model
calls the output tool `final_result`, which no tool runs), in the gate's process, its
`get_weather` a project tool. `STRUCTURED_TRACE_FILE` turns on pydantic-ai's own
instrumentation, its spans appended there (`SpanFileExporter`); `STRUCTURED_BROKEN=1` is
the regression: the tool's result is dropped from what the model is told."""

from __future__ import annotations

import os
from typing import Any

from openai import AsyncOpenAI
from pydantic import BaseModel
from pydantic_ai import Agent as PydanticAgent, RunContext
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from zeroclaw_eval import AgentContext, ProjectTool, SpanFileExporter, openai_http_client

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


class Weather(BaseModel):
    city: str
    summary: str


def get_weather(city: str) -> str:
    return f"sunny, 21C in {city}"


def tools() -> list[ProjectTool]:
    return [ProjectTool("get_weather", "The weather in a city.", get_weather, CITY)]


class StructuredAgent:
    def __init__(self, context: AgentContext) -> None:
        client = AsyncOpenAI(
            api_key="replay",
            base_url="http://zeroclaw.invalid/v1",
            http_client=openai_http_client(context.provider),
        )
        model = OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(openai_client=client))
        self.provider: Any = None
        capabilities: list[Any] = []
        if os.environ.get("STRUCTURED_TRACE_FILE"):
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import SimpleSpanProcessor
            from pydantic_ai.capabilities.instrumentation import Instrumentation
            from pydantic_ai.models.instrumented import InstrumentationSettings

            self.provider = TracerProvider()
            self.provider.add_span_processor(
                SimpleSpanProcessor(SpanFileExporter(os.environ["STRUCTURED_TRACE_FILE"]))
            )
            capabilities.append(
                Instrumentation(settings=InstrumentationSettings(tracer_provider=self.provider))
            )
        self.agent: PydanticAgent[None, Weather] = PydanticAgent(
            model, name="weather_agent", output_type=Weather, capabilities=capabilities
        )

        @self.agent.tool
        async def get_weather(ctx: RunContext[None], city: str) -> str:
            """The weather in a city."""
            outcome = await context.tools.call("get_weather", {"city": city}, ctx.tool_call_id or "")
            return "" if os.environ.get("STRUCTURED_BROKEN") == "1" else outcome.content

    async def run_turn(self, user_input: str) -> str:
        result = await self.agent.run(user_input)
        if self.provider is not None:
            self.provider.force_flush()
        return result.output.model_dump_json()


def make_agent(context: AgentContext) -> StructuredAgent:
    return StructuredAgent(context)
