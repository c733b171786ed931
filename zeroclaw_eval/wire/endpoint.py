"""One OpenAI-compatible endpoint: a request of either API in, its reply out.

Chat Completions (`…/chat/completions`) and Responses (`…/responses`), each plain or
streamed (server-sent events), are read into one `WireRequest` (the conversation as chat
messages, the tools offered) and a scripted `ModelResponse` is written back in the shape
the request asked for. The replay server, the in-process client and the front of an
agent command all speak through this, so an agent sees the same wire whichever way it
is connected.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval.boundary.provider import Message, ModelResponse, ToolSpec
from zeroclaw_eval.errors import EvalError, WireError
from zeroclaw_eval.fixtures.json.text import loads_untrusted
from zeroclaw_eval.wire.chat import completion, completion_chunks, error_body, offered_specs
from zeroclaw_eval.wire.limits import MAX_BODY
from zeroclaw_eval.wire.responses import (
    continued,
    input_messages,
    response_body,
    response_events,
    response_id,
)

#: Stored Responses conversations (for `previous_response_id`), oldest dropped first.
MAX_STORED = 1000

CHAT = "chat.completions"
RESPONSES = "responses"


@dataclass(frozen=True)
class WireRequest:
    """A model request as the script sees it, whichever API it came in."""

    api: str
    model: str
    #: The whole conversation as chat messages (`conversation.follow` reads these).
    messages: list[Message]
    tools: list[ToolSpec]
    stream: bool
    include_usage: bool
    #: The request body as sent.
    body: dict[str, Any] = field(repr=False)
    #: Responses: the conversation a later `previous_response_id` continues from.
    history: list[Message] = field(default_factory=list, repr=False)


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: status, content type and body."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def error_reply(status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> Reply:
    """An OpenAI error body, which the official clients raise as their own errors."""
    return Reply(status, _json(error_body(status, message, kind)), headers=headers or {})


def models_reply(names: Iterable[str]) -> Reply:
    """The `GET /v1/models` list of `names`."""
    data = [{"id": name, "object": "model", "owned_by": "zeroclaw-eval"} for name in names]
    return Reply(200, _json({"object": "list", "data": data}))


def is_models_route(method: str, path: str) -> bool:
    return method == "GET" and path.split("?")[0].rstrip("/") in ("/v1/models", "/models")


def api_of(method: str, path: str) -> str | None:
    """The API a route serves (with or without the `/v1` prefix), or None."""
    route = path.split("?")[0].rstrip("/").removeprefix("/v1")
    if method != "POST":
        return None
    return {"/chat/completions": CHAT, "/responses": RESPONSES}.get(route)


class Endpoint:
    """Reads requests and writes replies; keeps the Responses conversations that a later
    request may continue (`previous_response_id`), the newest `MAX_STORED` of them."""

    def __init__(self) -> None:
        self._stored: OrderedDict[str, list[Message]] = OrderedDict()
        self._lock = threading.Lock()  # the replay server answers from several threads

    def forget(self) -> None:
        """Drop every stored conversation (a new run of the replay server)."""
        with self._lock:
            self._stored.clear()

    def parse(self, api: str, body: bytes) -> WireRequest:
        """The request `body` of `api` holds; `WireError` when it is not one."""
        if len(body) > MAX_BODY:
            raise WireError(413, f"the request body is {len(body)} bytes; the limit is {MAX_BODY}")
        try:
            request = loads_untrusted(body)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            raise WireError(400, "the request body is not a JSON object")
        model = request.get("model")
        if not isinstance(model, str):
            raise WireError(400, "the request names no model")
        stream = request.get("stream") is True
        if api == CHAT:
            messages = request.get("messages")
            if not isinstance(messages, list):
                raise WireError(400, "the request has no messages list")
            options = request.get("stream_options")
            include_usage = isinstance(options, dict) and options.get("include_usage") is True
            return WireRequest(
                api, model, messages, offered_specs(request.get("tools")), stream, include_usage, request
            )
        history = self._continued(request.get("previous_response_id"))
        history = [*history, *input_messages(request.get("input", []))]
        instructions = request.get("instructions")
        lead = [{"role": "system", "content": instructions}] if isinstance(instructions, str) else []
        return WireRequest(
            api,
            model,
            [*lead, *history],
            offered_specs(request.get("tools")),
            stream,
            False,
            request,
            history,
        )

    def reply(
        self, request: WireRequest, response: ModelResponse, number: int, *, keep: bool = True
    ) -> Reply:
        """`response` in the shape `request` asked for; `keep`: a Responses reply is stored
        for a later `previous_response_id` (not one a fault cuts off)."""
        if request.api == CHAT:
            if request.stream:
                chunks = completion_chunks(
                    response, request.model, number, include_usage=request.include_usage
                )
                data = b"".join(b"data: " + _event_json(chunk) + b"\n\n" for chunk in chunks)
                return Reply(200, data + b"data: [DONE]\n\n", "text/event-stream")
            return Reply(200, _json(completion(response, request.model, number)))
        if keep:
            with self._lock:
                self._stored[response_id(number)] = continued(request.history, response)
                while len(self._stored) > MAX_STORED:
                    self._stored.popitem(last=False)
        if request.stream:
            events = response_events(response, request.body, request.model, number)
            data = b"".join(
                f"event: {event['type']}\n".encode() + b"data: " + _event_json(event) + b"\n\n"
                for event in events
            )
            return Reply(200, data, "text/event-stream")
        return Reply(200, _json(response_body(response, request.body, request.model, number)))

    async def handle(
        self,
        method: str,
        path: str,
        body: bytes,
        number: int,
        complete: Callable[[list[Message], list[ToolSpec]], Awaitable[ModelResponse]],
    ) -> Reply:
        """Answer one request with `complete` (a provider's): what the harness refuses
        (a request that left the script) is a 400 a client does not retry."""
        api = api_of(method, path)
        if api is None:
            return error_reply(404, f"no route {method} {path}", "not_found")
        try:
            request = self.parse(api, body)
        except WireError as refused:
            return error_reply(refused.status, refused.message, refused.kind)
        try:
            response = await complete(request.messages, request.tools)
        except EvalError as refused:
            return error_reply(400, str(refused), "divergence")
        return self.reply(request, response, number)

    def _continued(self, previous: Any) -> list[Message]:
        if previous is None:
            return []
        with self._lock:
            history = self._stored.get(previous) if isinstance(previous, str) else None
        if history is None:
            raise WireError(
                400,
                f"Previous response with id {previous!r} not found: this server keeps its last"
                f" {MAX_STORED} responses; send the whole input instead",
            )
        return list(history)


def _event_json(value: Any) -> bytes:
    """One event's data line: ASCII, since some SSE readers also split lines at U+2028,
    U+2029 and U+0085, which would cut a JSON text holding them in two."""
    return json.dumps(value).encode("ascii")


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")
