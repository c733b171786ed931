"""One model endpoint: the one request path of every way an agent reaches the harness's
model (`zeroclaw eval serve`, the front of an agent command or service, the in-process
client), so an agent sees the same wire whichever way it is connected.

The wires are a table (`WIRES`): each module (`chat`, `responses`, `anthropic`, `gemini`,
`bedrock`) offers
`wire.base.Wire`'s names, where its requests arrive, how one is read, how a reply and an
error are written. A request's route is read here (`route`: the wire, and the model where
the path names it), its body held to the one limit (`too_large`) and read by its wire
into one `WireRequest` (the conversation as chat messages, the tools offered, what it
lets the model do with them). Every other request is answered here (`Endpoint.take`).
The model's `ModelResponse` is written back in the shape the request asked for, plain or
streamed (`Endpoint.reply`), and what the harness refuses becomes the error the official
clients of that API raise (`refusal`). What stands between reading and replying (the
script, a live provider, serve's faults and log) is the caller's. A new wire is one
module and one row of `WIRES`.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, NamedTuple
from urllib.parse import unquote

from zeroclaw_eval._support.json.text import loads_untrusted
from zeroclaw_eval.boundary.provider import Message, ModelResponse
from zeroclaw_eval.boundary.text_echo import ToolEcho, structured
from zeroclaw_eval.errors import EvalError, WireError
from zeroclaw_eval.wire import anthropic, bedrock, chat, gemini, responses
from zeroclaw_eval.wire.base import Reply, Wire, WireRequest, json_body
from zeroclaw_eval.wire.limits import MAX_BODY, MAX_VALUES, PARSING_AT_ONCE
from zeroclaw_eval.wire.responses import continued, output_items, response_id

#: Stored Responses replies (for `previous_response_id` and `item_reference`), oldest
#: dropped first.
MAX_STORED = 1000

_NONE: frozenset[str] = frozenset()

#: Every wire the endpoint speaks, by its API's name.
WIRES: dict[str, Wire] = {
    chat.API: chat,
    responses.API: responses,
    anthropic.API: anthropic,
    gemini.API: gemini,
    bedrock.API: bedrock,
}
CHAT, RESPONSES, MESSAGES, GEMINI, CONVERSE = chat.API, responses.API, anthropic.API, gemini.API, bedrock.API
APIS = frozenset(WIRES)
#: The status of a model request no case is open for (after a case's last answer, or
#: between cases): one no official client retries. openai and anthropic retry 408, 409,
#: 429 and 5xx, google-genai 408, 429 and 5xx, botocore throttling and 5xx; a retried
#: background call would reach the next case and fail it, blamed on its script.
NO_CASE_STATUS = 400
#: `GET /v1/models`: the models a client may name.
MODELS = "models"
#: Each wire's routes, compiled: (pattern, API).
_ROUTES = [(re.compile(pattern), api) for api, wire in WIRES.items() for pattern in wire.ROUTES]


def error_reply(
    status: int, message: str, kind: str, headers: dict[str, str] | None = None, *, api: str | None = None
) -> Reply:
    """An error body in the shape of the request's `api` (OpenAI's where none is known),
    which the official clients raise as their own errors."""
    body = WIRES.get(api or CHAT, chat).error_body(status, message, kind)
    return Reply(status, json_body(body), headers=headers or {}, error=message)


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
    return Reply(200, json_body({"object": "list", "data": data}))


def route_of(method: str, path: str) -> str | None:
    """The route a request takes, with or without the `/v1` prefix (a query string and a
    trailing slash aside): the API of a request for a model's answer (`CHAT`,
    `RESPONSES`, `MESSAGES`), `MODELS`, or None for a route the endpoint does not serve."""
    return route(method, path)[0]


class Route(NamedTuple):
    """Where a request goes: its API (`route_of`), the model its path names (None: the
    body names it), and what else its path and query say (`WireRequest.path_flags`)."""

    api: str | None
    model: str | None = None
    flags: frozenset[str] = frozenset()


def route(method: str, path: str) -> Route:
    """`route_of`, and the model and flags the path names: a route's group `model`, its
    group `stream` when it matched (Gemini's `streamGenerateContent`), and `sse` for a
    query that asks for server-sent events (`alt=sse`)."""
    tail, _, query = path.partition("?")
    tail = tail.rstrip("/").removeprefix("/v1")
    if method == "GET":
        return Route(MODELS if tail == "/models" else None)
    if method != "POST":
        return Route(None)
    for pattern, api in _ROUTES:
        found = pattern.fullmatch(tail)
        if found is not None:
            groups = found.groupdict()
            flags = {"stream"} if groups.get("stream") else set()
            if "alt=sse" in query.split("&"):
                flags.add("sse")
            model = groups.get("model")
            # Bedrock's SDKs percent-encode a model id's `:` (`anthropic.claude-v2%3A1`).
            return Route(api, unquote(model) if model is not None else None, frozenset(flags))
    return Route(None)


@dataclass(frozen=True)
class _Stored:
    """A Responses reply kept for later requests: the conversation a later
    `previous_response_id` continues, and its output items by id (`item_reference`)."""

    conversation: list[Message]
    items: dict[str, dict[str, Any]]


class Endpoint:
    """Reads requests and writes replies; keeps the Responses replies that a later request
    may continue (`previous_response_id`) or refer to (`item_reference`), the newest
    `MAX_STORED` of them, as OpenAI keeps a response unless its request says `store: false`.
    With `echo="text"` each request's messages are read as an agent that writes its tool
    calls and results as text sends them (`boundary.text_echo`)."""

    def __init__(self, echo: ToolEcho = "messages") -> None:
        self._echo = echo
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
        api, model, flags = route(method, path)
        if api not in APIS:
            return other_route(method, path, models)
        try:
            return self.parse(api, body, self.number(), model, flags)
        except WireError as refused:
            return refusal(refused, api)

    def parse(
        self,
        api: str,
        body: bytes,
        number: int,
        model: str | None = None,
        flags: frozenset[str] = frozenset(),
    ) -> WireRequest:
        """The request `body` of `api` holds, numbered `number`, for `model` where the path
        names it (with the path's `flags`: `route`); `WireError` when it is not one (413
        when it holds more than `MAX_VALUES` values)."""
        if json_values(body) > MAX_VALUES:
            raise WireError(
                413,
                f"the request body holds more than {MAX_VALUES:,} JSON values (objects, arrays,"
                " strings, the items between commas), the limit of what one request may parse to",
                "request_too_large",
            )
        with _PARSING:
            parsed = self._parse(api, body, number, model)
        if flags:
            return replace(parsed, path_flags=flags, stream=parsed.stream or "stream" in flags)
        return parsed

    def _parse(self, api: str, body: bytes, number: int, model: str | None) -> WireRequest:
        try:
            request = loads_untrusted(body)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            raise WireError(400, "the request body is not a JSON object")
        named = model if model is not None else request.get("model")
        if not isinstance(named, str):
            raise WireError(400, "the request names no model")
        parsed = WIRES[api].parse(request, number, named, self)
        if self._echo == "text":
            return replace(parsed, messages=structured(parsed.messages))
        return parsed

    def reply(self, request: WireRequest, response: ModelResponse, *, keep: bool = True) -> Reply:
        """`response` in the shape `request` asked for; `keep`: a reply a later request may
        refer to is kept (not one a fault cuts off)."""
        return WIRES[request.api].reply(request, response, self, keep=keep)

    def keep(self, request: WireRequest, response: ModelResponse) -> None:
        """Keep a Responses reply for later requests (`previous_response_id`,
        `item_reference`), the newest `MAX_STORED` of them."""
        owner = response_id(request.number)
        items = {item["id"]: item for item in output_items(response, request.number)}
        with self._lock:
            self._stored[owner] = _Stored(continued(request.history, response), items)
            self._item_owner.update(dict.fromkeys(items, owner))
            while len(self._stored) > MAX_STORED:
                _, dropped = self._stored.popitem(last=False)
                for item_id in dropped.items:
                    self._item_owner.pop(item_id, None)

    def item(self, item_id: str) -> dict[str, Any] | None:
        """The output item of a kept reply with id `item_id`, if any."""
        with self._lock:
            owner = self._item_owner.get(item_id)
            return self._stored[owner].items[item_id] if owner is not None else None

    def continued(self, previous: Any) -> list[Message]:
        """The conversation of the kept reply `previous` continues (none: nothing)."""
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
