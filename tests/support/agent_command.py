"""An agent that runs as its own process, for the `--agent-cmd` tests: the standard
library only, talking to OPENAI_BASE_URL over Chat Completions or Responses, to
ANTHROPIC_BASE_URL over Messages, to GOOGLE_GEMINI_BASE_URL over Gemini's
generateContent, or to AWS_ENDPOINT_URL_BEDROCK_RUNTIME over Bedrock's Converse, plain or
streamed, with tools of its own (`echo`, `write_note`).

    python tests/support/agent_command.py [--api chat|responses|anthropic|gemini|converse]
        [--stream]
        [--wrap] [--break WHAT] [--oneshot]

With --wrap it sends each user input inside a task template, as CrewAI does
("\nCurrent Task: <input>\n\n..."). `stale-input` (with --wrap) sends the first turn's
input again in every later turn.

WHAT makes a broken variant: `rename` (its tool is offered as `repeat`), `forget` (tool
results are not fed back), `wrong` (the final answer is changed), `fail` (write_note
reports an error), `crash` (exits with a traceback on the first turn), `hang` (never
answers), `spawn` (starts a child that would outlive it, says its pid on stderr, hangs),
`terse` (keeps no closing answer in its history: a turn's tool results sit right before
the next user message), `extra` (asks the model once more after its last answer),
`linger` (once stdin closes, takes 0.3 s, then writes `exited-cleanly` into
ZEROCLAW_EVAL_PROJECT), `none` (sends `tool_choice: "none"`: it tells the model to call no
tool), `garble` (sends "garbage" as every tool result), `echo-args` (keeps each call in
its history with the arguments `{}`, whatever the model sent), `badref` (Responses: refers to an
item no reply produced, which the endpoint refuses; the agent then exits), `badref-quiet`
(the same, but the agent takes the refusal quietly and answers ""), `stall` (its tools
hang), `loud-crash` (writes 40 lines of 1 MB on stderr and stdout, then exits with an
error), `answer-extra` (its answer lines carry a `session` key too), `no-max-tokens` (Messages: sends no
`max_tokens`, which the API requires). Not broken, only
unusual: `reverse-results` (Chat: runs a step's calls, and sends their results, last
first); `noisy` (prints a line that is not UTF-8, a JSON log line with an `error` key,
and 40 MB of log lines after each answer, on stdout and stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

TOOLS = {
    "echo": {"type": "object", "properties": {"message": {"type": "string"}}},
    "write_note": {"type": "object", "properties": {"text": {"type": "string"}}},
}


def run_tool(name: str, arguments: str, breaks: str | None) -> str:
    args = json.loads(arguments or "{}")
    if name == "write_note" and breaks == "fail":
        return "Error: the disk is full"
    if breaks == "stall":
        time.sleep(60)
    result = f"Error: no tool {name}"
    if name == "echo":
        result = str(args.get("message", ""))
    if name == "write_note":
        Path("note.txt").write_text(args["text"], encoding="utf-8")  # the case workspace
        result = "saved"
    return "garbage" if breaks == "garble" else result


def post(path: str, body: dict[str, Any]) -> bytes:
    if path.startswith("/model/"):
        url = os.environ["AWS_ENDPOINT_URL_BEDROCK_RUNTIME"] + path
        headers = {"Authorization": "AWS4-HMAC-SHA256 Credential=" + os.environ["AWS_ACCESS_KEY_ID"]}
    elif path.startswith("/v1beta/"):
        url = os.environ["GOOGLE_GEMINI_BASE_URL"] + path
        headers = {"x-goog-api-key": os.environ["GEMINI_API_KEY"]}
    elif path == "/v1/messages":
        url = os.environ["ANTHROPIC_BASE_URL"] + path
        headers = {"x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01"}
    else:
        url = os.environ["OPENAI_BASE_URL"] + path
        headers = {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}
    request = urllib.request.Request(
        url, data=json.dumps(body).encode("utf-8"), headers={"Content-Type": "application/json", **headers}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read()


def events(raw: bytes) -> list[dict[str, Any]]:
    found = []
    for line in raw.decode("utf-8").splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            found.append(json.loads(line[len("data: ") :]))
    return found


def choosing(body: dict[str, Any], breaks: str | None) -> dict[str, Any]:
    return {**body, "tool_choice": "none"} if breaks == "none" else body


def chat(
    messages: list[dict[str, Any]], tools: list[str], stream: bool, breaks: str | None = None
) -> dict[str, Any]:
    offered = [{"type": "function", "function": {"name": n, "parameters": TOOLS.get(n, {})}} for n in tools]
    body = {
        "model": os.environ["ZEROCLAW_EVAL_MODEL"],
        "messages": messages,
        "tools": offered,
        "stream": stream,
    }
    body = choosing(body, breaks)
    raw = post("/chat/completions", body)
    if not stream:
        return dict(json.loads(raw)["choices"][0]["message"])
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    calls: dict[int, dict[str, Any]] = {}
    for chunk in events(raw):
        for choice in chunk["choices"]:
            delta = choice["delta"]
            message["content"] += delta.get("content") or ""
            for part in delta.get("tool_calls", []):
                call = calls.setdefault(
                    part["index"], {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
                )
                call["id"] += part.get("id", "")
                call["function"]["name"] += part.get("function", {}).get("name", "")
                call["function"]["arguments"] += part.get("function", {}).get("arguments", "")
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message


def respond(
    items: list[dict[str, Any]], tools: list[str], stream: bool, breaks: str | None
) -> list[dict[str, Any]]:
    offered = [{"type": "function", "name": n, "parameters": TOOLS.get(n, {})} for n in tools]
    if breaks in ("badref", "badref-quiet"):
        items = [{"type": "item_reference", "id": "msg_gone"}, *items]
    body = {"model": os.environ["ZEROCLAW_EVAL_MODEL"], "input": items, "tools": offered, "stream": stream}
    body = choosing(body, breaks)
    raw = post("/responses", body)
    if not stream:
        return list(json.loads(raw)["output"])
    done = [event for event in events(raw) if event["type"] == "response.completed"]
    return list(done[0]["response"]["output"])


def message(
    history: list[dict[str, Any]], tools: list[str], stream: bool, breaks: str | None
) -> list[dict[str, Any]]:
    offered = [{"name": n, "input_schema": TOOLS.get(n, {"type": "object"})} for n in tools]
    body: dict[str, Any] = {
        "model": os.environ["ZEROCLAW_EVAL_MODEL"],
        "max_tokens": 1024,
        "messages": history,
        "tools": offered,
        "stream": stream,
    }
    if breaks == "none":
        body["tool_choice"] = {"type": "none"}
    if breaks == "no-max-tokens":
        del body["max_tokens"]
    raw = post("/v1/messages", body)
    if not stream:
        return list(json.loads(raw)["content"])
    blocks: list[dict[str, Any]] = []
    partial: dict[int, str] = {}
    for event in events(raw):
        if event["type"] == "content_block_start":
            blocks.append(dict(event["content_block"]))
        elif event["type"] == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "text_delta":
                blocks[event["index"]]["text"] += delta["text"]
            else:
                partial[event["index"]] = partial.get(event["index"], "") + delta["partial_json"]
    for index, text in partial.items():
        blocks[index]["input"] = json.loads(text)
    return blocks


def generate(
    contents: list[dict[str, Any]], tools: list[str], stream: bool, breaks: str | None
) -> list[dict[str, Any]]:
    """The parts of the model's reply to `contents` (Gemini's generateContent)."""
    declared = [{"name": n, "parametersJsonSchema": TOOLS.get(n, {"type": "object"})} for n in tools]
    body: dict[str, Any] = {"contents": contents, "tools": [{"functionDeclarations": declared}]}
    if breaks == "none":
        body["toolConfig"] = {"functionCallingConfig": {"mode": "NONE"}}
    model = os.environ["ZEROCLAW_EVAL_MODEL"]
    if not stream:
        raw = post(f"/v1beta/models/{model}:generateContent", body)
        return list(json.loads(raw)["candidates"][0]["content"]["parts"])
    raw = post(f"/v1beta/models/{model}:streamGenerateContent?alt=sse", body)
    parts: list[dict[str, Any]] = []
    for chunk in events(raw):
        for part in chunk["candidates"][0]["content"]["parts"]:
            if "text" in part and parts and "text" in parts[-1]:
                parts[-1] = {"text": parts[-1]["text"] + part["text"]}
            else:
                parts.append(part)
    return parts


def turn_gemini(history: list[dict[str, Any]], options: argparse.Namespace, tools: list[str]) -> str:
    """A turn of Gemini's wire: `history` holds chat-shaped user messages, kept here as
    Gemini contents (its own list, built from them)."""
    contents = GEMINI_CONTENTS
    contents.append({"role": "user", "parts": [{"text": history[-1]["content"]}]})
    while True:
        parts = generate(contents, tools, options.stream, options.breaks)
        kept = [
            {"functionCall": {**p["functionCall"], "args": {}}}
            if "functionCall" in p and options.breaks == "echo-args"
            else p
            for p in parts
        ]
        contents.append({"role": "model", "parts": kept})
        calls = [part["functionCall"] for part in parts if "functionCall" in part]
        if not calls:
            return "".join(part.get("text", "") for part in parts)
        results = []
        for call in calls:
            result = run_tool(call["name"], json.dumps(call["args"]), options.breaks)
            key = "error" if result.startswith("Error: ") else "result"  # google-genai's way
            response = {key: result.removeprefix("Error: ")}
            results.append(
                {"functionResponse": {"id": call.get("id"), "name": call["name"], "response": response}}
            )
        if options.breaks != "forget":
            contents.append({"role": "user", "parts": results})


def event_stream(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    """The events of AWS's binary event stream: (its `:event-type`, its JSON payload)."""
    found = []
    while raw:
        total, headers_length = struct.unpack(">II", raw[:8])
        headers, at = {}, 12
        while at < 12 + headers_length:
            size = raw[at]
            name = raw[at + 1 : at + 1 + size].decode()
            at += 1 + size + 1  # the name, then its type (7: a string)
            (length,) = struct.unpack(">H", raw[at : at + 2])
            headers[name] = raw[at + 2 : at + 2 + length].decode()
            at += 2 + length
        found.append((headers[":event-type"], json.loads(raw[at : total - 4])))
        raw = raw[total:]
    return found


def converse(
    messages: list[dict[str, Any]], tools: list[str], stream: bool, breaks: str | None
) -> list[dict[str, Any]]:
    """The content blocks of the model's reply to `messages` (Bedrock's Converse)."""
    specs = [
        {"toolSpec": {"name": n, "inputSchema": {"json": TOOLS.get(n, {"type": "object"})}}} for n in tools
    ]
    body: dict[str, Any] = {"messages": messages, "toolConfig": {"tools": specs}}
    if breaks == "none":  # Bedrock has no "none": ask for the other tool instead
        body["toolConfig"]["toolChoice"] = {"tool": {"name": "write_note"}}
    model = urllib.parse.quote(os.environ["ZEROCLAW_EVAL_MODEL"], safe="")
    if not stream:
        return list(json.loads(post(f"/model/{model}/converse", body))["output"]["message"]["content"])
    blocks: dict[int, dict[str, Any]] = {}
    inputs: dict[int, str] = {}
    for kind, event in event_stream(post(f"/model/{model}/converse-stream", body)):
        index = event.get("contentBlockIndex", -1)
        if kind == "contentBlockStart":
            blocks[index] = {"toolUse": {**event["start"]["toolUse"], "input": {}}}
        elif kind == "contentBlockDelta" and "text" in event["delta"]:
            blocks.setdefault(index, {"text": ""})["text"] += event["delta"]["text"]
        elif kind == "contentBlockDelta":
            inputs[index] = inputs.get(index, "") + event["delta"]["toolUse"]["input"]
    for index, text in inputs.items():
        blocks[index]["toolUse"]["input"] = json.loads(text)
    return [blocks[index] for index in sorted(blocks)]


def turn_converse(history: list[dict[str, Any]], options: argparse.Namespace, tools: list[str]) -> str:
    """A turn of Bedrock's Converse: its own list of messages, built from the user's."""
    messages = CONVERSE_MESSAGES
    messages.append({"role": "user", "content": [{"text": history[-1]["content"]}]})
    while True:
        blocks = converse(messages, tools, options.stream, options.breaks)
        kept = [
            {"toolUse": {**b["toolUse"], "input": {}}}
            if "toolUse" in b and options.breaks == "echo-args"
            else b
            for b in blocks
        ]
        messages.append({"role": "assistant", "content": kept})
        calls = [block["toolUse"] for block in blocks if "toolUse" in block]
        if not calls:
            return "".join(block.get("text", "") for block in blocks)
        results = []
        for call in calls:
            result = run_tool(call["name"], json.dumps(call["input"]), options.breaks)
            block: dict[str, Any] = {"toolUseId": call["toolUseId"], "content": [{"text": result}]}
            if result.startswith("Error: "):  # said Bedrock's way: the status, not the words
                block.update(content=[{"text": result.removeprefix("Error: ")}], status="error")
            results.append({"toolResult": block})
        if options.breaks != "forget":
            messages.append({"role": "user", "content": results})


#: The conversation as Converse messages, across turns.
CONVERSE_MESSAGES: list[dict[str, Any]] = []


#: The conversation as Gemini contents, across turns (one agent process, one conversation).
GEMINI_CONTENTS: list[dict[str, Any]] = []


def turn_anthropic(history: list[dict[str, Any]], options: argparse.Namespace, tools: list[str]) -> str:
    while True:
        blocks = message(history, tools, options.stream, options.breaks)
        kept = [
            {**b, "input": {}} if b["type"] == "tool_use" and options.breaks == "echo-args" else b
            for b in blocks
        ]
        history.append({"role": "assistant", "content": kept})
        calls = [block for block in blocks if block["type"] == "tool_use"]
        if not calls:
            return "".join(block["text"] for block in blocks if block["type"] == "text")
        results = []
        for call in calls:
            result = run_tool(call["name"], json.dumps(call["input"]), options.breaks)
            block = {"type": "tool_result", "tool_use_id": call["id"], "content": result}
            if result.startswith("Error: "):  # said the Anthropic way: the flag, not the words
                block.update(content=result.removeprefix("Error: "), is_error=True)
            results.append(block)
        if options.breaks != "forget":
            history.append({"role": "user", "content": results})


def echoed(message: dict[str, Any], breaks: str | None) -> dict[str, Any]:
    """The assistant message as the agent keeps it: as it came, or (`echo-args`) with
    every call's arguments made `{}`."""
    if breaks != "echo-args":
        return message
    calls = [{**call, "function": {**call["function"], "arguments": "{}"}} for call in message["tool_calls"]]
    return {**message, "tool_calls": calls}


def turn_chat(history: list[dict[str, Any]], options: argparse.Namespace, tools: list[str]) -> str:
    while True:
        message = chat(history, tools, options.stream, options.breaks)
        if not message.get("tool_calls"):
            if options.breaks != "terse":
                history.append(message)
            return message.get("content") or ""
        history.append(echoed(message, options.breaks))
        calls = message["tool_calls"]
        for call in reversed(calls) if options.breaks == "reverse-results" else calls:
            result = run_tool(call["function"]["name"], call["function"]["arguments"], options.breaks)
            if options.breaks != "forget":
                history.append({"role": "tool", "tool_call_id": call["id"], "content": result})


def turn_responses(history: list[dict[str, Any]], options: argparse.Namespace, tools: list[str]) -> str:
    while True:
        output = respond(history, tools, options.stream, options.breaks)
        history.extend(
            {**item, "arguments": "{}"}
            if item["type"] == "function_call" and options.breaks == "echo-args"
            else item
            for item in output
        )
        calls = [item for item in output if item["type"] == "function_call"]
        if not calls:
            return "".join(
                part["text"] for item in output if item["type"] == "message" for part in item["content"]
            )
        for call in calls:
            result = run_tool(call["name"], call["arguments"], options.breaks)
            if options.breaks != "forget":
                history.append({"type": "function_call_output", "call_id": call["call_id"], "output": result})


FIRST_INPUT: list[str] = []


def answer(history: list[dict[str, Any]], user_input: str, options: argparse.Namespace) -> str:
    tools = ["repeat" if name == "echo" and options.breaks == "rename" else name for name in TOOLS]
    FIRST_INPUT.append(user_input)
    if options.breaks == "stale-input":
        user_input = FIRST_INPUT[0]
    if options.wrap:
        user_input = f"\nCurrent Task: {user_input}\n\nThis is the expected criteria: a short answer."
    history.append({"role": "user", "content": user_input})
    turns = {
        "responses": turn_responses,
        "anthropic": turn_anthropic,
        "gemini": turn_gemini,
        "converse": turn_converse,
    }
    turn = turns.get(options.api, turn_chat)
    try:
        text = turn(history, options, tools)
    except urllib.error.HTTPError:
        if options.breaks != "badref-quiet":
            raise
        text = ""
    return text + " (changed)" if options.breaks == "wrong" else text


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--api", default="chat", choices=["chat", "responses", "anthropic", "gemini", "converse"]
    )
    parser.add_argument("--stream", action="store_true")
    parser.add_argument("--break", dest="breaks", default=None)
    parser.add_argument("--oneshot", action="store_true")
    parser.add_argument("--wrap", action="store_true", help="send each input inside a task template")
    parser.add_argument("user_input", nargs="?")
    options = parser.parse_args()
    if not options.oneshot:
        print("agent starting", flush=True)  # a stray line: not an answer, ignored
    if options.breaks == "spawn":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print(f"child pid {child.pid}", file=sys.stderr, flush=True)
    history: list[dict[str, Any]] = []
    if options.oneshot:
        sys.stdout.write(answer(history, options.user_input, options))
        return
    for line in sys.stdin:
        if options.breaks == "crash":
            raise RuntimeError("the agent broke on purpose")
        if options.breaks == "loud-crash":
            line = "x" * (1 << 20) + "\n"
            for _ in range(40):
                sys.stderr.write(line)
                sys.stdout.write(line)
            sys.stdout.flush()
            raise SystemExit(3)
        if options.breaks in ("hang", "spawn"):
            time.sleep(60)
        request = json.loads(line)
        said = {"answer": answer(history, request["user_input"], options)}
        if options.breaks == "answer-extra":
            said["session"] = "s1"
        print(json.dumps(said), flush=True)
        if options.breaks == "noisy":
            sys.stdout.buffer.write(b"\xff\xfe not utf-8\n")
            print(json.dumps({"level": "warn", "error": "timeout, retrying"}), flush=True)
            block = ("log line " * 100 + "\n") * 1000  # about 1 MB
            for _ in range(40):
                sys.stdout.write(block)
                sys.stderr.write(block)
            sys.stdout.flush()
    if options.breaks == "extra":
        chat([*history, {"role": "user", "content": "one more thing"}], list(TOOLS), False)
    if options.breaks == "fail-after":  # what it does once stdin closes fails
        raise RuntimeError("could not save the conversation")
    if options.breaks == "linger":
        time.sleep(0.3)
        Path(os.environ["ZEROCLAW_EVAL_PROJECT"], "exited-cleanly").write_text("yes", encoding="utf-8")


if __name__ == "__main__":
    main()
