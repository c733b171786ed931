"""A travel-desk agent on the official `anthropic` SDK, with a tool loop of its own,
speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream]

Each stdin line is a turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout
line, `{"answer": "..."}`. The loop asks the Messages API (`messages.stream` with
`--stream`, else `messages.create`), runs every `tool_use` block the model returns, sends
each result back as a `tool_result` block (`is_error` for a failed lookup) and stops at a
reply without tool calls; the conversation is kept from turn to turn. The client reads
ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY; the model is named by ZEROCLAW_EVAL_MODEL (the
fixture's model_name under the gate).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "claude-sonnet-4-5")
SYSTEM = "You are a travel desk. Use get_weather for any weather question; save notes with save_note."
MAX_TOOL_ROUNDS = 10
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
NOTES = Path("notes.txt")  # in the working directory: the case workspace under the gate

TOOLS: list[Any] = [
    {
        "name": "get_weather",
        "description": "The current weather in a city.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
    {
        "name": "save_note",
        "description": "Save a note for the traveller (appended to notes.txt).",
        "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
]


def get_weather(city: str) -> tuple[str, bool]:
    """The weather in `city`, and whether the lookup failed."""
    found = WEATHER.get(city.strip().lower())
    return (found, False) if found is not None else (f"no weather data for {city}", True)


def save_note(text: str) -> tuple[str, bool]:
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text + "\n")
    return f"saved to {NOTES}", False


#: Each tool by its name: called with the arguments the model sent.
HANDLERS: dict[str, Callable[..., tuple[str, bool]]] = {"get_weather": get_weather, "save_note": save_note}


def run_tool(block: Any) -> dict[str, Any]:
    """The `tool_result` block answering one `tool_use` block; a failure says so, never a crash."""
    handler = HANDLERS.get(block.name)
    try:
        content, failed = handler(**block.input) if handler else (f"no tool named {block.name}", True)
    except (TypeError, ValueError) as exc:
        content, failed = str(exc), True
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.id, "content": content}
    if failed:
        result["is_error"] = True
    return result


def ask(client: anthropic.Anthropic, history: list[Any], stream: bool) -> Any:
    """One model reply to the conversation so far."""
    request: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 1024,
        "system": SYSTEM,
        "messages": history,
        "tools": TOOLS,
    }
    if not stream:
        return client.messages.create(**request)
    with client.messages.stream(**request) as events:
        for _text in events.text_stream:
            pass  # a UI would render the text as it arrives
        return events.get_final_message()


def answer(client: anthropic.Anthropic, history: list[Any], user_input: str, stream: bool) -> str:
    """Answer one user turn: ask, run the tools asked for, send the results back, repeat."""
    history.append({"role": "user", "content": user_input})
    for _round in range(MAX_TOOL_ROUNDS + 1):
        reply = ask(client, history, stream)
        history.append(
            {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in reply.content]}
        )
        calls = [block for block in reply.content if block.type == "tool_use"]
        if not calls:
            return "".join(block.text for block in reply.content if block.type == "text")
        history.append({"role": "user", "content": [run_tool(call) for call in calls]})
    raise RuntimeError(f"the model still asks for tools after {MAX_TOOL_ROUNDS} rounds")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="use messages.stream")
    options = parser.parse_args()
    client = anthropic.Anthropic()  # ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY from the environment
    history: list[Any] = []
    for line in sys.stdin:
        if line.strip():
            text = answer(client, history, json.loads(line)["user_input"], options.stream)
            print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    main()
