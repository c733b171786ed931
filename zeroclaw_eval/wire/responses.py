"""The OpenAI Responses wire format (`POST /v1/responses`), mapped onto chat messages.

The script and its matcher speak Chat Completions; a Responses request is translated into
the same conversation: `instructions` become a system message, message items keep their
role (system and developer included), consecutive `function_call` items become one
assistant message's `tool_calls` (joined to the assistant text just before them, which is
how one step with text and calls comes back), and each `function_call_output` a `tool`
message. An `item_reference` stands for an output item an earlier reply produced (the
Vercel AI SDK sends earlier assistant text that way while `store` is on), read as if sent
whole. A request continuing a stored response (`previous_response_id`) starts from that
response's conversation. The reply is a `response` object, or the stream of events that
builds one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zeroclaw_eval.boundary.provider import Message, ModelResponse
from zeroclaw_eval.boundary.sent import message_text
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire import chat
from zeroclaw_eval.wire.base import Reply, Store, WireRequest, events_reply, json_body
from zeroclaw_eval.wire.chat import offered_specs, tool_choice_of

#: Input items that carry nothing the script checks (a reasoning summary).
_SKIPPED = frozenset({"reasoning"})


#: Finds the output item an earlier reply produced by its id (None: there is none).
ItemLookup = Callable[[str], "dict[str, Any] | None"]


def input_messages(items: Any, stored: ItemLookup = lambda item_id: None) -> list[Message]:
    """The chat messages `input` (a string, or a list of items) stands for; `stored`
    resolves an `item_reference`."""
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    if not isinstance(items, list):
        raise WireError(400, "input must be a string or a list of items")
    messages: list[Message] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise WireError(400, f"input[{index}] is not an object")
        if item.get("type") == "item_reference":
            item = _referenced(item.get("id"), index, stored)
        kind = item.get("type", "message")
        if not isinstance(kind, str):
            raise WireError(400, f"input[{index}].type must be a string, not {kind!r}")
        if kind == "message":
            role = item.get("role")
            messages.append({"role": role, "content": _text(item.get("content"))})
        elif kind == "function_call":
            call = {
                "id": item.get("call_id"),
                "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments", "")},
            }
            last = messages[-1] if messages else None
            if last is not None and last.get("role") == "assistant" and "tool_call_id" not in last:
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            messages.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": _text(output)})
        elif kind in _SKIPPED:
            continue
        else:
            raise WireError(
                400,
                f"input[{index}] is a {kind!r} item, which this server does not take; send messages,"
                " function_call and function_call_output items",
            )
    return messages


def _referenced(item_id: Any, index: int, stored: ItemLookup) -> dict[str, Any]:
    """The output item `input[index]`, an `item_reference`, stands for."""
    item = stored(item_id) if isinstance(item_id, str) else None
    if item is None:
        # The words OpenAI answers with, then why this server has no such item.
        raise WireError(
            400,
            f"Item with id {item_id!r} not found (input[{index}] is an item_reference): this"
            " server keeps the output items of its recent replies, except those of a request"
            " sent with store: false; send the item itself instead",
        )
    return item


def _text(content: Any) -> Any:
    """Parts' text joined (`input_text`, `output_text`), else the content as sent."""
    text = message_text(content)
    return content if text is None else text


def response_id(number: int) -> str:
    return f"resp_zeroclaw_{number}"


def response_usage(response: ModelResponse) -> dict[str, Any]:
    return {
        "input_tokens": response.input_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": response.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": response.input_tokens + response.output_tokens,
    }


def output_items(response: ModelResponse, number: int) -> list[dict[str, Any]]:
    """The output items of `response`: its text as a message, then each call."""
    items: list[dict[str, Any]] = []
    if response.content or not response.tool_calls:
        part = {"type": "output_text", "text": response.content or "", "annotations": [], "logprobs": []}
        items.append(
            {
                "type": "message",
                "id": f"msg_zeroclaw_{number}",
                "status": "completed",
                "role": "assistant",
                "content": [part],
            }
        )
    for call in response.tool_calls:
        items.append(
            {
                "type": "function_call",
                "id": f"fc_zeroclaw_{number}_{len(items)}",
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments,
                "status": "completed",
            }
        )
    return items


def response_body(
    response: ModelResponse, request: dict[str, Any], model: str, number: int, *, status: str = "completed"
) -> dict[str, Any]:
    """The `response` object answering `request` with `response`."""
    done = status == "completed"
    return {
        "id": response_id(number),
        "object": "response",
        "created_at": 0,
        "completed_at": 0 if done else None,
        "background": False,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "instructions": request.get("instructions"),
        "max_output_tokens": request.get("max_output_tokens"),
        "model": model,
        "output": output_items(response, number) if done else [],
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "previous_response_id": request.get("previous_response_id"),
        "reasoning": {"effort": None, "summary": None},
        "store": request.get("store", True),
        "temperature": request.get("temperature", 1.0),
        "text": {"format": {"type": "text"}},
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": request.get("tools") or [],
        "top_p": request.get("top_p", 1.0),
        "truncation": "disabled",
        "usage": response_usage(response) if done else None,
        "user": None,
        "metadata": request.get("metadata") or {},
    }


def response_events(
    response: ModelResponse, request: dict[str, Any], model: str, number: int
) -> list[dict[str, Any]]:
    """The events of a streamed reply, in the order the official clients expect them."""
    events: list[dict[str, Any]] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": len(events), **fields})

    pending = response_body(response, request, model, number, status="in_progress")
    emit("response.created", response=pending)
    emit("response.in_progress", response=pending)
    for index, item in enumerate(output_items(response, number)):
        if item["type"] == "message":
            _message_events(emit, item, index)
        else:
            _call_events(emit, item, index)
    emit("response.completed", response=response_body(response, request, model, number))
    return events


def _message_events(emit: Any, item: dict[str, Any], index: int) -> None:
    part = item["content"][0]
    where = {"item_id": item["id"], "output_index": index, "content_index": 0}
    emit(
        "response.output_item.added",
        output_index=index,
        item={**item, "status": "in_progress", "content": []},
    )
    emit("response.content_part.added", **where, part={**part, "text": ""})
    text = part["text"]
    for at in range(0, len(text), 24):
        emit("response.output_text.delta", **where, delta=text[at : at + 24], logprobs=[])
    emit("response.output_text.done", **where, text=text, logprobs=[])
    emit("response.content_part.done", **where, part=part)
    emit("response.output_item.done", output_index=index, item=item)


def _call_events(emit: Any, item: dict[str, Any], index: int) -> None:
    emit(
        "response.output_item.added",
        output_index=index,
        item={**item, "status": "in_progress", "arguments": ""},
    )
    where = {"item_id": item["id"], "output_index": index}
    if item["arguments"]:
        emit("response.function_call_arguments.delta", **where, delta=item["arguments"])
    emit("response.function_call_arguments.done", **where, arguments=item["arguments"], name=item["name"])
    emit("response.output_item.done", output_index=index, item=item)


def continued(conversation: list[Message], response: ModelResponse) -> list[Message]:
    """What a later request's `previous_response_id` continues: `conversation` (without
    the instructions, which do not carry over) and the reply as an assistant message."""
    reply: Message = {"role": "assistant", "content": response.content}
    if response.tool_calls:
        reply["tool_calls"] = [call.as_openai() for call in response.tool_calls]
    return [*conversation, reply]


# The wire's interface (`wire.base.Wire`): the harness as the model.

API = "responses"
ROUTES: tuple[str, ...] = ("/responses",)


def parse(request: dict[str, Any], number: int, model: str, store: Store) -> WireRequest:
    """A Responses request: the conversation of the stored response it continues (if
    any), then its `input` (references to stored items resolved), `instructions` first
    as a system message; its tools and `tool_choice`."""
    if not isinstance(request.get("store", True), bool):
        raise WireError(400, f"store must be true or false, not {request['store']!r}")
    history = store.continued(request.get("previous_response_id"))
    history = [*history, *input_messages(request.get("input", []), store.item)]
    instructions = request.get("instructions")
    lead = [{"role": "system", "content": instructions}] if isinstance(instructions, str) else []
    tools = offered_specs(request.get("tools"))
    stream = request.get("stream") is True
    return WireRequest(
        API, number, model, [*lead, *history], tools, stream, False, request, history, tool_choice_of(request)
    )


def reply(request: WireRequest, response: ModelResponse, store: Store, *, keep: bool) -> Reply:
    """`response` as a `response` object, or the stream of events that builds one; kept
    for later requests unless `keep` is off or the request said `store: false`."""
    if keep and request.body.get("store", True):
        store.keep(request, response)
    if request.stream:
        return events_reply(response_events(response, request.body, request.model, request.number))
    return Reply(200, json_body(response_body(response, request.body, request.model, request.number)))


def error_body(status: int, message: str, kind: str) -> dict[str, Any]:
    """An OpenAI error body (the Responses API's errors are the Chat Completions API's)."""
    return chat.error_body(status, message, kind)
