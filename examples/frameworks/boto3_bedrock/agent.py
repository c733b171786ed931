"""A travel-desk agent on AWS's `boto3` (`bedrock-runtime`'s Converse API), with a tool
loop of its own, speaking the `--agent-cmd` jsonl protocol.

    python agent.py [--stream]

Each stdin line is a turn, `{"turn": 0, "user_input": "..."}`; each answer is one stdout
line, `{"answer": "..."}`. The loop asks Bedrock (`converse_stream` with `--stream`, else
`converse`), runs every `toolUse` block the model returns while its `stopReason` is
`tool_use`, sends each result back as a `toolResult` block (`status: "error"` for a failed
lookup) and stops at `end_turn`; the conversation is kept from turn to turn. The client
reads AWS_ENDPOINT_URL_BEDROCK_RUNTIME, the credentials and the region from the
environment; the model id is ZEROCLAW_EVAL_MODEL (the fixture's model_name under the gate).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3  # type: ignore[import-untyped]  # boto3 ships no types

MODEL = os.environ.get("ZEROCLAW_EVAL_MODEL", "anthropic.claude-3-5-haiku-20241022-v1:0")
SYSTEM = [
    {"text": "You are a travel desk. Use get_weather for any weather question; save notes with save_note."}
]
MAX_TOOL_ROUNDS = 10
WEATHER = {"paris": "sunny, 22 C", "oslo": "light snow, -3 C", "lima": "overcast, 18 C"}
NOTES = Path("notes.txt")  # in the working directory: the case workspace under the gate

TOOL_CONFIG: dict[str, Any] = {
    "tools": [
        {
            "toolSpec": {
                "name": "get_weather",
                "description": "The current weather in a city.",
                "inputSchema": {
                    "json": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    }
                },
            }
        },
        {
            "toolSpec": {
                "name": "save_note",
                "description": "Save a note for the traveller (appended to notes.txt).",
                "inputSchema": {
                    "json": {
                        "type": "object",
                        "properties": {"text": {"type": "string"}},
                        "required": ["text"],
                    }
                },
            }
        },
    ]
}


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


def run_tool(use: dict[str, Any]) -> dict[str, Any]:
    """The `toolResult` block answering one `toolUse` block; a failure says so, never a crash."""
    handler = HANDLERS.get(use["name"])
    try:
        content, failed = handler(**use["input"]) if handler else (f"no tool named {use['name']}", True)
    except (TypeError, ValueError) as exc:
        content, failed = str(exc), True
    result: dict[str, Any] = {"toolUseId": use["toolUseId"], "content": [{"text": content}]}
    if failed:
        result["status"] = "error"
    return {"toolResult": result}


def ask(client: Any, messages: list[Any], stream: bool) -> tuple[list[dict[str, Any]], str]:
    """One model reply to the conversation so far: its content blocks and stop reason."""
    request = {"modelId": MODEL, "messages": messages, "system": SYSTEM, "toolConfig": TOOL_CONFIG}
    if not stream:
        reply = client.converse(**request)
        return reply["output"]["message"]["content"], reply["stopReason"]
    blocks: dict[int, dict[str, Any]] = {}
    inputs: dict[int, str] = {}
    stop = "end_turn"
    for event in client.converse_stream(**request)["stream"]:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            blocks[start["contentBlockIndex"]] = {"toolUse": {**start["start"]["toolUse"], "input": {}}}
        elif "contentBlockDelta" in event:
            delta, index = (
                event["contentBlockDelta"]["delta"],
                event["contentBlockDelta"]["contentBlockIndex"],
            )
            if "text" in delta:  # a UI would render the text as it arrives
                blocks.setdefault(index, {"text": ""})["text"] += delta["text"]
            elif "toolUse" in delta:
                inputs[index] = inputs.get(index, "") + delta["toolUse"]["input"]
        elif "messageStop" in event:
            stop = event["messageStop"]["stopReason"]
    for index, text in inputs.items():
        blocks[index]["toolUse"]["input"] = json.loads(text)
    return [blocks[index] for index in sorted(blocks)], stop


def answer(client: Any, messages: list[Any], user_input: str, stream: bool) -> str:
    """Answer one user turn: ask, run the tools asked for, send the results back, repeat."""
    messages.append({"role": "user", "content": [{"text": user_input}]})
    for _round in range(MAX_TOOL_ROUNDS + 1):
        content, stop = ask(client, messages, stream)
        messages.append({"role": "assistant", "content": content})
        if stop != "tool_use":
            return "".join(block.get("text", "") for block in content)
        uses = [block["toolUse"] for block in content if "toolUse" in block]
        messages.append({"role": "user", "content": [run_tool(use) for use in uses]})
    raise RuntimeError(f"the model still asks for tools after {MAX_TOOL_ROUNDS} rounds")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="use converse_stream")
    options = parser.parse_args()
    client = boto3.client("bedrock-runtime")  # endpoint, credentials and region from the environment
    messages: list[Any] = []
    for line in sys.stdin:
        if line.strip():
            text = answer(client, messages, json.loads(line)["user_input"], options.stream)
            print(json.dumps({"answer": text}), flush=True)


if __name__ == "__main__":
    main()
