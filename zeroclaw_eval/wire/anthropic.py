"""The Anthropic Messages wire format (`POST /v1/messages`), mapped onto chat messages.

The script and its matcher speak Chat Completions; a Messages request is translated into
the same conversation, as the `anthropic` SDKs and the frameworks on them send it:

- the top-level `system` (text, or a list of text blocks) becomes a system message;
- an assistant message's `text` blocks become its content and its `tool_use` blocks its
  `tool_calls` (the `input` object written as compact JSON text); `thinking` blocks carry
  nothing the script checks and are skipped;
- a user message's `tool_result` blocks become `tool` messages, in order (a true
  `is_error` kept, so that the call counts as failed), and its other blocks, if any, one
  user message after them;
- `tools` (`name`, `description`, `input_schema`) are the tools offered; a server tool
  (`web_search_…`, `bash_…`: a `type` other than `custom`) is not a function the script
  can call, and is left out;
- `tool_choice` (`auto`, `any`, `tool`, `none`, and `disable_parallel_tool_use`) is what
  the request lets the model do.

What the API requires, the wire requires (`required_fields`): a request without `model`,
`max_tokens` or `messages` is refused with the 400 the API answers it with, so an agent
that would fail in production fails here too.

The reply is a `message` object, or the stream of server-sent events that builds one:
`message_start`, then per content block `content_block_start`, its deltas (`text_delta`,
`input_json_delta`) and `content_block_stop`, then `message_delta` (the `stop_reason` and
the usage) and `message_stop`. An error is `{"type": "error", "error": {...}}`, the body
the SDKs parse.
"""

from __future__ import annotations

from typing import Any

from zeroclaw_eval._support.json.text import arguments_text, compact_json, loads_untrusted
from zeroclaw_eval.boundary.provider import Message, ModelResponse, ToolCallRequest, ToolChoice, ToolSpec
from zeroclaw_eval.boundary.sent import message_text
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire.base import Reply, Store, Usage, WireRequest, events_reply, json_body, unsigned
from zeroclaw_eval.wire.chat import TEXT_PIECE, tool_spec

#: Assistant blocks that carry nothing the script checks.
_SKIPPED = frozenset({"thinking", "redacted_thinking"})

#: The error `type` Anthropic's API answers each status with.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "overloaded_error",
    529: "overloaded_error",
}


def request_messages(request: dict[str, Any]) -> list[Message]:
    """The chat messages a Messages request stands for: its `system`, then `messages`."""
    lead: list[Message] = []
    system = request.get("system")
    if system is not None:
        text = message_text(system)
        if text is None:
            raise WireError(400, "system must be a string or a list of text blocks")
        lead.append({"role": "system", "content": text})
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:  # the API asks for one at least
        raise WireError(400, "messages: at least one message is required")
    converted = list(lead)
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            raise WireError(400, f"messages[{index}]: role must be user or assistant")
        content = message.get("content")
        if isinstance(content, str):
            converted.append({"role": role, "content": content})
        elif not isinstance(content, list):
            raise WireError(400, f"messages[{index}]: content must be a string or a list of blocks")
        elif not content:
            raise WireError(400, f"messages[{index}]: all messages must have non-empty content")
        elif role == "assistant":
            converted.append(_assistant(content, index))
        else:
            converted.extend(_user(content, index))
    return converted


def _assistant(blocks: list[Any], index: int) -> Message:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for number, block in enumerate(blocks):
        kind = _kind(block, index, number)
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "tool_use":
            arguments = block.get("input", {})
            calls.append(
                {
                    "id": block.get("id"),
                    "type": "function",
                    "function": {"name": block.get("name"), "arguments": arguments_text(arguments)},
                }
            )
        elif kind not in _SKIPPED:
            raise WireError(
                400,
                f"messages[{index}].content[{number}] is a {kind!r} block, which this server does"
                " not take in an assistant message; send text and tool_use blocks",
            )
    message: Message = {"role": "assistant", "content": "".join(texts) if texts else None}
    if calls:
        message["tool_calls"] = calls
    return message


def _user(blocks: list[Any], index: int) -> list[Message]:
    results: list[Message] = []
    rest: list[Any] = []
    for number, block in enumerate(blocks):
        kind = _kind(block, index, number)
        if kind != "tool_result":
            rest.append(block)
            continue
        if rest:
            # As the API: the model reads the results of its calls before anything else.
            raise WireError(
                400,
                f"messages[{index}].content[{number}]: tool_result blocks must come first in a user"
                " message, before any other block",
            )
        content = block.get("content", "")
        text = message_text(content)
        result: Message = {
            "role": "tool",
            "tool_call_id": block.get("tool_use_id"),
            "content": text if text is not None else content,
        }
        if block.get("is_error") is True:
            result["is_error"] = True
        results.append(result)
    if rest:
        # Only text blocks are text: an image or a document is content the script's user
        # input is not, whatever fields it carries.
        text = message_text(rest) if all(block["type"] == "text" for block in rest) else None
        results.append({"role": "user", "content": text if text is not None else rest})
    return results


def _kind(block: Any, index: int, number: int) -> str:
    """The `type` of `messages[index].content[number]`; `WireError` for no block."""
    kind = block.get("type") if isinstance(block, dict) else None
    if not isinstance(kind, str):
        raise WireError(400, f"messages[{index}].content[{number}] is not a block with a type")
    return kind


def offered_tools(tools: Any) -> list[ToolSpec]:
    """The client tools of a request's `tools` as specs; server tools and entries that are
    not tools are skipped (what an agent sends is untrusted)."""
    specs = []
    for entry in tools if isinstance(tools, list) else []:
        if not isinstance(entry, dict) or entry.get("type", "custom") != "custom":
            continue
        spec = tool_spec(entry.get("name"), entry.get("description"), entry.get("input_schema"))
        if spec is not None:
            specs.append(spec)
    return specs


def tool_choice(request: dict[str, Any]) -> ToolChoice:
    """What a Messages request lets the model do with its tools; `WireError` for a
    `tool_choice` the API does not take."""
    given = request.get("tool_choice", {"type": "auto"})
    kind = given.get("type") if isinstance(given, dict) else None
    disabled = given.get("disable_parallel_tool_use", False) if isinstance(given, dict) else False
    if not isinstance(disabled, bool):
        raise WireError(400, f"tool_choice.disable_parallel_tool_use must be true or false, not {disabled!r}")
    parallel = not disabled
    if kind == "auto":
        return ToolChoice("auto", parallel=parallel)
    if kind == "none":
        return ToolChoice("none")
    if kind == "any":
        return ToolChoice("required", parallel=parallel)
    name = given.get("name") if isinstance(given, dict) else None
    if kind == "tool" and isinstance(name, str) and name:
        return ToolChoice("function", name, parallel=parallel)
    raise WireError(400, f"tool_choice {given!r} is not auto, any, none or a tool with its name")


def message_id(number: int) -> str:
    return f"msg_zeroclaw_{number}"


def _usage(response: ModelResponse) -> dict[str, Any]:
    return {
        "input_tokens": response.input_tokens,
        "output_tokens": response.output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _blocks(response: ModelResponse) -> list[dict[str, Any]]:
    """The content blocks of `response`: its text, then each call."""
    blocks: list[dict[str, Any]] = []
    if response.content or not response.tool_calls:
        blocks.append({"type": "text", "text": response.content or ""})
    for call in response.tool_calls:
        try:
            arguments = loads_untrusted(call.arguments or "{}")
        except ValueError:  # not JSON: the model's text as it came, which a client must cope with
            arguments = call.arguments
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments})
    return blocks


def _stop_reason(response: ModelResponse) -> str:
    return "tool_use" if response.tool_calls else "end_turn"


def message_body(response: ModelResponse, model: str, number: int) -> dict[str, Any]:
    """`response` as a Messages API `message`."""
    return {
        "id": message_id(number),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _blocks(response),
        "stop_reason": _stop_reason(response),
        "stop_sequence": None,
        "usage": _usage(response),
    }


def message_events(response: ModelResponse, model: str, number: int) -> list[dict[str, Any]]:
    """The events of a streamed reply, as the SDKs' stream accumulators read them. Text
    and tool input arrive in pieces, so that a client which keeps only the last delta (a
    bug worth catching) gets the answer wrong."""
    opening = {**message_body(response, model, number), "content": [], "stop_reason": None}
    opening["usage"] = {**_usage(response), "output_tokens": 0}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": opening}, {"type": "ping"}]
    for index, block in enumerate(_blocks(response)):
        if block["type"] == "text":
            start: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": piece} for piece in _pieces(block["text"])]
        else:
            start = {**block, "input": {}}
            # The input as JSON text, whatever it is (a string too), so that the SDKs, which
            # parse what the deltas add up to, read what the plain reply carries.
            text = compact_json(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in _pieces(text)]
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events.extend({"type": "content_block_delta", "index": index, "delta": delta} for delta in deltas)
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(response), "stop_sequence": None},
            "usage": _usage(response),
        }
    )
    events.append({"type": "message_stop"})
    return events


def _pieces(text: str) -> list[str]:
    return [text[at : at + TEXT_PIECE] for at in range(0, len(text), TEXT_PIECE)]


def error_body(status: int, message: str, kind: str = "") -> dict[str, Any]:
    """An Anthropic error body, which the SDKs raise as their own errors (its type is the
    one the API gives the status, whatever `kind` the harness names it)."""
    kind = _ERROR_TYPES.get(status, "invalid_request_error" if status < 500 else "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


# The other direction: the harness as an Anthropic client (live mode's provider).


def messages_request(messages: list[Message], tools: list[ToolSpec], choice: ToolChoice) -> dict[str, Any]:
    """The `system`, `messages`, `tools` and `tool_choice` of a Messages request asking
    what the chat `messages` ask: system and developer messages joined into `system`,
    each run of `tool` messages one user message of `tool_result` blocks (a user
    message right after them joins it: the API takes no two user messages in a row),
    an assistant's calls `tool_use` blocks."""
    system: list[str] = []
    converted: list[dict[str, Any]] = []

    def user_blocks() -> list[Any]:
        """The blocks of the last message, a user message with blocks (opened if needed)."""
        if not converted or converted[-1]["role"] != "user" or not isinstance(converted[-1]["content"], list):
            converted.append({"role": "user", "content": []})
        blocks: list[Any] = converted[-1]["content"]
        return blocks

    for message in messages:
        role = message.get("role")
        text = message_text(message.get("content"))
        if role in ("system", "developer"):
            system.append(text or "")
        elif role == "tool":
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": message.get("tool_call_id"),
                "content": text if text is not None else compact_json(message.get("content")),
            }
            if message.get("is_error") is True:
                block["is_error"] = True
            user_blocks().append(block)
        elif role == "assistant":
            blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                try:
                    arguments = loads_untrusted(function.get("arguments") or "{}")
                except ValueError:
                    arguments = {}  # what a model sent that was not JSON: no object to send back
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call.get("id"),
                        "name": function.get("name"),
                        "input": arguments,
                    }
                )
            converted.append({"role": "assistant", "content": blocks or [{"type": "text", "text": ""}]})
        elif converted and converted[-1]["role"] == "user" and isinstance(converted[-1]["content"], list):
            user_blocks().append({"type": "text", "text": text or ""})
        else:
            converted.append(
                {"role": "user", "content": text if text is not None else message.get("content")}
            )
    body: dict[str, Any] = {"messages": converted}
    if system:
        body["system"] = "\n\n".join(system)
    if tools:
        body["tools"] = [
            {
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.parameters or {"type": "object"},
            }
            for tool in tools
        ]
        body["tool_choice"] = _anthropic_choice(choice)
    return body


def _anthropic_choice(choice: ToolChoice) -> dict[str, Any]:
    if choice.mode == "none":
        return {"type": "none"}
    given: dict[str, Any] = {"auto": {"type": "auto"}, "required": {"type": "any"}}.get(
        choice.mode, {"type": "tool", "name": choice.function}
    )
    if not choice.parallel:
        given["disable_parallel_tool_use"] = True
    return given


def parsed_message(data: Any) -> ModelResponse:
    """The `ModelResponse` a Messages API `message` body holds; `KeyError`, `TypeError`
    or `ValueError` when it is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        raise ValueError("no content list of the message shape")
    texts: list[str] = []
    calls: list[ToolCallRequest] = []
    for index, block in enumerate(data["content"]):
        if block["type"] == "text":
            texts.append(str(block["text"]))
        elif block["type"] == "tool_use":
            calls.append(
                ToolCallRequest(
                    str(block.get("id") or f"toolu_{index}"),
                    str(block["name"]),
                    compact_json(block.get("input", {})),
                )
            )
    usage = data.get("usage")
    return ModelResponse(
        "".join(texts) if texts else None,
        tuple(calls),
        *USAGE.counts(usage),
    )


_QUOTED = 60  # the most characters of a refused value an error quotes
_READ, _WRITE = "cache_read_input_tokens", "cache_creation_input_tokens"
USAGE = Usage("input_tokens", "output_tokens", cached=(_READ,), more_input=(_READ, _WRITE))


def required_fields(request: dict[str, Any], model: str) -> None:
    """`WireError` for a request without what the Messages API requires besides its
    `messages` (`request_messages` reads them): a non-empty `model` (read as a string by
    the endpoint) and `max_tokens`, a whole number of tokens. The real API refuses such a
    request (400 `invalid_request_error`): an agent that never sends `max_tokens` (a
    hand-written or OpenAI-shaped client; the `anthropic` SDKs always do) must fail here,
    not in production. Only what the API refuses is refused: `max_tokens` 0 is taken (it
    warms the prompt cache), and so is what an integer field's lenient reading takes
    (`1024.0`, `"1024"`)."""
    if not model:  # the API's model is a string of 1 to 256 characters
        raise WireError(400, "the request names no model: its model is an empty string")
    if "max_tokens" not in request:
        # The words the API answers with, then why.
        raise WireError(
            400,
            "max_tokens: Field required (the Messages API refuses a request without max_tokens,"
            " the most tokens the reply may take; the anthropic SDKs always send it)",
        )
    given = request["max_tokens"]
    count = _whole_number(given)
    if count is None or count < 0:
        sent = compact_json(given)
        sent = sent if len(sent) <= _QUOTED else sent[:_QUOTED] + "…"  # what an agent sends may be long
        raise WireError(400, f"max_tokens must be a whole number of tokens, 0 or more, not {sent}")


def _whole_number(value: Any) -> int | None:
    """The integer `value` stands for, read as leniently as an integer field of the API
    may read it (a JSON number without a fraction, a string of one); None for anything
    else (null, a fraction, text, a list or an object), which no reading takes."""
    if isinstance(value, int | str):  # a bool too: a lenient integer field takes true as 1
        try:
            return int(value)
        except ValueError:
            return None
    return int(value) if isinstance(value, float) and value.is_integer() else None


# The wire's interface (`wire.base.Wire`, `wire.base.ClientWire`).

API = "messages"
ROUTES: tuple[str, ...] = ("/messages",)
#: The API version the request shapes here are written against.
VERSION = "2023-06-01"
#: `max_tokens`, which the API requires, when the provider's table does not set it.
DEFAULT_MAX_TOKENS = 4096
#: What a reply that cannot be read is not, for the error that says so.
SHAPE = "no content list of the Messages API shape"
#: The key goes in a header (`client_headers`): nothing to sign.
client_signed = unsigned


def parse(request: dict[str, Any], number: int, model: str, store: Store) -> WireRequest:
    """A Messages request as the conversation it stands for (`request_messages`), its
    client tools and `tool_choice`. Its usage is always reported, streamed or not;
    `WireError` for one without the fields the API requires (`required_fields`)."""
    required_fields(request, model)
    conversation = request_messages(request)
    tools = offered_tools(request.get("tools"))
    stream = request.get("stream") is True
    return WireRequest(
        API, number, model, conversation, tools, stream, True, request, choice=tool_choice(request)
    )


def reply(request: WireRequest, response: ModelResponse, store: Store, *, keep: bool) -> Reply:
    """`response` as a `message`, or the stream of events that builds one."""
    if request.stream:
        return events_reply(message_events(response, request.model, request.number))
    return Reply(200, json_body(message_body(response, request.model, request.number)))


def client_url(base_url: str, model: str) -> str:
    """Where a provider's messages are asked for: the SDKs' base URL has no /v1 (they add
    it); one that ends in it is taken as meant."""
    base = base_url.rstrip("/")
    return base + ("/messages" if base.endswith("/v1") else "/v1/messages")


def client_headers(key: str) -> dict[str, str]:
    """The API version pinned, and the key in `x-api-key`."""
    return {"anthropic-version": VERSION, **({"x-api-key": key} if key else {})}


def client_request(
    model: str,
    messages: list[Message],
    tools: list[ToolSpec],
    choice: ToolChoice,
    *,
    temperature: float | None,
    max_tokens: int | None,
) -> dict[str, Any]:
    """A Messages request asking `model` what the chat `messages` ask (`messages_request`),
    with `max_tokens`, which the API requires."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens or DEFAULT_MAX_TOKENS,
        **messages_request(messages, tools, choice),
    }
    if temperature is not None:
        body["temperature"] = temperature
    return body


def read_reply(data: Any) -> ModelResponse:
    """The reply a Messages API `message` holds (`parsed_message`)."""
    return parsed_message(data)
