"""A travel-desk agent on Strands Agents over Amazon Bedrock (its default model
provider), speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream]

Each stdin line is a turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout
line, `{"answer": "..."}`. The agent is a Strands `Agent` with two `@tool` functions over
a `BedrockModel`: Converse with `streaming=False`, ConverseStream with `--stream`;
Strands runs the tools and keeps the conversation (`agent.messages`) from turn to turn.
boto3 reads AWS_ENDPOINT_URL_BEDROCK_RUNTIME, the credentials and the region from the
environment; the model id is ZEROCLAW_EVAL_MODEL (the fixture's model_name under the gate).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from strands import Agent, tool
from strands.models.bedrock import BedrockModel

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "us.anthropic.claude-sonnet-4-20250514-v1:0")
SYSTEM = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
NOTES = Path("notes.txt")  # in the working directory: the case workspace under the gate


@tool
def get_weather(city: str) -> str:
    """The current weather in a city.

    Args:
        city: The city.
    """
    found = WEATHER.get(city.strip().lower())
    if found is None:
        raise ValueError(f"no weather data for {city}")  # Strands sends it back as an error
    return found


@tool
def save_note(text: str) -> str:
    """Save a note for the traveller (appended to notes.txt).

    Args:
        text: The note.
    """
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return f"saved to {NOTES}"


def build(stream: bool) -> Agent:
    model = BedrockModel(model_id=MODEL, streaming=stream)
    return Agent(model=model, tools=[get_weather, save_note], system_prompt=SYSTEM, callback_handler=None)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="use ConverseStream")
    options = parser.parse_args()
    agent = build(options.stream)
    for line in sys.stdin:
        if line.strip():
            text = str(agent(json.loads(line)["user_input"])).strip()
            print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    main()
