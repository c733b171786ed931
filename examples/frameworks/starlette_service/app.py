"""A travel-desk agent served over HTTP: a starlette app (run by uvicorn) whose handler
runs a tool loop over the official `openai` client.

    python app.py            # listens on 127.0.0.1:$PORT (default 8000)

`POST /turn` takes `{"session": "...", "input": "...", "workspace": "..."}` and answers
`{"output": "..."}`: the agent keeps one conversation per session, asks the model (Chat
Completions), runs every tool call it returns, sends each result back, and stops at a
reply without tool calls. `workspace` is the folder `save_note` writes `notes.txt` into
(the case workspace under the gate; the working directory when absent). `GET /health`
answers 200. The client reads OPENAI_BASE_URL and OPENAI_API_KEY.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import uvicorn
from openai import AsyncOpenAI
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

MODEL = "gpt-4o-mini"
SYSTEM = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
MAX_TOOL_ROUNDS = 10
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}

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


class TravelDesk:
    """The agent: one conversation per session."""

    def __init__(self) -> None:
        self.client = AsyncOpenAI()  # OPENAI_BASE_URL and OPENAI_API_KEY from the environment
        self.sessions: dict[str, list[Any]] = {}

    async def answer(self, session: str, user_input: str, folder: Path) -> str:
        history = self.sessions.setdefault(session, [{"role": "system", "content": SYSTEM}])
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


desk = TravelDesk()


async def turn(request: Request) -> JSONResponse:
    body = await request.json()
    folder = Path(body.get("workspace") or ".")
    output = await desk.answer(str(body["session"]), str(body["input"]), folder)
    return JSONResponse({"output": output})


async def health(request: Request) -> JSONResponse:
    return JSONResponse({"ok": True})


app = Starlette(routes=[Route("/turn", turn, methods=["POST"]), Route("/health", health)])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(os.environ.get("PORT", "8000")), log_level="warning")
