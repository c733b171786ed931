"""A travel-desk agent on LlamaIndex, speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream]

Each stdin line is a turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout
line, `{"answer": "..."}`. The agent is LlamaIndex's `FunctionAgent` (a workflow) over the
OpenAI Chat Completions API: `await agent.run(...)`, or with `--stream` a streaming agent
whose `AgentStream` events are read from `handler.stream_events()`. One `Memory`, passed
to every run, keeps the conversation from turn to turn (a workflow `Context` no longer
carries the agent's memory from one run to the next). The LLM is `OpenAILike`, the OpenAI
LLM for any model name (`OpenAI` refuses a name it does not know); it is given
OPENAI_BASE_URL (LlamaIndex itself reads OPENAI_API_BASE) and reads OPENAI_API_KEY. The
model is named by ZEROCLAW_EVAL_MODEL (the fixture's model_name under the gate).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from llama_index.core.agent.workflow import AgentStream, FunctionAgent
from llama_index.core.memory import Memory
from llama_index.llms.openai_like import OpenAILike  # type: ignore[import-untyped]

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


def build(stream: bool) -> FunctionAgent:
    llm = OpenAILike(
        model=MODEL,
        api_base=os.environ.get("OPENAI_BASE_URL"),
        is_chat_model=True,
        is_function_calling_model=True,
        context_window=128_000,
    )
    # Plain functions become tools, named after the function and described by its docstring.
    return FunctionAgent(
        tools=[get_weather, save_note], llm=llm, system_prompt=SYSTEM_PROMPT, streaming=stream
    )


async def answer(agent: FunctionAgent, memory: Memory, user_input: str, stream: bool) -> str:
    """Run one turn over the conversation's memory; the agent's answer."""
    handler = agent.run(user_msg=user_input, memory=memory)
    if stream:
        async for event in handler.stream_events():
            if isinstance(event, AgentStream):
                pass  # a UI would render event.delta here
    return str(await handler)  # the AgentOutput's text


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="stream the model's tokens")
    options = parser.parse_args()
    agent = build(options.stream)
    memory = Memory.from_defaults(session_id="zeroclaw_user", token_limit=40_000)
    for line in sys.stdin:
        text = await answer(agent, memory, json.loads(line)["user_input"], options.stream)
        print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
