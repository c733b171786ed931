"""An agent command that writes the conversation the way two frameworks do, for the
`tool_echo = "text"` and `history = "turn"` tests: the standard library only, Chat
Completions at OPENAI_BASE_URL, the `--agent-cmd` jsonl protocol, tools `echo` and
`write_note` of its own.

    python tests/support/text_agent.py --style smolagents|crew [--break WHAT]

`smolagents`, as smolagents' ToolCallingAgent writes it: the input sent as
"New task:\\n<input>"; each step's calls echoed as assistant text, "Calling tools:\\n"
and the Python repr of the calls sorted by id; their results sent back as one user
message "Observation:\\n<results>"; a turn ends with the model's `final_answer` call,
whose observation the next turn's input is appended to; `tool_choice` "required".

`crew`, as a CrewAI crew kicked off per turn: every turn a new conversation, its one
user message "\\nCurrent Task: <input>" with the earlier turns told as text after it;
calls and results as Chat Completions messages.

WHAT makes a broken variant: `echo-args` (echoes each call with the arguments `{}`),
`stale-input` (sends the first turn's input in every turn), `garble` (every result is
"garbage"), `extra` (asks the model for a title after each answer), `skip` (answers
without running its tools: each result is "done").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.request
from pathlib import Path
from typing import Any

TOOLS = {
    "echo": {"type": "object", "properties": {"message": {"type": "string"}}},
    "write_note": {"type": "object", "properties": {"text": {"type": "string"}}},
    "final_answer": {"type": "object", "properties": {"answer": {"type": "string"}}},
}


def run_tool(name: str, arguments: dict[str, Any], breaks: str | None) -> str:
    if breaks == "skip":
        return "done"
    result = f"Error: no tool {name}"
    if name == "echo":
        result = str(arguments.get("message", ""))
    if name == "write_note":
        Path("note.txt").write_text(arguments["text"], encoding="utf-8")  # the case workspace
        result = "saved"
    return "garbage" if breaks == "garble" else result


def chat(messages: list[dict[str, Any]], tools: list[str], choice: str = "auto") -> dict[str, Any]:
    body = {
        "model": os.environ["ZEROCLAW_EVAL_MODEL"],
        "messages": messages,
        "tools": [{"type": "function", "function": {"name": n, "parameters": TOOLS[n]}} for n in tools],
        "tool_choice": choice,
    }
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps(body).encode("utf-8"),
        headers={
            "Content-Type": "application/json",
            "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"],
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return dict(json.loads(response.read())["choices"][0]["message"])


def say(history: list[dict[str, Any]], role: str, text: str) -> None:
    """Add a message as smolagents does: merged into the last one when it has the same role."""
    if history and history[-1]["role"] == role:
        history[-1]["content"][0]["text"] += "\n" + text
    else:
        history.append({"role": role, "content": [{"type": "text", "text": text}]})


def smolagents_turn(history: list[dict[str, Any]], user_input: str, breaks: str | None) -> str:
    say(history, "user", f"New task:\n{user_input}")
    while True:
        message = chat(history, ["echo", "write_note", "final_answer"], "required")
        calls = sorted(message.get("tool_calls") or [], key=lambda call: call["id"])
        echoed = [
            {
                "id": call["id"],
                "type": "function",
                "function": {
                    "name": call["function"]["name"],
                    "arguments": {} if breaks == "echo-args" else json.loads(call["function"]["arguments"]),
                },
            }
            for call in calls
        ]
        say(history, "assistant", f"Calling tools:\n{echoed!r}")
        results = []
        answer = None
        for call in calls:
            arguments = json.loads(call["function"]["arguments"])
            if call["function"]["name"] == "final_answer":
                answer = str(arguments["answer"])
                results.append(answer)
            else:
                results.append(run_tool(call["function"]["name"], arguments, breaks))
        say(history, "user", "Observation:\n" + "\n".join(results))
        if answer is not None:
            return answer


def crew_turn(past: list[tuple[str, str]], user_input: str, breaks: str | None) -> str:
    told = "".join(f"\nUser: {asked}\nAssistant: {said}" for asked, said in past)
    task = f"\nCurrent Task: {user_input}\n\nThe conversation so far:{told}\n\nGive a short answer."
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are a note keeper."}]
    history.append({"role": "user", "content": task})
    while True:
        message = chat(history, ["echo", "write_note"])
        calls = message.get("tool_calls") or []
        if not calls:
            return str(message.get("content") or "")
        if breaks == "echo-args":
            calls = [{**call, "function": {**call["function"], "arguments": "{}"}} for call in calls]
        history.append({"role": "assistant", "content": None, "tool_calls": calls})
        for call in message["tool_calls"]:
            result = run_tool(call["function"]["name"], json.loads(call["function"]["arguments"]), breaks)
            history.append({"role": "tool", "tool_call_id": call["id"], "content": result})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--style", choices=["smolagents", "crew"], required=True)
    parser.add_argument("--break", dest="breaks", default=None)
    options = parser.parse_args()
    history: list[dict[str, Any]] = []
    past: list[tuple[str, str]] = []
    first = None
    for line in sys.stdin:
        user_input = json.loads(line)["user_input"]
        first = first or user_input
        if options.breaks == "stale-input":
            user_input = first
        if options.style == "smolagents":
            answer = smolagents_turn(history, user_input, options.breaks)
        else:
            answer = crew_turn(past, user_input, options.breaks)
            past.append((user_input, answer))
        print(json.dumps({"answer": answer}), flush=True)
        if options.breaks == "extra":
            chat([{"role": "user", "content": f"A title for: {answer}"}], [])


if __name__ == "__main__":
    main()
