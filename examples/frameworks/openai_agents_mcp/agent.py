"""A travel-desk agent on the OpenAI Agents SDK whose tools come from an MCP server,
speaking the `--agent-cmd` jsonl protocol.

    python agent.py

The agent has no tools of its own: `get_weather` and `save_note` are the tools of the
MCP server at ZEROCLAW_EVAL_MCP_URL (in production, the team's own MCP server), reached
through the SDK's `MCPServerStreamableHttp`. Each stdin line is a turn,
`{"turn": 0, "user_input": "..."}`; each answer is one stdout line, `{"answer": "..."}`.
The conversation is carried from turn to turn with `result.to_input_list()`. The client
reads OPENAI_BASE_URL and OPENAI_API_KEY; the model is named by ZEROCLAW_EVAL_MODEL.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from agents import Agent, Runner, TResponseInputItem, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "gpt-4.1-mini")
INSTRUCTIONS = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
MCP_URL = os.environ.get("ZEROCLAW_EVAL_MCP_URL", "http://127.0.0.1:8931/mcp")


async def main() -> None:
    set_tracing_disabled(True)  # traces would go to the OpenAI platform, which a gate cannot reach
    server = MCPServerStreamableHttp(params={"url": MCP_URL}, name="travel-tools", cache_tools_list=True)
    async with server as tools:
        agent = Agent(name="Travel desk", instructions=INSTRUCTIONS, model=MODEL, mcp_servers=[tools])
        history: list[TResponseInputItem] = []
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            history.append({"role": "user", "content": json.loads(line)["user_input"]})
            result = await Runner.run(agent, history)
            history = result.to_input_list()
            print(json.dumps({"answer": str(result.final_output)}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
