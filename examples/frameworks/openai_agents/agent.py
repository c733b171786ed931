"""A travel-desk agent on the OpenAI Agents SDK, speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream]

Each stdin line is a turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout
line, `{"answer": "..."}`. The agent is the SDK's own: the default model (the Responses
API), `Runner.run`, or `Runner.run_streamed` with `--stream`, the conversation carried
from turn to turn with `result.to_input_list()`. The client reads OPENAI_BASE_URL and
OPENAI_API_KEY; the model is named by ZEROCLAW_EVAL_MODEL (the fixture's model_name under
the gate).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from agents import Agent, Runner, TResponseInputItem, function_tool, set_tracing_disabled

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "gpt-4.1-mini")
INSTRUCTIONS = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
NOTES = Path("notes.txt")  # in the working directory: the case workspace under the gate


@function_tool
def get_weather(city: str) -> str:
    """The current weather in a city."""
    return WEATHER.get(city.strip().lower(), f"Error: no weather data for {city}")


@function_tool
def save_note(text: str) -> str:
    """Save a note for the traveller (appended to notes.txt)."""
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return f"saved to {NOTES}"


def build() -> Agent:
    return Agent(
        name="Travel desk",
        instructions=INSTRUCTIONS,
        model=MODEL,
        tools=[get_weather, save_note],
    )


async def answer(
    agent: Agent, history: list[TResponseInputItem], stream: bool
) -> tuple[str, list[TResponseInputItem]]:
    """Run one turn over the conversation so far; the answer and the conversation after it."""
    if stream:
        streamed = Runner.run_streamed(agent, history)
        async for _event in streamed.stream_events():
            pass  # a UI would render the deltas here
        return str(streamed.final_output), streamed.to_input_list()
    result = await Runner.run(agent, history)
    return str(result.final_output), result.to_input_list()


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="use Runner.run_streamed")
    options = parser.parse_args()
    set_tracing_disabled(True)  # traces would go to the OpenAI platform, which a gate cannot reach
    agent = build()
    history: list[TResponseInputItem] = []
    for line in sys.stdin:
        user_input = json.loads(line)["user_input"]
        history.append({"role": "user", "content": user_input})
        text, history = await answer(agent, history, options.stream)
        print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
