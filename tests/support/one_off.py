"""A one-off HTTP server on loopback that answers every POST with whatever a test says:
any status, headers and bytes, so a test can make a provider (an agent's model, a judge)
say what `ReplayServer` never says (a usage of `Infinity`, a lone surrogate, a key echoed
back). It records every request."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: An answer: status, headers, body.
Reply = tuple[int, dict[str, str], bytes]


class OneOff:
    """A one-off HTTP server on loopback: records every request, answers with `respond`
    (called with the request's number, counted from 1, its headers and its body)."""

    def __init__(self, respond: Callable[[int, dict[str, str], bytes], Reply]) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                owner.requests.append((self.path, headers, body))
                status, extra, data = respond(len(owner.requests), headers, body)
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def json_reply(status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    """`body` as JSON (`NaN` and the infinities written as Python writes them)."""
    return status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(body).encode()


def chat_completion(content: str, usage: Any = None) -> dict[str, Any]:
    """A Chat Completions reply saying `content`, with `usage` when given."""
    message = {"role": "assistant", "content": content}
    reply: dict[str, Any] = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    if usage is not None:
        reply["usage"] = usage
    return reply
