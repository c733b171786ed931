"""A travel-desk agent on Haystack, speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream]

Each stdin line is a turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout
line, `{"answer": "..."}`. The agent is Haystack's `Agent` component over an
`OpenAIChatGenerator`, with two function `Tool`s: `agent.run`, which with `--stream` is
given a streaming callback (the generator then streams the model's tokens). The
conversation is carried from turn to turn as the messages the last run returned (less
the system prompt, which the agent adds to every run). The generator's OpenAI client
reads OPENAI_BASE_URL and OPENAI_API_KEY; the model is named by ZEROCLAW_EVAL_MODEL (the
fixture's model_name under the gate). Haystack's telemetry is off.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # before haystack is imported

from haystack.components.agents import Agent
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.dataclasses import ChatMessage, ChatRole, StreamingChunk
from haystack.tools.tool import Tool

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "gpt-4.1-mini")
SYSTEM_PROMPT = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
NOTES = Path("notes.txt")  # in the working directory: the case workspace under the gate


def get_weather(city: str) -> str:
    """The current weather in a city."""
    return WEATHER.get(city.strip().lower(), f"Error: no weather data for {city}")


def save_note(text: str) -> str:
    """Save a note for the traveller (appended to notes.txt)."""
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return f"saved to {NOTES}"


def _one_string(name: str, description: str) -> dict[str, object]:
    """The JSON schema of a tool's parameters: one required string."""
    return {
        "type": "object",
        "properties": {name: {"type": "string", "description": description}},
        "required": [name],
    }


TOOLS = [
    Tool(
        name="get_weather",
        description="The current weather in a city.",
        parameters=_one_string("city", "The city"),
        function=get_weather,
    ),
    Tool(
        name="save_note",
        description="Save a note for the traveller (appended to notes.txt).",
        parameters=_one_string("text", "The note"),
        function=save_note,
    ),
]


def on_chunk(chunk: StreamingChunk) -> None:
    """Each streamed chunk of the model's reply."""
    # a UI would render chunk.content here


def build() -> Agent:
    return Agent(chat_generator=OpenAIChatGenerator(model=MODEL), tools=TOOLS, system_prompt=SYSTEM_PROMPT)


def answer(agent: Agent, history: list[ChatMessage], user_input: str, stream: bool) -> str:
    """Run one turn over the conversation so far (`history`, extended in place); the answer."""
    result = agent.run(
        messages=[*history, ChatMessage.from_user(user_input)],
        streaming_callback=on_chunk if stream else None,
    )
    messages: list[ChatMessage] = result["messages"]
    history[:] = [message for message in messages if not message.is_from(ChatRole.SYSTEM)]
    return messages[-1].text or ""


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="stream the model's tokens")
    options = parser.parse_args()
    agent = build()
    history: list[ChatMessage] = []
    for line in sys.stdin:
        text = answer(agent, history, json.loads(line)["user_input"], options.stream)
        print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    main()
