"""A travel-desk agent on Google's Agent Development Kit (ADK), speaking the
`--agent-cmd` jsonl protocol.

    python agent.py [--stream]

An `LlmAgent` over Gemini with two function tools, run by an `InMemoryRunner`: ADK asks
the model (`generateContent`, or `streamGenerateContent` over server-sent events with
`--stream`), runs the functions it asks for, sends their responses back and stops at a
reply without calls. One session holds the whole conversation. Each stdin line is a
turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout line,
`{"answer": "..."}`. ADK's Gemini client reads GOOGLE_GEMINI_BASE_URL and
GOOGLE_API_KEY (or GEMINI_API_KEY); the model is named by ZEROCLAW_EVAL_MODEL.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from google.adk.agents import LlmAgent, RunConfig

# ADK's documented import: run_config re-exports it without listing it in __all__.
from google.adk.agents.run_config import StreamingMode  # type: ignore[attr-defined]
from google.adk.runners import InMemoryRunner
from google.genai import types

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "gemini-2.5-flash")
INSTRUCTION = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
NOTES = Path("notes.txt")  # in the working directory: the case workspace under the gate
USER = "zeroclaw_user"


def get_weather(city: str) -> dict[str, str]:
    """The current weather in a city."""
    found = WEATHER.get(city.strip().lower())
    return {"result": found} if found is not None else {"error": f"no weather data for {city}"}


def save_note(text: str) -> dict[str, str]:
    """Save a note for the traveller (appended to notes.txt)."""
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return {"result": f"saved to {NOTES}"}


agent = LlmAgent(name="travel_desk", model=MODEL, instruction=INSTRUCTION, tools=[get_weather, save_note])


async def answer(runner: InMemoryRunner, session: str, user_input: str, stream: bool) -> str:
    """Run one turn in the session; the text of its final response."""
    message = types.Content(role="user", parts=[types.Part(text=user_input)])
    config = RunConfig(streaming_mode=StreamingMode.SSE if stream else StreamingMode.NONE)
    text = ""
    async for event in runner.run_async(
        user_id=USER, session_id=session, new_message=message, run_config=config
    ):
        if event.is_final_response() and event.content and not event.partial:
            text = "".join(part.text or "" for part in event.content.parts or [] if not part.thought)
    return text


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="stream the model's replies (SSE)")
    options = parser.parse_args()
    runner = InMemoryRunner(agent=agent, app_name="travel_desk")
    session = await runner.session_service.create_session(app_name="travel_desk", user_id=USER)
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        text = await answer(runner, session.id, json.loads(line)["user_input"], options.stream)
        print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
