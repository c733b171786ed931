"""The HTTP side of `zeroclaw eval serve`: routes and request bodies; `exchange` answers
each model request.

Routes: `POST …/chat/completions` and `POST …/responses` (with or without `/v1`),
`GET /v1/models`, `GET /_zeroclaw/requests` (the run's log) and `POST /_zeroclaw/reset`
(a new run). A body larger than `MAX_BODY` is refused with 413 before it is read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

from zeroclaw_eval.run.openai_endpoint import MAX_BODY, Reply, api_of, error_reply
from zeroclaw_eval.serve.exchange import Backend, exchange


class Server(Backend, Protocol):
    """What the handler needs of the server behind it (`ReplayServer`)."""

    def models(self) -> Iterable[str]:
        """Model names a client may ask for."""
        ...

    def requests(self) -> list[dict[str, Any]]:
        """A copy of the request log."""
        ...

    def reset(self) -> int:
        """Start a new run; its id."""
        ...


def handler_for(server: Server) -> type[BaseHTTPRequestHandler]:
    """The request handler class of `server`."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out as two small writes; with Nagle's algorithm on, a client
        # that delays its ACK would stall every request on a kept-alive connection ~40 ms.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the request log is data (GET /_zeroclaw/requests), not stderr noise

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(reply.body)

        def _json(self, status: int, body: Any) -> None:
            self._send(Reply(status, json.dumps(body, ensure_ascii=False).encode("utf-8")))

        def do_GET(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            if path in ("/v1/models", "/models"):
                data = [
                    {"id": name, "object": "model", "owned_by": "zeroclaw-eval"} for name in server.models()
                ]
                self._json(200, {"object": "list", "data": data})
            elif path == "/_zeroclaw/requests":
                self._json(200, server.requests())
            else:
                self._send(error_reply(404, f"no route {self.path}", "not_found"))

        def do_POST(self) -> None:
            try:
                self._post()
            except Exception as exc:  # a malformed request is the client's problem: tell it
                message = f"malformed request: {type(exc).__name__}: {exc}"
                self._send(error_reply(400, message, "invalid_request_error"))

        def _post(self) -> None:
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                self.close_connection = True  # where this body ends is unknown
                self._send(error_reply(400, "Content-Length is not a number", "invalid_request_error"))
                return
            if length > MAX_BODY:
                self.close_connection = True  # the body is left unread
                message = f"the request body is {length} bytes; the limit is {MAX_BODY}"
                self._send(error_reply(413, message, "request_too_large"))
                return
            body = self.rfile.read(length)
            path = self.path.split("?")[0].rstrip("/")
            if path == "/_zeroclaw/reset":
                self._json(200, {"run": server.reset()})
                return
            api = api_of("POST", path)
            if api is None:
                self._send(error_reply(404, f"no route {self.path}", "not_found"))
                return
            self._send(exchange(server, api, body))

    return Handler
