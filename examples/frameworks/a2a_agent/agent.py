"""A travel-desk agent served over the Agent2Agent (A2A) protocol with the official
`a2a-sdk`, whose executor runs a tool loop over the official `openai` client.

    python agent.py          # listens on 127.0.0.1:$PORT (default 9999)

The agent card (at /.well-known/agent-card.json) offers one JSON-RPC interface at `/` and
says the agent streams. Each message is answered by a task: the agent keeps one
conversation per A2A context, asks the model (Chat Completions), runs every tool call it
returns, sends each result back, and stops at a reply without tool calls; the reply is
the task's artifact. `save_note` writes `notes.txt` into the folder the message's
metadata names as `zeroclaw_workspace` (the case workspace under the gate; the working
directory when absent). The client reads OPENAI_BASE_URL and OPENAI_API_KEY.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import uvicorn
from a2a.helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part
from openai import AsyncOpenAI
from starlette.applications import Starlette

MODEL = "gpt-4o-mini"
SYSTEM = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
MAX_TOOL_ROUNDS = 10
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
PORT = int(os.environ.get("PORT", "9999"))

TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "save_note",
            "description": "Save a note for the traveller (appended to notes.txt).",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        },
    },
]


def get_weather(city: str) -> str:
    return WEATHER.get(city.strip().lower(), f"Error: no weather data for {city}")


def save_note(text: str, folder: Path) -> str:
    with (folder / "notes.txt").open("a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return "saved to notes.txt"


def run_tool(name: str, arguments: str, folder: Path) -> str:
    """The result of one tool call; a failure is a result that says so, never a crash."""
    try:
        args = json.loads(arguments or "{}")
        if name == "get_weather":
            return get_weather(args["city"])
        if name == "save_note":
            return save_note(args["text"], folder)
        return f"Error: no tool named {name}"
    except (KeyError, TypeError, ValueError) as exc:
        return f"Error: bad arguments for {name}: {exc}"


class TravelDesk(AgentExecutor):
    """The agent: one conversation per A2A context."""

    def __init__(self) -> None:
        self.client = AsyncOpenAI()  # OPENAI_BASE_URL and OPENAI_API_KEY from the environment
        self.conversations: dict[str, list[Any]] = {}

    async def answer(self, context_id: str, user_input: str, folder: Path) -> str:
        history = self.conversations.setdefault(context_id, [{"role": "system", "content": SYSTEM}])
        history.append({"role": "user", "content": user_input})
        for _round in range(MAX_TOOL_ROUNDS + 1):
            reply = await self.client.chat.completions.create(model=MODEL, messages=history, tools=TOOLS)
            message = reply.choices[0].message
            history.append(message.model_dump(exclude_none=True))
            calls = [call for call in message.tool_calls or [] if call.type == "function"]
            if not calls:
                return message.content or ""
            for call in calls:
                result = run_tool(call.function.name, call.function.arguments, folder)
                history.append({"role": "tool", "tool_call_id": call.id, "content": result})
        raise RuntimeError(f"the model still asks for tools after {MAX_TOOL_ROUNDS} rounds")

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.message is None:
            raise ValueError("a request without a message")
        task = context.current_task or new_task_from_user_message(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        metadata = context.message.metadata
        folder = Path(str(metadata["zeroclaw_workspace"]) if "zeroclaw_workspace" in metadata else ".")
        output = await self.answer(task.context_id, context.get_user_input(), folder)
        await updater.add_artifact([Part(text=output)], name="answer")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("a turn runs to its end")


CARD = AgentCard(
    name="Travel desk",
    description="Weather for travellers, and notes to take along.",
    version="1.0.0",
    supported_interfaces=[
        AgentInterface(url=f"http://127.0.0.1:{PORT}/", protocol_binding="JSONRPC", protocol_version="1.0")
    ],
    capabilities=AgentCapabilities(streaming=True),
    default_input_modes=["text"],
    default_output_modes=["text"],
    skills=[AgentSkill(id="weather", name="Weather", description="The weather in a city.", tags=["travel"])],
)
handler = DefaultRequestHandler(agent_executor=TravelDesk(), task_store=InMemoryTaskStore(), agent_card=CARD)
app = Starlette(routes=[*create_agent_card_routes(CARD), *create_jsonrpc_routes(handler, "/")])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=PORT, log_level="warning")
