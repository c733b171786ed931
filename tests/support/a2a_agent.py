"""An agent served over A2A with the official `a2a-sdk` (1.x), for the `--agent-a2a` tests.

    python tests/support/a2a_agent.py [--stream] [--version 1.0|0.3] [--break WHAT]

It listens on $PORT, serves its agent card at /.well-known/agent-card.json (streaming
when --stream; a card of protocol 0.3, with the SDK's 0.3 compatibility on, when
--version 0.3), and answers each message with a tool loop over Chat Completions at
OPENAI_BASE_URL (`agent_service.model`): the tools `echo` and `write_note` (into the
workspace the message's metadata names), one conversation per A2A context. The answer is
the task's artifact. WHAT makes a broken variant: `garble` (every tool result is
"garbage"), `wrong` (the answer is changed), `forget-context` (each message starts a new
conversation), `fail` (the task ends failed, saying why), `message` (answers with a
message, not a task), `working` (leaves the task working, no answer), `rpc-error` (a
JSON-RPC error for every message).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import uvicorn
from a2a.helpers import new_task_from_user_message, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Part
from agent_service import model  # the sibling script: its model request (this folder is on sys.path)
from starlette.applications import Starlette

BREAKS = ""
CONVERSATIONS: dict[str, list[dict[str, Any]]] = {}


def run_tool(name: str, arguments: dict[str, Any], workspace: str) -> str:
    result = f"Error: no tool {name}"
    if name == "echo":
        result = str(arguments.get("message", ""))
    if name == "write_note":
        Path(workspace, "note.txt").write_text(str(arguments["text"]), encoding="utf-8")
        result = "saved"
    return "garbage" if BREAKS == "garble" else result


def answer(history: list[dict[str, Any]], user_input: str, workspace: str) -> str:
    """The tool loop: ask, run each call, send the results back, until a text answer."""
    import json

    history.append({"role": "user", "content": user_input})
    while True:
        message = model(history)
        history.append(message)
        if not message.get("tool_calls"):
            text = str(message.get("content") or "")
            return text + " (changed)" if BREAKS == "wrong" else text
        for call in message["tool_calls"]:
            arguments = json.loads(call["function"]["arguments"] or "{}")
            result = run_tool(call["function"]["name"], arguments, workspace)
            history.append({"role": "tool", "tool_call_id": call["id"], "content": result})


class Desk(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        if BREAKS == "rpc-error":
            raise ValueError("the agent broke on purpose")
        metadata = dict(context.message.metadata) if context.message.HasField("metadata") else {}
        workspace = str(metadata.get("zeroclaw_workspace", "."))
        key = context.message.message_id if BREAKS == "forget-context" else context.context_id
        history = CONVERSATIONS.setdefault(str(key), [])
        text = await asyncio.to_thread(answer, history, context.get_user_input(), workspace)
        if BREAKS == "message":
            await event_queue.enqueue_event(new_text_message(text, context_id=context.context_id))
            return
        task = context.current_task or new_task_from_user_message(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        if BREAKS == "working":
            return
        if BREAKS == "fail":
            await updater.failed(updater.new_agent_message([Part(text="the order system is down")]))
            return
        await updater.add_artifact([Part(text=text)], name="answer")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def main() -> None:
    global BREAKS
    parser = argparse.ArgumentParser()
    parser.add_argument("--stream", action="store_true")
    parser.add_argument("--version", default="1.0", choices=["1.0", "0.3"])
    parser.add_argument("--break", dest="breaks", default="")
    options = parser.parse_args()
    BREAKS = options.breaks
    port = int(os.environ["PORT"])
    card = AgentCard(
        name="desk",
        description="An agent with an echo and a note tool.",
        version="1.0.0",
        supported_interfaces=[
            AgentInterface(
                url=f"http://localhost:{port}/a2a",
                protocol_binding="JSONRPC",
                protocol_version=options.version,
            )
        ],
        capabilities=AgentCapabilities(streaming=options.stream),
        default_input_modes=["text"],
        default_output_modes=["text"],
        skills=[AgentSkill(id="desk", name="desk", description="Echoes and notes.", tags=["desk"])],
    )
    handler = DefaultRequestHandler(agent_executor=Desk(), task_store=InMemoryTaskStore(), agent_card=card)
    routes = [
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, "/a2a", enable_v0_3_compat=options.version == "0.3"),
    ]
    print(f"serving on {port}", file=sys.stderr, flush=True)
    uvicorn.run(Starlette(routes=routes), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
