"""One OpenAI-compatible endpoint: the one request path of every way an agent reaches the
harness's model (`zeroclaw eval serve`, the front of an agent command, the in-process
client), so an agent sees the same wire whichever way it is connected.

A request's route is read here (`route_of`), its body held to the one limit
(`too_large`), and a request for a model's answer read into one `WireRequest` (the
conversation as chat messages, the tools offered, what it lets the model do with them)
whichever API it came in: OpenAI Chat Completions (`…/chat/completions`) or Responses
(`…/responses`), or Anthropic Messages (`…/messages`). Every other request is answered
here (`Endpoint.take`). The model's `ModelResponse` is written back in the shape the
request asked for, plain or streamed (server-sent events) (`Endpoint.reply`), and what
the harness refuses becomes the error the official clients of that API raise
(`refusal`). What stands between reading and replying (the script, a live provider,
serve's faults and log) is the caller's.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval._support.json.text import loads_untrusted
from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, ToolChoice, ToolSpec
from zeroclaw_eval.errors import EvalError, WireError
from zeroclaw_eval.wire import anthropic
from zeroclaw_eval.wire.chat import completion, completion_chunks, error_body, offered_specs, tool_choice_of
from zeroclaw_eval.wire.limits import MAX_BODY, MAX_VALUES, PARSING_AT_ONCE
from zeroclaw_eval.wire.responses import (
    continued,
    input_messages,
    output_items,
    response_body,
    response_events,
    response_id,
)

#: Stored Responses replies (for `previous_response_id` and `item_reference`), oldest
#: dropped first.
MAX_STORED = 1000

CHAT = "chat.completions"
RESPONSES = "responses"
MESSAGES = "messages"  # Anthropic's
#: The routes that ask for a model's answer, by their API.
MODEL_ROUTES = {"/chat/completions": CHAT, "/responses": RESPONSES, "/messages": MESSAGES}
APIS = frozenset(MODEL_ROUTES.values())
#: `GET /v1/models`: the models a client may name.
MODELS = "models"


@dataclass(frozen=True)
class WireRequest:
    """A model request as the script sees it, whichever API it came in."""

    api: str
    #: The request's number: every model request is numbered as it arrives, from 1
    #: (`Endpoint.number`), answered or refused; its reply's ids carry it.
    number: int
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
    #: What the request lets the model do with the tools it offers.
    choice: ToolChoice = AUTO


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: status, content type and body."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    #: What went wrong, in words, for a log (an error reply's message).
    error: str | None = field(default=None, compare=False)


def error_reply(
    status: int, message: str, kind: str, headers: dict[str, str] | None = None, *, api: str | None = None
) -> Reply:
    """An error body in the shape of the request's `api` (OpenAI's unless it is
    Anthropic's), which the official clients raise as their own errors."""
    body = anthropic.error_body(status, message) if api == MESSAGES else error_body(status, message, kind)
    return Reply(status, _json(body), headers=headers or {}, error=message)


def refusal(error: EvalError, api: str | None = None) -> Reply:
    """What the harness refused, as the error a client raises without retrying: a request
    the endpoint cannot take with its own status, a request that left the script a 400."""
    if isinstance(error, WireError):
        return error_reply(error.status, error.message, error.kind, api=api)
    return error_reply(400, str(error), "divergence", api=api)


def too_large(length: int, limit: int = MAX_BODY, *, api: str | None = None) -> Reply | None:
    """The 413 for a request body of `length` bytes over `limit`: the one body limit,
    checked from `Content-Length` before a body is read, or from the body in hand."""
    if length <= limit:
        return None
    message = f"the request body is {length} bytes; the limit is {limit}"
    return error_reply(413, message, "request_too_large", api=api)


def other_route(method: str, path: str, models: Iterable[str] | None) -> Reply:
    """The reply to a request that asks for no model's answer: the list of `models` (None
    where there is none to list), else a 404."""
    if models is not None and route_of(method, path) == MODELS:
        return models_reply(models)
    hint = ""
    if path.split("?")[0].rstrip("/").endswith("/v1/v1/messages"):
        # The Anthropic SDKs add /v1 themselves; the Vercel AI SDK's provider does not.
        hint = ": the Anthropic SDKs add /v1 themselves, so give them the base URL without it"
    return error_reply(404, f"no route {method} {path}{hint}", "not_found")


def models_reply(names: Iterable[str]) -> Reply:
    """The `GET /v1/models` list of `names`."""
    data = [{"id": name, "object": "model", "owned_by": "zeroclaw-eval"} for name in names]
    return Reply(200, _json({"object": "list", "data": data}))


def route_of(method: str, path: str) -> str | None:
    """The route a request takes, with or without the `/v1` prefix (a query string and a
    trailing slash aside): the API of a request for a model's answer (`CHAT`,
    `RESPONSES`), `MODELS`, or None for a route the endpoint does not serve."""
    route = path.split("?")[0].rstrip("/").removeprefix("/v1")
    if method == "POST":
        return MODEL_ROUTES.get(route)
    return MODELS if method == "GET" and route == "/models" else None


@dataclass(frozen=True)
class _Stored:
    """A Responses reply kept for later requests: the conversation a later
    `previous_response_id` continues, and its output items by id (`item_reference`)."""

    conversation: list[Message]
    items: dict[str, dict[str, Any]]


class Endpoint:
    """Reads requests and writes replies; keeps the Responses replies that a later request
    may continue (`previous_response_id`) or refer to (`item_reference`), the newest
    `MAX_STORED` of them, as OpenAI keeps a response unless its request says `store: false`."""

    def __init__(self) -> None:
        self._stored: OrderedDict[str, _Stored] = OrderedDict()
        #: The response each kept output item belongs to, by the item's id.
        self._item_owner: dict[str, str] = {}
        self._lock = threading.Lock()  # the servers answer from several threads
        self._count = 0

    def forget(self) -> None:
        """Drop every stored reply, and number requests from 1 again (a new run of the
        replay server)."""
        with self._lock:
            self._stored.clear()
            self._item_owner.clear()
            self._count = 0

    def number(self) -> int:
        """The number of a model request that has just arrived: the next one."""
        with self._lock:
            self._count += 1
            return self._count

    def take(self, method: str, path: str, body: bytes, models: Iterable[str] | None) -> WireRequest | Reply:
        """A request to the endpoint: the `WireRequest` for a model's answer, or the reply
        that answers it here (the list of `models`, None where the caller lists none; a
        route the endpoint does not serve; a body it cannot read)."""
        route = route_of(method, path)
        if route not in APIS:
            return other_route(method, path, models)
        try:
            return self.parse(route, body, self.number())
        except WireError as refused:
            return refusal(refused, route)

    def parse(self, api: str, body: bytes, number: int) -> WireRequest:
        """The request `body` of `api` holds, numbered `number`; `WireError` when it is
        not one (413 when it holds more than `MAX_VALUES` values)."""
        if json_values(body) > MAX_VALUES:
            raise WireError(
                413,
                f"the request body holds more than {MAX_VALUES:,} JSON values (objects, arrays,"
                " strings, the items between commas), the limit of what one request may parse to",
                "request_too_large",
            )
        with _PARSING:
            return self._parse(api, body, number)

    def _parse(self, api: str, body: bytes, number: int) -> WireRequest:
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
        if api == MESSAGES:
            conversation = anthropic.request_messages(request)
            tools = anthropic.offered_tools(request.get("tools"))
            choice = anthropic.tool_choice(request)
            return WireRequest(api, number, model, conversation, tools, stream, True, request, choice=choice)
        if api == CHAT:
            messages = request.get("messages")
            if not isinstance(messages, list):
                raise WireError(400, "the request has no messages list")
            options = request.get("stream_options")
            include_usage = isinstance(options, dict) and options.get("include_usage") is True
            tools = offered_specs(request.get("tools"))
            choice = tool_choice_of(request)
            return WireRequest(
                api, number, model, messages, tools, stream, include_usage, request, choice=choice
            )
        if not isinstance(request.get("store", True), bool):
            raise WireError(400, f"store must be true or false, not {request['store']!r}")
        history = self._continued(request.get("previous_response_id"))
        history = [*history, *input_messages(request.get("input", []), self._item)]
        instructions = request.get("instructions")
        lead = [{"role": "system", "content": instructions}] if isinstance(instructions, str) else []
        tools = offered_specs(request.get("tools"))
        choice = tool_choice_of(request)
        return WireRequest(
            api, number, model, [*lead, *history], tools, stream, False, request, history, choice
        )

    def reply(self, request: WireRequest, response: ModelResponse, *, keep: bool = True) -> Reply:
        """`response` in the shape `request` asked for; `keep`: a Responses reply is stored
        for later requests (not one a fault cuts off, nor one whose request said
        `store: false`)."""
        number = request.number
        if request.api == MESSAGES:
            if request.stream:
                events = anthropic.message_events(response, request.model, number)
                return Reply(200, b"".join(_sse(event) for event in events), "text/event-stream")
            return Reply(200, _json(anthropic.message_body(response, request.model, number)))
        if request.api == CHAT:
            if request.stream:
                chunks = completion_chunks(
                    response, request.model, number, include_usage=request.include_usage
                )
                data = b"".join(b"data: " + _event_json(chunk) + b"\n\n" for chunk in chunks)
                return Reply(200, data + b"data: [DONE]\n\n", "text/event-stream")
            return Reply(200, _json(completion(response, request.model, number)))
        if keep and request.body.get("store", True):
            self._keep(request, response)
        if request.stream:
            events = response_events(response, request.body, request.model, number)
            return Reply(200, b"".join(_sse(event) for event in events), "text/event-stream")
        return Reply(200, _json(response_body(response, request.body, request.model, number)))

    def _keep(self, request: WireRequest, response: ModelResponse) -> None:
        owner = response_id(request.number)
        items = {item["id"]: item for item in output_items(response, request.number)}
        with self._lock:
            self._stored[owner] = _Stored(continued(request.history, response), items)
            self._item_owner.update(dict.fromkeys(items, owner))
            while len(self._stored) > MAX_STORED:
                _, dropped = self._stored.popitem(last=False)
                for item_id in dropped.items:
                    self._item_owner.pop(item_id, None)

    def _item(self, item_id: str) -> dict[str, Any] | None:
        """The output item of a kept reply with id `item_id`, if any."""
        with self._lock:
            owner = self._item_owner.get(item_id)
            return self._stored[owner].items[item_id] if owner is not None else None

    def _continued(self, previous: Any) -> list[Message]:
        if previous is None:
            return []
        with self._lock:
            stored = self._stored.get(previous) if isinstance(previous, str) else None
        if stored is None:
            raise WireError(
                400,
                f"Previous response with id {previous!r} not found: this server keeps its last"
                f" {MAX_STORED} responses, except those of a request sent with store: false;"
                " send the whole input instead",
            )
        return list(stored.conversation)


#: Parsing holds the parsed graph of a body: only `PARSING_AT_ONCE` at a time.
_PARSING = threading.BoundedSemaphore(PARSING_AT_ONCE)
#: A JSON string (one value, whatever commas its text holds), or what opens or separates values.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[{\[,]')


def json_values(body: bytes) -> int:
    """About how many values `body` parses to (an object or array opened, a comma between
    items, a string): counted in C (`bytes.count`) first, and token by token only when
    that is over `MAX_VALUES`, which a body of long texts full of commas can be (then at
    most `MAX_VALUES + 1`: enough to refuse it)."""
    plain = body.count(b"{") + body.count(b"[") + body.count(b",")
    if plain <= MAX_VALUES:
        return plain
    # Counted token by token, a string as one (commas in text are no values), and no
    # further than the limit: nothing is kept (`findall` or `sub` would make a list of
    # millions of pieces out of a body of millions of short strings).
    found = 0
    for _token in _TOKEN.finditer(body):
        found += 1
        if found > MAX_VALUES:
            break
    return found


def model_named(body: bytes) -> str | None:
    """The model a request body names, read within the same bounds as a request is (for
    a log entry of a request the endpoint refused); None when it names none, or holds
    too much to read."""
    if json_values(body) > MAX_VALUES:
        return None
    with _PARSING:
        try:
            request = loads_untrusted(body)
        except ValueError:
            return None
    model = request.get("model") if isinstance(request, dict) else None
    return model if isinstance(model, str) else None


def _sse(event: dict[str, Any]) -> bytes:
    """One server-sent event named by its type (Responses and Messages streams name theirs)."""
    return f"event: {event['type']}\n".encode() + b"data: " + _event_json(event) + b"\n\n"


def _event_json(value: Any) -> bytes:
    """One event's data line: ASCII, since some SSE readers also split lines at U+2028,
    U+2029 and U+0085, which would cut a JSON text holding them in two."""
    return json.dumps(value).encode("ascii")


def _json(value: Any) -> bytes:
    try:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (echoed from a request, or in a script) has no UTF-8: written
        # as its escape, the body is still JSON every client reads.
        return json.dumps(value).encode("ascii")
