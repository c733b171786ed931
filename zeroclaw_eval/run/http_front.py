"""A loopback OpenAI-compatible server in front of one case's provider, for an agent that
runs as its own process (`--agent-cmd`).

Each request is answered by the case's recording provider on the harness's event loop
(replayed and checked against the script, or live), through the same endpoint as the
in-process client. The tool results a request feeds back are recorded as the case's
dispatches: the agent ran its tools itself, and the wire is where the harness sees them.
A result counts as a failure when it reads as one (see `inferred_success`).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread
from typing import Any

from zeroclaw_eval.run.openai_endpoint import (
    MAX_BODY,
    Endpoint,
    Reply,
    api_of,
    error_reply,
)
from zeroclaw_eval.run.provider import Message, ModelResponse, Provider, ToolSpec
from zeroclaw_eval.run.sent import fed_back
from zeroclaw_eval.run.toolbox import ToolBox

#: How a tool result that reports a failure begins (lower-cased), in the words the common
#: frameworks use: "Error: …", "error: …", "An error occurred while running the tool…".
_FAILURE_OPENINGS = ("error", "an error occurred")


def inferred_success(content: str) -> bool:
    """Whether a tool result fed back reads as a success: not when its text begins with
    "error" or "an error occurred" (any case), nor when it is a JSON object with a
    non-null `error` or a true `is_error`."""
    text = content.strip()
    if text.lower().startswith(_FAILURE_OPENINGS):
        return False
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            return True
        if isinstance(data, dict) and (data.get("error") is not None or data.get("is_error") is True):
            return False
    return True


class HttpFront:
    """Serves one case's provider on loopback while an agent command runs."""

    def __init__(
        self, provider: Provider, tools: ToolBox, loop: asyncio.AbstractEventLoop, model: str
    ) -> None:
        self._provider = provider
        self._tools = tools
        self._loop = loop
        self._model = model
        self._endpoint = Endpoint()
        self._numbers: Iterator[int] = itertools.count(1)
        self._seen: set[tuple[int, str]] = set()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        Thread(target=self._server.serve_forever, args=(0.05,), name="zeroclaw-front", daemon=True).start()

    @property
    def url(self) -> str:
        """The base URL to give the agent (`…/v1`)."""
        host, port = self._server.server_address[:2]
        shown = host.decode() if isinstance(host, bytes) else host
        return f"http://{shown}:{port}/v1"

    def close(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()

    def answer(self, method: str, path: str, body: bytes) -> Reply:
        """Answer one request (from a handler thread) on the harness's event loop."""
        if method == "GET" and path.split("?")[0].rstrip("/") in ("/v1/models", "/models"):
            models = {
                "object": "list",
                "data": [{"id": self._model, "object": "model", "owned_by": "zeroclaw-eval"}],
            }
            return Reply(200, json.dumps(models).encode("utf-8"))
        if api_of(method, path) is None:
            return error_reply(404, f"no route {method} {path}", "not_found")
        work = self._endpoint.handle(method, path, body, next(self._numbers), self._complete)
        try:
            return asyncio.run_coroutine_threadsafe(work, self._loop).result()
        except RuntimeError as over:  # the case ended (a timeout) while the agent still asked
            return error_reply(409, str(over), "case_over")

    async def _complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        for result in fed_back(messages):
            key = (self._tools.turn, result.call_id)
            if key not in self._seen:
                self._seen.add(key)
                success = inferred_success(result.content)
                self._tools.observe(result.call_id, result.name, result.arguments, result.content, success)
        return await self._provider.complete(messages, tools)


class ReplyHandler(BaseHTTPRequestHandler):
    """A request handler that writes `Reply`s, quietly, on kept-alive connections."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out as two small writes; with Nagle's algorithm on, a client
    # that delays its ACK would stall every request on a kept-alive connection ~40 ms.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass  # what crosses the wire is recorded as data, not printed to stderr

    def send(self, reply: Reply) -> None:
        """Write `reply` whole."""
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(reply.body)

    def read_body(self) -> bytes | None:
        """The request body; None after answering 400 or 413 for a length it will not read."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if 0 <= length <= MAX_BODY:
            return self.rfile.read(length)
        self.close_connection = True  # where this body ends is unknown, or it is left unread
        if length < 0:
            self.send(error_reply(400, "Content-Length is not a number", "invalid_request_error"))
        else:
            message = f"the request body is {length} bytes; the limit is {MAX_BODY}"
            self.send(error_reply(413, message, "request_too_large"))
        return None


def _handler(front: HttpFront) -> type[BaseHTTPRequestHandler]:
    class Handler(ReplyHandler):
        def do_GET(self) -> None:
            self.send(front.answer("GET", self.path, b""))

        def do_POST(self) -> None:
            body = self.read_body()
            if body is not None:
                self.send(front.answer("POST", self.path, body))

    return Handler
