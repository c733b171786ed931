"""An agent service whose answers a test scripts, for the `--agent-service` tests of what
the harness makes of a service's answers: the standard library only (and the `mcp` SDK's
client where a plan asks for MCP), listening on $PORT.

    python tests/support/scripted_service.py PLAN

PLAN is a JSON file:

- `"exit": CODE`: says "broken on purpose" on stderr and exits with CODE at once;
- `"ready": [STATUS, LOCATION]`: the answer to every GET (default `[200, null]`);
  `"ready_delay": SECS` first;
- `"answers"`: the Nth turn request (a POST, to any path) is answered by the Nth entry
  (counted over every start; the last one again past the end), one of:
    `{"status": S, "body": TEXT}`, `{"status": S, "json": VALUE}` (default status 200),
    `{"status": S, "location": URL}` with the body `{"output": "followed"}`,
    `{"size": N}` (`{"output": "xx…"}` of exactly N bytes, in chunks),
    `{"echo": true}` (`{"output": "echo: INPUT"}`, or a chat completion saying it for a
    chat request), `{"model": true}` (asks the model at OPENAI_BASE_URL with the turn's
    input, and with ZEROCLAW_EVAL_MCP_URL the tools of that MCP server: each tool the
    model asks for is called through MCP and its result sent back; answers the model's
    text, as `echo` does),
    `{"refused": true}` (sends the model a body that is not JSON, then answers
    `{"error": "the model refused"}`), `{"die": true}` (says "dying on purpose" on
    stderr and exits without answering);
    `"then_model": SECS`: SECS after answering, asks the model once more (in the background).

Every start appends a line to `starts.log` in ZEROCLAW_EVAL_PROJECT, and its
environment's zeroclaw variables to `environments.jsonl` there; every request is
appended to `requests.jsonl` there (method, path, headers, body).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PROJECT = Path(os.environ["ZEROCLAW_EVAL_PROJECT"])
PLAN: dict[str, Any] = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
LOCK = threading.Lock()
SESSIONS: dict[str, list[dict[str, Any]]] = {}
VARIABLES = ("PORT", "OPENAI_BASE_URL", "ZEROCLAW_EVAL_CASE", "ZEROCLAW_EVAL_MODEL", "ZEROCLAW_EVAL_MCP_URL")


def log(name: str, entry: Any) -> None:
    with LOCK, (PROJECT / name).open("a", encoding="utf-8") as file:
        file.write(json.dumps(entry) + "\n")


def posts() -> int:
    """How many turn requests the service got, this start and every one before."""
    with LOCK, (PROJECT / "requests.jsonl").open(encoding="utf-8") as file:
        return sum(json.loads(line)["method"] == "POST" for line in file)


def post_model(body: bytes) -> dict[str, Any]:
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=body,
        headers={
            "Content-Type": "application/json",
            "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"],
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return dict(json.loads(response.read()))


def ask_model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    body = json.dumps({"model": "service-model", "messages": messages, "tools": tools}).encode()
    return dict(post_model(body)["choices"][0]["message"])


def with_model(history: list[dict[str, Any]]) -> str:
    """The model's answer to the conversation `history` (which it joins), with the MCP
    server's tools if there is one."""
    if not os.environ.get("ZEROCLAW_EVAL_MCP_URL"):
        message = ask_model(history, [])
        history.append(message)
        return str(message.get("content") or "")
    return asyncio.run(with_mcp(os.environ["ZEROCLAW_EVAL_MCP_URL"], history))


async def with_mcp(url: str, history: list[dict[str, Any]]) -> str:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = (await session.list_tools()).tools
        tools = [
            {"type": "function", "function": {"name": t.name, "parameters": t.input_schema}} for t in listed
        ]
        while True:
            message = ask_model(history, tools)
            history.append(message)
            if not message.get("tool_calls"):
                return str(message.get("content") or "")
            for call in message["tool_calls"]:
                arguments = json.loads(call["function"]["arguments"] or "{}")
                result = await session.call_tool(call["function"]["name"], arguments)
                text = "".join(getattr(part, "text", "") for part in result.content)
                history.append({"role": "tool", "tool_call_id": call["id"], "content": text})


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        print(format % args, file=sys.stderr, flush=True)

    def send(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        log("requests.jsonl", {"method": "GET", "path": self.path})
        time.sleep(PLAN.get("ready_delay", 0))
        status, location = PLAN.get("ready", [200, None])
        self.send(status, b"{}", {"Location": location} if location else None)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        body = json.loads(raw)
        headers = {name.lower(): value for name, value in self.headers.items()}
        log("requests.jsonl", {"method": "POST", "path": self.path, "headers": headers, "body": body})
        answers = PLAN["answers"]
        self.answer(answers[min(posts() - 1, len(answers) - 1)], body)
        if "then_model" in PLAN:
            later = [{"role": "user", "content": "summarise"}]
            threading.Timer(PLAN["then_model"], ask_model, args=(later, [])).start()

    def answer(self, plan: dict[str, Any], body: dict[str, Any]) -> None:
        chat = "messages" in body
        user_input = body["messages"][-1]["content"] if chat else body["input"]
        # A chat request carries the conversation so far; a json one, its session's.
        history = body["messages"] if chat else SESSIONS.setdefault(body["session"], [])
        if not chat:
            history.append({"role": "user", "content": user_input})
        status = plan.get("status", 200)
        if plan.get("die"):
            print("dying on purpose", file=sys.stderr, flush=True)
            time.sleep(0.2)
            os._exit(4)
        if "size" in plan:
            data = b'{"output": "' + b"x" * (plan["size"] - len(b'{"output": ""}')) + b'"}'
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            for at in range(0, len(data), 1 << 20):
                self.wfile.write(data[at : at + (1 << 20)])
            return
        if "location" in plan:
            self.send(status, b'{"output": "followed"}', {"Location": plan["location"]})
            return
        if "body" in plan:
            self.send(status, plan["body"].encode("utf-8"))
            return
        if "json" in plan:
            self.send(status, json.dumps(plan["json"]).encode("utf-8"))
            return
        if plan.get("refused"):
            try:
                post_model(b"{not json")
            except OSError:
                pass
            self.send(status, b'{"error": "the model refused"}')
            return
        text = with_model(history) if plan.get("model") else f"echo: {user_input}"
        if chat:
            reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
            self.send(status, json.dumps(reply).encode("utf-8"))
        else:
            self.send(status, json.dumps({"output": text}).encode("utf-8"))


def main() -> None:
    with (PROJECT / "starts.log").open("a", encoding="utf-8") as starts:
        starts.write(f"{os.getpid()}\n")
    log("environments.jsonl", {name: os.environ.get(name) for name in VARIABLES})
    if "exit" in PLAN:
        print("broken on purpose", file=sys.stderr, flush=True)
        sys.exit(PLAN["exit"])
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler)
    server.serve_forever()


if __name__ == "__main__":
    main()
