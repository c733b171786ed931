"""Every route of `zeroclaw eval serve`, in one place: the endpoint's own (`POST
…/chat/completions` and `POST …/responses`, with or without `/v1`, each answered by
`exchange`; `GET /v1/models`, the fixtures' stems), and serve's: `GET /_zeroclaw/requests`
(the run's log) and `POST /_zeroclaw/reset` (a new run). The server's HTTP side
(`wire.http`) hands each request here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Protocol

from zeroclaw_eval.serve.exchange import Backend, exchange
from zeroclaw_eval.wire.base import Reply
from zeroclaw_eval.wire.endpoint import APIS, other_route, route

#: serve's own routes (the endpoint's come first): a control route is never a model's.
REQUESTS = "/_zeroclaw/requests"
RESET = "/_zeroclaw/reset"


class Server(Backend, Protocol):
    """What the routes need of the server behind them (`ReplayServer`)."""

    def models(self) -> Iterable[str]:
        """Model names a client may ask for."""
        ...

    def requests_json(self) -> bytes:
        """The request log as a JSON array."""
        ...

    def reset(self) -> int:
        """Start a new run; its id."""
        ...


def answer(server: Server, method: str, path: str, body: bytes) -> Reply:
    """The reply to one request to `server`."""
    bare = path.split("?")[0].rstrip("/")
    if method == "GET" and bare == REQUESTS:
        return Reply(200, server.requests_json())
    if method == "POST" and bare == RESET:
        return Reply(200, json.dumps({"run": server.reset()}).encode("utf-8"))
    found = route(method, path)
    if found.api in APIS:
        return exchange(server, found, body)
    return other_route(method, path, server.models())
