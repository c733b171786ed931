"""What every wire speaks in: the model request read off the wire (`WireRequest`), the
HTTP answer written back (`Reply`), the bodies and server-sent events they are made of,
and the interface each wire module offers (`Wire`), as httpx's transports share one
base. A wire is a module (`chat`, `responses`, `anthropic`, `gemini`, `bedrock`) that
offers `Wire`'s names; `endpoint.WIRES` is the table of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol

from zeroclaw_eval._support.json.counts import MAX_COUNT
from zeroclaw_eval.boundary.provider import (
    AUTO,
    Message,
    ModelResponse,
    ToolChoice,
    ToolSpec,
    decode_arguments,
)
from zeroclaw_eval.boundary.sent import message_text
from zeroclaw_eval.errors import ReplyValueError


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
    #: What the request's path and query say besides its model (`endpoint.route`):
    #: `stream` (Gemini's `streamGenerateContent`, Bedrock's `converse-stream`), `sse`
    #: (Gemini's `?alt=sse`).
    path_flags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: status, content type and body."""

    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    #: What went wrong, in words, for a log (an error reply's message).
    error: str | None = field(default=None, compare=False)


class Store(Protocol):
    """What the endpoint keeps between requests, for a wire whose requests may refer to
    an earlier reply (the Responses API's `previous_response_id` and `item_reference`)."""

    def continued(self, previous: Any) -> list[Message]:
        """The conversation of the kept reply `previous` continues (`WireError` if none)."""
        ...

    def item(self, item_id: str) -> dict[str, Any] | None:
        """The output item of a kept reply with id `item_id`, if any."""
        ...

    def keep(self, request: WireRequest, response: ModelResponse) -> None:
        """Keep `response` to `request` for later requests."""
        ...


class Wire(Protocol):
    """The names a wire module offers: where its requests arrive, how one is read, how the
    model's answer and an error are written back (the harness as the model), and, for a
    wire the live client speaks, how a request is written and its reply read (the harness
    as the client)."""

    #: The API's name, as `WireRequest.api` carries it.
    API: str
    #: The paths of its model requests (after an optional `/v1`), as regular expressions;
    #: a group named `model` reads the model from the path.
    ROUTES: tuple[str, ...]

    def parse(self, request: dict[str, Any], number: int, model: str, store: Store) -> WireRequest:
        """The request `body` stands for, numbered `number`, for `model` (the body's, or
        the path's); `WireError` when it is not one."""
        ...

    def reply(self, request: WireRequest, response: ModelResponse, store: Store, *, keep: bool) -> Reply:
        """`response` in the shape `request` asked for, plain or streamed; `keep`: the
        reply may be kept for later requests (`Store.keep`)."""
        ...

    def error_body(self, status: int, message: str, kind: str) -> dict[str, Any]:
        """An error body of this API, which its official clients raise as their own."""
        ...


class ClientWire(Protocol):
    """A wire the live client speaks: its URL and headers, its request, its reply read."""

    def client_url(self, base_url: str, model: str) -> str:
        """Where its model requests for `model` go, from the provider's base URL (a wire
        that names the model in the path puts it there)."""
        ...

    def client_headers(self, key: str) -> dict[str, str]:
        """The headers that carry the API key (and the API's version, where it has one)."""
        ...

    def client_signed(self, url: str, headers: dict[str, str], body: bytes, key: str) -> dict[str, str]:
        """The headers of one request to `url` as sent: `headers` as they are, or with a
        signature of the request (`body` and all) where the API wants one (Bedrock)."""
        ...

    def client_request(
        self,
        model: str,
        messages: list[Message],
        tools: list[ToolSpec],
        choice: ToolChoice,
        *,
        temperature: float | None,
        max_tokens: int | None,
    ) -> dict[str, Any]:
        """The request body asking `model` what `messages` ask, with `tools` offered."""
        ...

    def read_reply(self, data: Any) -> ModelResponse:
        """The model's reply a response body holds; `KeyError`, `IndexError`, `TypeError`,
        `AttributeError` or `ValueError` when it is not one."""
        ...

    #: What a reply that cannot be read is not, for the error that says so.
    SHAPE: str


@dataclass
class Said:
    """One message of a conversation as a client wire writes it back (`client_turns`): a
    user's text, an assistant's text and calls, or the results of one step's calls."""

    role: str  # "user", "assistant" or "results"
    text: str | None = None
    #: An assistant's calls: (id, name, the arguments as an object; `{}` for any other).
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    #: A step's results: (the call's id, its name, the result's text, whether it failed).
    results: list[tuple[str, str, str, bool]] = field(default_factory=list)


def client_turns(messages: list[Message]) -> tuple[list[str], list[Said]]:
    """The system texts and the turns of chat `messages`, for a wire whose messages are
    built of parts (Gemini's, Bedrock's): each run of tool messages one turn of results,
    each result named by the call it answers, every text read as the script reads it
    (`message_text`)."""
    system: list[str] = []
    turns: list[Said] = []
    names: dict[str, str] = {}
    for message in messages:
        role, text = message.get("role"), message_text(message.get("content"))
        if role in ("system", "developer"):
            system.append(text or "")
        elif role == "assistant":
            said = Said("assistant", text or None)
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                call_id, name = str(call.get("id") or ""), str(function.get("name") or "")
                names[call_id] = name
                arguments = decode_arguments(function.get("arguments") or "{}")
                said.calls.append((call_id, name, arguments if isinstance(arguments, dict) else {}))
            turns.append(said)
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            result = (call_id, names.get(call_id, ""), text or "", message.get("is_error") is True)
            if not turns or turns[-1].role != "results":
                turns.append(Said("results"))
            turns[-1].results.append(result)
        else:
            turns.append(Said("user", text or ""))
    return system, turns


def unsigned(url: str, headers: dict[str, str], body: bytes, key: str) -> dict[str, str]:
    """`ClientWire.client_signed` of a wire whose key goes in a header of its own."""
    return headers


def usage_tokens(usage: Any, key: str) -> int:
    """The token count `usage[key]` of a provider's reply: 0 when the reply says none (no
    `usage`, or the key absent or null); `ValueError` for anything but a whole number from
    0 to `MAX_COUNT`. A count a reply makes up (`Infinity`, `-1`, 4,000 digits) would
    otherwise crash the run, or pass a budget check, or be recorded into a fixture that
    admission then refuses. (A `ValueError`: every reader of a reply catches those.)"""
    value = usage.get(key) if isinstance(usage, dict) else None
    if value is None:
        return 0
    if type(value) is int and 0 <= value <= MAX_COUNT:
        return value
    # Never `str` of a huge integer: Python refuses to write one of over 4,300 digits.
    shown = "a larger number" if type(value) is int and value > 0 else repr(value)[:40]
    raise ReplyValueError(f"usage.{key} is no token count (a whole number from 0 to {MAX_COUNT}): {shown}")


@dataclass(frozen=True)
class Usage:
    """Where a wire's reply says its token counts, read so every wire counts alike
    (`ModelResponse`): all input, cache reads included; all output, reasoning included;
    and of them the cached input and the reasoning, None where the reply has no such
    count (missing is not zero). A key path names a nested object's key after its own."""

    input: str
    output: str
    cached: tuple[str, ...] = ()
    reasoning: tuple[str, ...] = ()
    #: Counts a wire reports beside the input or the output rather than inside it
    #: (Anthropic's and Bedrock's cache reads and writes, Gemini's thoughts): added.
    more_input: tuple[str, ...] = ()
    more_output: tuple[str, ...] = ()

    def counts(self, usage: Any) -> tuple[int, int, int | None, int | None, bool]:
        """Input, output, cached input and reasoning tokens of a reply's `usage`, and
        whether the reply said its usage at all."""
        inside = usage if isinstance(usage, dict) else {}
        input_tokens = sum(usage_tokens(inside, key) for key in (self.input, *self.more_input))
        output_tokens = sum(usage_tokens(inside, key) for key in (self.output, *self.more_output))
        return (
            input_tokens,
            output_tokens,
            _nested_count(inside, self.cached),
            _nested_count(inside, self.reasoning),
            isinstance(usage, dict),
        )


def _nested_count(usage: dict[str, Any], path: tuple[str, ...]) -> int | None:
    """The count at `path` in `usage` (None when the reply has none there)."""
    if not path:
        return None
    owner: Any = usage
    for key in path[:-1]:
        owner = owner.get(key) if isinstance(owner, dict) else None
    if not isinstance(owner, dict) or owner.get(path[-1]) is None:
        return None
    return usage_tokens(owner, path[-1])


def json_body(value: Any) -> bytes:
    """A JSON body as UTF-8 (non-ASCII kept); a lone surrogate (echoed from a request, or in
    a script), which has no UTF-8, written as its escape, so the body is still JSON every
    client reads."""
    try:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value).encode("ascii")


def event_json(value: Any) -> bytes:
    """One event's data line: ASCII, since some SSE readers also split lines at U+2028,
    U+2029 and U+0085, which would cut a JSON text holding them in two."""
    return json.dumps(value).encode("ascii")


def sse(event: dict[str, Any]) -> bytes:
    """One server-sent event named by its type (Responses and Messages streams name theirs)."""
    return f"event: {event['type']}\n".encode() + b"data: " + event_json(event) + b"\n\n"


def events_reply(events: list[dict[str, Any]]) -> Reply:
    """A stream of named server-sent events, whole."""
    return Reply(200, b"".join(sse(event) for event in events), "text/event-stream")
