"""An agent that takes its tools from an MCP server, for the `[eval].mcp` tests: the
official `mcp` SDK's client over streamable HTTP (ZEROCLAW_EVAL_MCP_URL), and the model
over Chat Completions at OPENAI_BASE_URL (the standard library's HTTP client). It speaks
the `--agent-cmd` jsonl protocol.

    python tests/support/mcp_agent.py [--stdio] [--prefix NAME] [--break WHAT]

With --stdio it launches `zeroclaw eval mcp --url $ZEROCLAW_EVAL_MCP_URL` and talks to
that bridge over stdio, as an agent whose MCP configuration names commands does. With
--prefix NAME it offers each tool to the model as `NAME_<tool>` and calls the MCP tool by
its own name, as clients that load an `mcpServers` file do (pydantic-ai's
`load_mcp_toolsets`, langchain-mcp-adapters, Mastra).

Each turn it lists the server's tools, offers them to the model, calls each tool the
model asks for through MCP and sends each result back. WHAT makes a broken variant:
`garble` (sends "garbage" as every result), `other-order` (asks the tool about order 7
whatever the model said), `unserved` (calls `delete_order`, which the server does not
offer), `forget` (results are not sent back), `own-tool` (runs its own lookup instead of
the MCP tool's), `hide` (offers the model every tool but `lookup_order`, yet calls it when
asked), `cache` (calls the tool once for the same arguments, and sends that
result again for a later call, in the same step or a later turn).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from contextlib import AsyncExitStack
from typing import Any

from agent_command import post  # the sibling script: its model request (this folder is on sys.path)
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    body = {"model": os.environ["ZEROCLAW_EVAL_MODEL"], "messages": messages, "tools": tools}
    return dict(json.loads(post("/chat/completions", body))["choices"][0]["message"])


CACHE: dict[str, str] = {}


async def call(session: ClientSession, name: str, arguments: dict[str, Any], breaks: str) -> str:
    key = json.dumps([name, arguments], sort_keys=True)
    if breaks == "cache" and key in CACHE:
        return CACHE[key]
    CACHE[key] = text = await _call(session, name, arguments, breaks)
    return text


async def _call(session: ClientSession, name: str, arguments: dict[str, Any], breaks: str) -> str:
    if breaks == "own-tool":
        return "order 42: shipped" if name == "lookup_order" else str(arguments.get("message", ""))
    if breaks == "other-order" and "order_id" in arguments:
        arguments = {**arguments, "order_id": "7"}
    if breaks == "unserved":
        name = "delete_order"
    result = await session.call_tool(name, arguments)
    text = "".join(getattr(part, "text", "") for part in result.content)
    if result.is_error:
        text = f"Error: {text}"
    return "garbage" if breaks == "garble" else text


async def answer(
    session: ClientSession, history: list[dict[str, Any]], user_input: str, breaks: str, prefix: str
) -> str:
    listed = await session.list_tools()
    tools = [
        {
            "type": "function",
            "function": {"name": prefix + t.name, "description": t.description, "parameters": t.input_schema},
        }
        for t in listed.tools
        if not (breaks == "hide" and t.name == "lookup_order")
    ]
    history.append({"role": "user", "content": user_input})
    while True:
        message = model(history, tools)
        history.append(message)
        if not message.get("tool_calls"):
            return str(message.get("content") or "")
        for requested in message["tool_calls"]:
            function = requested["function"]
            name = function["name"].removeprefix(prefix)
            text = await call(session, name, json.loads(function["arguments"] or "{}"), breaks)
            if breaks != "forget":
                history.append({"role": "tool", "tool_call_id": requested["id"], "content": text})


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--break", dest="breaks", default="")
    parser.add_argument("--prefix", default="", help="offer each tool as PREFIX_<tool>")
    parser.add_argument("--stdio", action="store_true", help="launch `zeroclaw eval mcp`, talk over stdio")
    options = parser.parse_args()
    breaks = options.breaks
    prefix = f"{options.prefix}_" if options.prefix else ""
    url = os.environ["ZEROCLAW_EVAL_MCP_URL"]
    history: list[dict[str, Any]] = []
    async with AsyncExitStack() as stack:
        if options.stdio:
            # As an MCP configuration would: the server as a command, the URL passed on.
            command = [sys.executable, "-m", "zeroclaw_eval", "eval", "mcp", "--url", url]
            server = StdioServerParameters(command=command[0], args=command[1:])
            read, write = await stack.enter_async_context(stdio_client(server))
        else:
            read, write = await stack.enter_async_context(streamable_http_client(url))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            text = await answer(session, history, json.loads(line)["user_input"], breaks, prefix)
            print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
