"""A travel-desk agent on smolagents, speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream]

Each stdin line is a turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout
line, `{"answer": "..."}`. The agent is smolagents' `ToolCallingAgent` over
`OpenAIServerModel` (Chat Completions): `agent.run`, with `--stream` streaming the
model's tokens (`stream_outputs=True`). `run(..., reset=False)` from the second turn on
keeps the agent's memory: one conversation. smolagents writes its tool calls and their
results into the conversation as text and ends each turn with a call of its own
`final_answer` tool, so the gate reads its requests with `tool_echo = "text"` (see
zeroclaw.toml). The `openai` client reads OPENAI_BASE_URL and OPENAI_API_KEY; the model
is named by ZEROCLAW_EVAL_MODEL (the fixture's model_name under the gate). smolagents'
console log goes to stderr, so stdout carries only the answer lines.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rich.console import Console

# smolagents ships no type information.
from smolagents import OpenAIServerModel, ToolCallingAgent, tool  # type: ignore[import-untyped]
from smolagents.monitoring import AgentLogger, LogLevel  # type: ignore[import-untyped]

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "gpt-4.1-mini")
INSTRUCTIONS = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
NOTES = Path("notes.txt")  # in the working directory: the case workspace under the gate


def get_weather(city: str) -> str:
    """The current weather in a city.

    Args:
        city: The city to look up.
    """
    return WEATHER.get(city.strip().lower(), f"Error: no weather data for {city}")


def save_note(text: str) -> str:
    """Save a note for the traveller (appended to notes.txt).

    Args:
        text: The note to save.
    """
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return f"saved to {NOTES}"


def build(stream: bool) -> ToolCallingAgent:
    # api_base and api_key left out: the openai client reads OPENAI_BASE_URL and OPENAI_API_KEY.
    model = OpenAIServerModel(model_id=MODEL)
    logger = AgentLogger(level=LogLevel.INFO, console=Console(stderr=True, highlight=False))
    # `tool` makes a Tool of a function, named after it, described by its docstring.
    return ToolCallingAgent(
        tools=[tool(get_weather), tool(save_note)],
        model=model,
        instructions=INSTRUCTIONS,
        stream_outputs=stream,
        max_steps=6,
        logger=logger,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="stream the model's tokens")
    options = parser.parse_args()
    agent = build(options.stream)
    first = True
    for line in sys.stdin:
        user_input = json.loads(line)["user_input"]
        text = str(agent.run(user_input, reset=first))  # the final_answer call's answer
        first = False
        print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    main()
