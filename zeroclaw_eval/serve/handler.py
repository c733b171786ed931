"""The HTTP side of `zeroclaw eval serve`: routes and request bodies; `exchange` answers
each model request.

Routes: `POST …/chat/completions` and `POST …/responses` (with or without `/v1`),
`GET /v1/models`, `GET /_zeroclaw/requests` (the run's log) and `POST /_zeroclaw/reset`
(a new run). A body larger than the server's `max_body` is refused with 413 before it is
read. A connection silent for the server's `timeout_secs` (a slow or stalled client,
reading or writing) is closed without an answer.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

from zeroclaw_eval.serve.exchange import Backend, exchange
from zeroclaw_eval.wire.endpoint import Reply, api_of, error_reply, is_models_route, models_reply
from zeroclaw_eval.wire.http import ReplyHandler


class Server(Backend, Protocol):
    """What the handler needs of the server behind it (`ReplayServer`)."""

    def models(self) -> Iterable[str]:
        """Model names a client may ask for."""
        ...

    max_body: int
    timeout_secs: float

    def requests_json(self) -> bytes:
        """The request log as a JSON array."""
        ...

    def reset(self) -> int:
        """Start a new run; its id."""
        ...


def handler_for(server: Server) -> type[BaseHTTPRequestHandler]:
    """The request handler class of `server`."""

    class Handler(ReplyHandler):
        # The socket timeout of each connection (`StreamRequestHandler` sets it); a read or
        # write that times out drops the connection (`handle_one_request` does that).
        timeout = server.timeout_secs
        max_body = server.max_body

        def _json(self, status: int, body: Any) -> None:
            self.send(Reply(status, json.dumps(body, ensure_ascii=False).encode("utf-8")))

        def do_GET(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            if is_models_route("GET", path):
                self.send(models_reply(server.models()))
            elif path == "/_zeroclaw/requests":
                self.send(Reply(200, server.requests_json()))
            else:
                self.send(error_reply(404, f"no route {self.path}", "not_found"))

        def do_POST(self) -> None:
            try:
                self._post()
            except TimeoutError:
                raise  # a stalled client gets no answer: its connection is dropped
            except Exception as exc:  # a malformed request is the client's problem: tell it
                message = f"malformed request: {type(exc).__name__}: {exc}"
                self.send(error_reply(400, message, "invalid_request_error"))

        def _post(self) -> None:
            body = self.read_body()
            if body is None:
                return
            path = self.path.split("?")[0].rstrip("/")
            if path == "/_zeroclaw/reset":
                self._json(200, {"run": server.reset()})
                return
            api = api_of("POST", path)
            if api is None:
                self.send(error_reply(404, f"no route {self.path}", "not_found"))
                return
            self.send(exchange(server, api, body))

    return Handler
