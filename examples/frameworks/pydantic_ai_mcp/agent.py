"""A travel-desk agent on pydantic-ai whose tools come from the MCP servers of an
`mcpServers` file, speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream]

The agent has no tools of its own: `load_mcp_toolsets` reads `mcp_servers.json` (the
shape Claude Desktop and Cursor use), whose `travel` server is at ZEROCLAW_EVAL_MCP_URL
(in production, the team's own MCP server), and offers its tools to the model under the
server's name: `travel_get_weather` and `travel_save_note`. Each stdin line is a turn,
`{"turn": 0, "user_input": "..."}`; each answer is one stdout line, `{"answer": "..."}`.
`agent.run`, or `agent.run_stream` with `--stream`, the conversation carried from turn to
turn as `message_history`. The provider reads OPENAI_BASE_URL and OPENAI_API_KEY; the
model is named by ZEROCLAW_EVAL_MODEL.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.mcp import load_mcp_toolsets
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "gpt-4.1-mini")
INSTRUCTIONS = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
SERVERS = Path(__file__).with_name("mcp_servers.json")

agent = Agent(
    OpenAIChatModel(MODEL, provider=OpenAIProvider()),
    instructions=INSTRUCTIONS,
    toolsets=load_mcp_toolsets(SERVERS),
)


async def answer(
    user_input: str, history: list[ModelMessage], stream: bool
) -> tuple[str, list[ModelMessage]]:
    """Run one turn over the conversation so far; the answer and the conversation after it."""
    if stream:
        async with agent.run_stream(user_input, message_history=history) as streamed:
            async for _text in streamed.stream_text(delta=True):
                pass  # a UI would render the deltas here
            return await streamed.get_output(), streamed.all_messages()
    result = await agent.run(user_input, message_history=history)
    return result.output, result.all_messages()


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="use agent.run_stream")
    options = parser.parse_args()
    history: list[ModelMessage] = []
    async with agent:  # connects to the MCP servers once, for every turn
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            text, history = await answer(json.loads(line)["user_input"], history, options.stream)
            print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
