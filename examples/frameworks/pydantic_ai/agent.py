"""A travel-desk agent on pydantic-ai, speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream] [--api chat|anthropic]

Each stdin line is a turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout
line, `{"answer": "..."}`. The agent is a pydantic-ai `Agent` over the OpenAI Chat
Completions model, or with `--api anthropic` over Anthropic's Messages API (the same
agent, its model given to each run): `agent.run`, or `agent.run_stream` with `--stream`,
the conversation carried from turn to turn as `message_history`. The providers read
OPENAI_BASE_URL and OPENAI_API_KEY, or ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY; the
model is named by ZEROCLAW_EVAL_MODEL (the fixture's model_name under the gate).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "gpt-4.1-mini")
INSTRUCTIONS = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
NOTES = Path("notes.txt")  # in the working directory: the case workspace under the gate

agent = Agent(OpenAIChatModel(MODEL, provider=OpenAIProvider()), instructions=INSTRUCTIONS)


@agent.tool_plain
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return WEATHER.get(city.strip().lower(), f"Error: no weather data for {city}")


@agent.tool_plain
def save_note(text: str) -> str:
    """Save a note for the traveller (appended to notes.txt)."""
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return f"saved to {NOTES}"


def model_for(api: str) -> Model | None:
    """The model of `--api`: None for the agent's own (Chat Completions)."""
    if api != "anthropic":
        return None
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    return AnthropicModel(MODEL, provider=AnthropicProvider())


async def answer(
    user_input: str, history: list[ModelMessage], stream: bool, model: Model | None = None
) -> tuple[str, list[ModelMessage]]:
    """Run one turn over the conversation so far; the answer and the conversation after it."""
    if stream:
        async with agent.run_stream(user_input, message_history=history, model=model) as streamed:
            async for _text in streamed.stream_text(delta=True):
                pass  # a UI would render the deltas here
            return await streamed.get_output(), streamed.all_messages()
    result = await agent.run(user_input, message_history=history, model=model)
    return result.output, result.all_messages()


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="use agent.run_stream")
    parser.add_argument("--api", default="chat", choices=["chat", "anthropic"], help="the model's API")
    options = parser.parse_args()
    model = model_for(options.api)
    history: list[ModelMessage] = []
    for line in sys.stdin:
        text, history = await answer(json.loads(line)["user_input"], history, options.stream, model)
        print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
