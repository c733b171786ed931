"""The OpenAI Chat Completions wire format, where the harness speaks it to an agent (the
replay server, the in-process client, the front of an agent command): the tools a
request offers and what it lets the model do with them (also for Responses, whose
shapes differ only in nesting), the reply body, and the same reply as stream chunks.

A streamed reply is the list of `chat.completion.chunk` objects the official clients
accumulate: the role first, the text, each tool call (its id and name, then its
arguments), the finish reason, and a usage chunk when `stream_options.include_usage`
asks for one. Every chunk is computed up front: a scripted reply has nothing to wait for.
"""

from __future__ import annotations

from typing import Any

from zeroclaw_eval._support.json.text import arguments_text
from zeroclaw_eval.boundary.provider import (
    AUTO,
    Message,
    ModelResponse,
    ToolCallRequest,
    ToolChoice,
    ToolSpec,
)
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire.base import Reply, Store, Usage, WireRequest, event_json, json_body, unsigned

#: Text is sent in pieces of at most this many characters, so that a client which only
#: keeps the last delta (a bug worth catching) gets the answer wrong.
TEXT_PIECE = 24


def offered_specs(tools: Any) -> list[ToolSpec]:
    """The `tools` of a request as specs: the Chat Completions shape (`{"type":
    "function", "function": {...}}`) or the Responses one (the function's fields at the
    top level). Entries that are neither are skipped: what an agent sends is untrusted."""
    specs = []
    for entry in tools if isinstance(tools, list) else []:
        if not isinstance(entry, dict):
            continue
        nested = entry.get("function")
        function: dict[str, Any] = nested if isinstance(nested, dict) else entry
        spec = tool_spec(function.get("name"), function.get("description"), function.get("parameters"))
        if spec is not None:
            specs.append(spec)
    return specs


def tool_spec(name: Any, description: Any, schema: Any) -> ToolSpec | None:
    """A tool a request offers, from its fields in any API's words, as they were sent:
    None without a name; a description or a schema of the wrong type reads as none."""
    if not isinstance(name, str):
        return None
    return ToolSpec(
        name, description if isinstance(description, str) else "", schema if isinstance(schema, dict) else {}
    )


def tool_choice_of(request: dict[str, Any]) -> ToolChoice:
    """What a Chat Completions or Responses request lets the model do with its tools: its
    `tool_choice` (`none`, `auto`, `required`, a function, `allowed_tools`, or a hosted
    tool, in either API's shape) and `parallel_tool_calls`. `WireError` for a
    `tool_choice` neither API takes, which the real one would refuse as well."""
    given = request.get("tool_choice", "auto")
    parallel = request.get("parallel_tool_calls", True)
    if not isinstance(parallel, bool):
        raise WireError(400, f"parallel_tool_calls must be true or false, not {parallel!r}")
    if given in ("auto", "none", "required"):
        return ToolChoice(given, parallel=parallel)
    if isinstance(given, dict):
        kind = given.get("type")
        if kind == "function":
            # Chat nests the function ({"function": {"name": ...}}); Responses does not.
            nested = given.get("function", given)
            name = nested.get("name") if isinstance(nested, dict) else None
            if isinstance(name, str) and name:
                return ToolChoice("function", name, parallel=parallel)
        elif kind == "allowed_tools":
            nested = given.get("allowed_tools")
            rule = nested if isinstance(nested, dict) else given  # Chat nests it, Responses not
            mode, tools = rule.get("mode", "auto"), rule.get("tools")
            if mode in ("auto", "required") and isinstance(tools, list):
                allowed = frozenset(spec.name for spec in offered_specs(tools))
                return ToolChoice(mode, allowed=allowed, parallel=parallel)
        elif isinstance(kind, str) and kind:
            # A hosted tool forced (`file_search`, `web_search`...): the model calls it, no function.
            return ToolChoice("function", f"{kind} (a hosted tool)", parallel=parallel)
    raise WireError(400, f"tool_choice {given!r} is not none, auto, required, a function or allowed_tools")


def chat_tool_choice(choice: ToolChoice) -> Any:
    """`choice` as a Chat Completions request's `tool_choice` (`parallel_tool_calls` aside)."""
    if choice.mode == "function":
        return {"type": "function", "function": {"name": choice.function}}
    if choice.allowed is not None:
        tools = [{"type": "function", "function": {"name": name}} for name in sorted(choice.allowed)]
        return {"type": "allowed_tools", "allowed_tools": {"mode": choice.mode, "tools": tools}}
    return choice.mode


def error_body(status: int, message: str, kind: str) -> dict[str, Any]:
    """An OpenAI error body, which the official clients turn into their own errors."""
    return {"error": {"message": message, "type": kind, "code": status}}


def usage(response: ModelResponse) -> dict[str, int]:
    """The Chat Completions usage of `response`."""
    return {
        "prompt_tokens": response.input_tokens,
        "completion_tokens": response.output_tokens,
        "total_tokens": response.input_tokens + response.output_tokens,
    }


def finish_reason(response: ModelResponse) -> str:
    return "tool_calls" if response.tool_calls else "stop"


def completion(response: ModelResponse, model: str, number: int) -> dict[str, Any]:
    """`response` as an OpenAI chat-completion body."""
    message: dict[str, Any] = {"role": "assistant", "content": response.content}
    if response.tool_calls:
        message["tool_calls"] = [call.as_openai() for call in response.tool_calls]
    return {
        "id": f"chatcmpl-zeroclaw-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(response)}],
        "usage": usage(response),
    }


def completion_chunks(
    response: ModelResponse, model: str, number: int, *, include_usage: bool = False
) -> list[dict[str, Any]]:
    """`response` as the `chat.completion.chunk` objects of a streamed reply.

    Usage is always sent, on one chunk only (clients that sum per-chunk usage would count
    it twice): its own chunk with no choices when `stream_options.include_usage` asks for
    it, as the official API does, else on the finish chunk, so that clients which never
    ask (and would report no tokens) still get it and none meets a chunk without choices.
    """
    head = {
        "id": f"chatcmpl-zeroclaw-{number}",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
    }

    def chunk(
        delta: dict[str, Any], finish: str | None = None, spent: dict[str, int] | None = None
    ) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**head, "choices": [choice], "usage": spent}

    # The role first, and each call's id, type and name in its first delta only: the
    # official stream helpers reject a stream without them, and concatenate repeats.
    chunks = [chunk({"role": "assistant", "content": ""})]
    text = response.content or ""
    chunks.extend(chunk({"content": text[at : at + TEXT_PIECE]}) for at in range(0, len(text), TEXT_PIECE))
    for index, call in enumerate(response.tool_calls):
        opening = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        chunks.append(chunk({"tool_calls": [opening]}))
        if call.arguments:
            chunks.append(
                chunk({"tool_calls": [{"index": index, "function": {"arguments": call.arguments}}]})
            )
    if include_usage:
        chunks.append(chunk({}, finish_reason(response)))
        chunks.append({**head, "choices": [], "usage": usage(response)})
    else:
        chunks.append(chunk({}, finish_reason(response), usage(response)))
    return chunks


# The wire's interface (`wire.base.Wire`): the harness as the model, then as the client.

API = "chat.completions"
ROUTES: tuple[str, ...] = ("/chat/completions",)


def parse(request: dict[str, Any], number: int, model: str, store: Store) -> WireRequest:
    """A Chat Completions request: its `messages` as they are (the harness's own shape),
    its tools, whether it streams and asks for a usage chunk, its `tool_choice`. What the
    API requires, the wire requires: a list of one message at least (and a `model`, which
    the endpoint reads)."""
    messages = request.get("messages")
    if not isinstance(messages, list):
        raise WireError(400, "the request has no messages list")
    if not messages:  # the API's words: it asks for one message at least
        raise WireError(400, "Invalid 'messages': empty array. Expected an array with minimum length 1")
    options = request.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    stream = request.get("stream") is True
    tools = offered_specs(request.get("tools"))
    return WireRequest(
        API, number, model, messages, tools, stream, include_usage, request, choice=tool_choice_of(request)
    )


def reply(request: WireRequest, response: ModelResponse, store: Store, *, keep: bool) -> Reply:
    """`response` as a chat completion, or the stream of its chunks (`data: [DONE]` last)."""
    if request.stream:
        chunks = completion_chunks(
            response, request.model, request.number, include_usage=request.include_usage
        )
        data = b"".join(b"data: " + event_json(chunk) + b"\n\n" for chunk in chunks)
        return Reply(200, data + b"data: [DONE]\n\n", "text/event-stream")
    return Reply(200, json_body(completion(response, request.model, request.number)))


#: What a reply that cannot be read is not, for the error that says so.
SHAPE = "no choices[0].message of the chat-completions shape"
#: The key goes in a header (`client_headers`): nothing to sign.
client_signed = unsigned


def client_url(base_url: str, model: str) -> str:
    """Where a provider's chat completions are asked for."""
    return base_url.rstrip("/") + "/chat/completions"


def client_headers(key: str) -> dict[str, str]:
    """The key as a bearer token (none without a key: a local server may need none)."""
    return {"Authorization": f"Bearer {key}"} if key else {}


def client_request(
    model: str,
    messages: list[Message],
    tools: list[ToolSpec],
    choice: ToolChoice,
    *,
    temperature: float | None,
    max_tokens: int | None,
) -> dict[str, Any]:
    """A chat-completions request asking `model` what `messages` ask: the agent's tools,
    and what it asked of the model with them, reach the model."""
    body: dict[str, Any] = {"model": model, "messages": messages}
    if tools:
        body["tools"] = [tool.as_openai() for tool in tools]
        if choice != AUTO:
            body["tool_choice"] = chat_tool_choice(choice)
        if not choice.parallel:
            body["parallel_tool_calls"] = False
    if temperature is not None:
        body["temperature"] = temperature
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    return body


USAGE = Usage(
    "prompt_tokens",
    "completion_tokens",
    cached=("prompt_tokens_details", "cached_tokens"),
    reasoning=("completion_tokens_details", "reasoning_tokens"),
)


def read_reply(data: Any) -> ModelResponse:
    """The reply of a chat completion `data`: its first choice's message, the usage; an
    exception when it is not one."""
    message = data["choices"][0]["message"]
    calls = tuple(
        ToolCallRequest(
            str(call.get("id") or f"call_{index}"),
            str(call["function"]["name"]),
            arguments_text(call["function"].get("arguments")),
        )
        for index, call in enumerate(message.get("tool_calls") or ())
    )
    usage = data.get("usage")
    content = message.get("content")
    return ModelResponse(
        content if isinstance(content, str) else None,
        calls,
        *USAGE.counts(usage),
    )
