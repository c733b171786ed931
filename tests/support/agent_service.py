"""An agent that runs as an HTTP service, for the `--agent-service` tests: the standard
library only, listening on $PORT, calling the model at OPENAI_BASE_URL over Chat
Completions with tools of its own (`echo`, `write_note`).

    python tests/support/agent_service.py [--break WHAT]

Routes: `GET /health` (200 once serving), `POST /turn` ({"session", "turn", "input",
"workspace"} -> {"output"}), `POST /v1/chat/completions` (the conversation so far -> a
chat completion; the session and workspace in the X-Zeroclaw-Session and
X-Zeroclaw-Workspace headers). A session keeps its own conversation.

WHAT makes a broken variant: `garble` (sends "garbage" as every tool result), `forget`
(tool results are not fed back), `wrong` (the final answer is changed), `crash-on:TEXT`
(exits when a turn's input holds TEXT), `hang-on:TEXT` (never answers such a turn),
`spawn` (starts a child that would outlive it and writes its pid to `service-child.pid`
in ZEROCLAW_EVAL_PROJECT), `slow-start` (listens only after 60 s), `postcall:SECS` (after
each answer, a background call to the model SECS later), `postcall-retried:SECS` (the
same, asking to summarise the turn's input, and retried as the official clients retry: on
408, 409, 429 or 5xx, twice more, 0.6 s apart), `daemon` (forks into a session of
its own, writes its pid to `service-daemon.pid` and the parent exits 0). Every start appends a
line to `service-starts.log` in ZEROCLAW_EVAL_PROJECT.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agent_command import post  # the sibling script: its model request (this folder is on sys.path)

TOOLS = {
    "echo": {"type": "object", "properties": {"message": {"type": "string"}}},
    "write_note": {"type": "object", "properties": {"text": {"type": "string"}}},
}
SESSIONS: dict[str, list[dict[str, Any]]] = {}
BREAKS: str = ""


def model(messages: list[dict[str, Any]]) -> dict[str, Any]:
    offered = [{"type": "function", "function": {"name": n, "parameters": p}} for n, p in TOOLS.items()]
    body = {"model": "service-model", "messages": messages, "tools": offered}
    return dict(json.loads(post("/chat/completions", body))["choices"][0]["message"])


def retried(messages: list[dict[str, Any]]) -> None:
    """`model`, retried as the openai and anthropic clients retry (a background call's
    failure is logged, never raised)."""
    for _attempt in range(3):
        try:
            model(messages)
            return
        except urllib.error.HTTPError as failed:
            if failed.code not in (408, 409, 429) and failed.code < 500:
                return
        time.sleep(0.6)


def run_tool(name: str, arguments: str, workspace: str) -> str:
    args = json.loads(arguments or "{}")
    result = f"Error: no tool {name}"
    if name == "echo":
        result = str(args.get("message", ""))
    if name == "write_note":
        Path(workspace, "note.txt").write_text(args["text"], encoding="utf-8")
        result = "saved"
    return "garbage" if BREAKS == "garble" else result


def answer(history: list[dict[str, Any]], user_input: str, workspace: str) -> str:
    if BREAKS.startswith("crash-on:") and BREAKS.split(":", 1)[1] in user_input:
        print("the service broke on purpose", file=sys.stderr, flush=True)
        os._exit(3)
    if BREAKS.startswith("hang-on:") and BREAKS.split(":", 1)[1] in user_input:
        time.sleep(60)
    history.append({"role": "user", "content": user_input})
    while True:
        message = model(history)
        history.append(message)
        if not message.get("tool_calls"):
            text = message.get("content") or ""
            return text + " (changed)" if BREAKS == "wrong" else text
        for call in message["tool_calls"]:
            result = run_tool(call["function"]["name"], call["function"]["arguments"], workspace)
            if BREAKS != "forget":
                history.append({"role": "tool", "tool_call_id": call["id"], "content": result})


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        print(format % args, file=sys.stderr, flush=True)

    def reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.reply(200 if self.path == "/health" else 404, {"ok": self.path == "/health"})

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/turn":
            history = SESSIONS.setdefault(request["session"], [])
            self.reply(200, {"output": answer(history, request["input"], request["workspace"])})
            if BREAKS.startswith("postcall:"):
                later = float(BREAKS.split(":", 1)[1])
                threading.Timer(later, model, args=([{"role": "user", "content": "summarise"}],)).start()
            if BREAKS.startswith("postcall-retried:"):
                later = float(BREAKS.split(":", 1)[1])
                asked = [{"role": "user", "content": f"summarise: {request['input']}"}]
                threading.Timer(later, retried, args=(asked,)).start()
        elif self.path == "/v1/chat/completions":
            # The conversation so far comes with the request, but the model must also see
            # the tool calls of earlier turns, which only the service knows: it keeps them
            # by session (a service that rebuilt them from the text alone would drop them,
            # and the gate would say so at the next turn's request).
            history = SESSIONS.setdefault(self.headers["X-Zeroclaw-Session"], [])
            workspace = urllib.parse.unquote(self.headers["X-Zeroclaw-Workspace"])
            text = answer(history, request["messages"][-1]["content"], workspace)
            self.reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]})
        else:
            self.reply(404, {"error": f"no route {self.path}"})


def main() -> None:
    global BREAKS
    parser = argparse.ArgumentParser()
    parser.add_argument("--break", dest="breaks", default="")
    BREAKS = parser.parse_args().breaks
    project = Path(os.environ["ZEROCLAW_EVAL_PROJECT"])
    with (project / "service-starts.log").open("a", encoding="utf-8") as log:
        log.write(f"{os.getpid()}\n")
    if BREAKS == "spawn":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        (project / "service-child.pid").write_text(str(child.pid), encoding="utf-8")
    if BREAKS == "slow-start":
        time.sleep(60)
    if BREAKS == "daemon" and os.fork() > 0:
        os._exit(0)  # the parent: as `--daemon` servers do
    if BREAKS == "daemon":
        os.setsid()
        (project / "service-daemon.pid").write_text(str(os.getpid()), encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler)
    print(f"serving on {os.environ['PORT']}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
