"""The message shapes an exported trace holds, as the chat messages the harness speaks.

Langfuse and LangSmith keep what the SDKs they wrap sent and got: OpenAI chat messages
(`{role, content, tool_calls, tool_call_id}`), a whole Chat Completion
(`choices[0].message`), Anthropic's Messages requests and replies (content blocks,
read as `wire.anthropic` reads them off the wire), LangChain's serialized messages (`{"lc": 1, "id": [...,
"AIMessage"], "kwargs": {...}}`, or `{"type": "ai", "data": {...}}`) and its
`generations`, or plain text. Each is read into OpenAI's chat shape
(`boundary.provider.Message`), and a reply into a `ModelResponse`.
"""

from __future__ import annotations

from typing import Any

from zeroclaw_eval._support.json.text import arguments_text
from zeroclaw_eval.boundary.provider import Message, ModelResponse, ToolCallRequest
from zeroclaw_eval.boundary.sent import entry, message_text
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire import chat
from zeroclaw_eval.wire.anthropic import parsed_message, request_messages

#: LangChain's message classes and types, by the chat role they stand for.
_LANGCHAIN_ROLES = {
    "HumanMessage": "user",
    "human": "user",
    "AIMessage": "assistant",
    "AIMessageChunk": "assistant",
    "ai": "assistant",
    "SystemMessage": "system",
    "system": "system",
    "ToolMessage": "tool",
    "tool": "tool",
}


def listed(value: Any) -> list[Any]:
    """`value` when it is a list, else an empty one: what a trace holds is untrusted."""
    return value if isinstance(value, list) else []


def _anthropic(messages: Any) -> bool:
    """Whether a message list is Anthropic's: some content is a list of `tool_use` or
    `tool_result` blocks."""
    return isinstance(messages, list) and any(
        isinstance(entry(block, "type"), str) and entry(block, "type") in ("tool_use", "tool_result")
        for message in messages
        if isinstance(entry(message, "content"), list)
        for block in entry(message, "content")
    )


def chat_messages(value: Any) -> list[Message]:
    """The chat messages `value` holds: a list of messages (of any shape above, or
    Anthropic's content blocks), a request (`{"messages": [...]}`, with Anthropic's
    `system` beside them; LangChain's batched `[[...]]` too), or text (one user message)."""
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    request = value if isinstance(value, dict) else {"messages": value}
    if _anthropic(request.get("messages")) or (isinstance(value, dict) and "system" in value):
        try:
            return request_messages(request)
        except WireError:
            pass  # not a request the Messages API would take: read message by message
    if isinstance(value, dict) and "messages" in value:
        return chat_messages(value["messages"])
    if not isinstance(value, list):
        return []
    if len(value) == 1 and isinstance(value[0], list):  # LangChain: a batch of one
        value = value[0]
    return [message for item in value if (message := chat_message(item)) is not None]


def chat_message(item: Any) -> Message | None:
    """One message of any shape above as a chat message (None: not a message)."""
    if not isinstance(item, dict):
        return None
    langchain = _langchain(item)
    if langchain is not None:
        return langchain
    role = item.get("role")
    if not isinstance(role, str):
        return None
    message: Message = {"role": role, "content": item.get("content")}
    for key in ("tool_calls", "tool_call_id", "is_error"):
        if key in item:
            message[key] = item[key]
    return message


def _langchain(item: dict[str, Any]) -> Message | None:
    """A LangChain message, serialized (`lc` constructor) or as `message_to_dict` writes it."""
    if item.get("lc") == 1 and isinstance(item.get("id"), list) and item["id"]:
        kind, data = item["id"][-1], item.get("kwargs")
    elif isinstance(item.get("type"), str) and isinstance(item.get("data"), dict):
        kind, data = item["type"], item["data"]
    else:
        return None
    role = _LANGCHAIN_ROLES.get(str(kind))
    if role is None or not isinstance(data, dict):
        return None
    message: Message = {"role": role, "content": data.get("content")}
    calls = [
        ToolCallRequest(
            str(entry(call, "id") or ""), str(entry(call, "name") or ""), arguments_text(entry(call, "args"))
        )
        for call in listed(data.get("tool_calls"))
    ]
    if calls:
        message["tool_calls"] = [call.as_openai() for call in calls]
    if role == "tool":
        message["tool_call_id"] = str(data.get("tool_call_id") or "")
        message["is_error"] = data.get("status") == "error"
    return message


def assistant_reply(message: Any) -> ModelResponse | None:
    """An assistant message as the reply it was (None: it holds no text and no call)."""
    calls = []
    for call in listed(entry(message, "tool_calls")):
        function = entry(call, "function")
        calls.append(
            ToolCallRequest(
                str(entry(call, "id") or ""),
                str(entry(function, "name") or ""),
                arguments_text(entry(function, "arguments")),
            )
        )
    text = message_text(entry(message, "content")) or None
    return ModelResponse(text, tuple(calls)) if text is not None or calls else None


def reply_of(value: Any) -> ModelResponse | None:
    """The model's reply `value` records: a Chat Completion, an assistant message (any
    shape above), LangChain's `generations`, or text."""
    if isinstance(value, str):
        return ModelResponse(value) if value else None
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("content"), list) and value.get("role", "assistant") == "assistant":
        try:  # Anthropic's Message: text and tool_use blocks
            return parsed_message(value)
        except (KeyError, TypeError, ValueError):
            return None
    choices = value.get("choices")
    if isinstance(choices, list) and choices:
        try:  # a Chat Completion, read as the live client reads one
            return chat.read_reply(value)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            return assistant_reply(entry(choices[0], "message"))
    generations = value.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0][0] if isinstance(generations[0], list) and generations[0] else generations[0]
        found = entry(first, "message")
        return reply_of(found) if found is not None else reply_of(entry(first, "text"))
    message = chat_message(value)
    return assistant_reply(message) if message is not None else None


def tool_names(definitions: Any) -> list[str]:
    """The names in a list of tool definitions (`{name}`, `{type, function: {name}}`)."""
    names = []
    for definition in listed(definitions):
        if not isinstance(definition, dict):
            continue
        function = definition.get("function")
        name = function.get("name") if isinstance(function, dict) else definition.get("name")
        if isinstance(name, str) and name:
            names.append(name)
    return names


def said(messages: list[Message]) -> tuple[tuple[str, ...], ...]:
    """The conversation a request carries, compared by what was said: each message's
    role, text and tool call ids (the agent's own framing left out)."""
    said = []
    for message in messages:
        role = entry(message, "role")
        if role in ("system", "developer"):
            continue
        calls = [str(entry(call, "id")) for call in listed(entry(message, "tool_calls"))]
        text = message_text(entry(message, "content")) or ""
        said.append((str(role), text, *calls, "|", str(entry(message, "tool_call_id"))))
    return tuple(said)
