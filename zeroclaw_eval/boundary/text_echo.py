"""Conversations an agent writes as text: tool calls echoed in the assistant's words, results
sent back as user messages, read as the structured messages the script's walk reads.

Most agents keep the model's tool calls as it sent them (`tool_calls`) and send each
result back as a `tool` message with the call's id. Some frameworks write the whole
exchange as text instead (smolagents: an assistant message `Calling tools:\\n[{'id': ...,
'function': {'name': ..., 'arguments': {...}}}]`, then a user message
`Observation:\\n<result>`). Under `[eval].tool_echo = "text"` such a request is read here
before anything else reads it:

- an assistant message with no `tool_calls` whose text holds a list of calls (JSON or a
  Python literal, each with its id, name and arguments) is that message with those
  calls, its text before them its content;
- the user message right after it is the calls' results: one `tool` message per call,
  its text without a first line that only labels it (`Observation:`), the whole text
  each (the framework joins the results of one step, and which part is whose cannot be
  told); the walk lets it carry the next turn's input too (smolagents appends `New
  task:` to the last result of a turn).

The echo must still carry each call's id, name and arguments: the walk compares them
with the script as it compares structured echoes. Nothing else is guessed: a message
whose text holds no such list stays as it was.
"""

from __future__ import annotations

import ast
import json
from typing import Any, Literal

from zeroclaw_eval._support.json.text import arguments_text
from zeroclaw_eval.boundary.sent import entry, message_text

#: How an agent echoes its tool calls: as the model sent them, or written in its text.
ToolEcho = Literal["messages", "text"]

#: The key a `tool` message read from a user message's text carries: the walk may take
#: the next turn's input from it (`agent.conversation`).
FROM_TEXT = "zeroclaw_from_text"

#: Texts longer than this are not searched for calls: a Python literal is parsed by the
#: interpreter's own parser, whose time and memory grow with what it is given.
_MAX_TEXT = 256 * 1024
_OPEN = {"[": "]", "{": "}"}


def structured(messages: list[Any]) -> list[Any]:
    """`messages` with tool calls echoed as text read as `tool_calls`, and the user
    message after each such echo read as its results (see the module's rules). A request
    with no text echo comes back as it was."""
    out: list[Any] = []
    waiting: list[str] = []
    for message in messages:
        role = entry(message, "role")
        if role == "assistant" and not entry(message, "tool_calls"):
            read = _echoed(message)
            if read is not None:
                out.append(read)
                waiting = [call["id"] for call in read["tool_calls"]]
                continue
        elif role == "user" and waiting:
            text = _unlabelled(message_text(entry(message, "content")) or "")
            out.extend(_result(call_id, text) for call_id in waiting)
            waiting = []
            continue
        if role != "system" and role != "developer":
            waiting = []
        out.append(message)
    return out


def _result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text, FROM_TEXT: True}


def _unlabelled(text: str) -> str:
    """`text` without a first line that only labels it (smolagents' `Observation:`)."""
    first, newline, rest = text.partition("\n")
    return rest if newline and _is_label(first) else text


def _is_label(line: str) -> bool:
    return line.endswith(":") and 0 < len(line) <= 40


def _echoed(message: Any) -> dict[str, Any] | None:
    """An assistant message whose text holds a list of calls, as one with `tool_calls`."""
    text = message_text(entry(message, "content"))
    if not text or len(text) > _MAX_TEXT:
        return None
    found = calls_in_text(text)
    if found is None:
        return None
    before, calls = found
    return {"role": "assistant", "content": before or None, "tool_calls": calls}


def calls_in_text(text: str) -> tuple[str, list[dict[str, Any]]] | None:
    """The first list (or object) in `text` that is tool calls, as Chat Completions
    `tool_calls`, and the text before it stripped of its trailing label line (smolagents'
    `Calling tools:`); None when it holds none."""
    start = 0
    while True:
        start = _next_open(text, start)
        if start < 0:
            return None
        end = _closing(text, start)
        if end < 0:
            return None
        calls = _as_calls(_literal(text[start:end]))
        if calls is not None:
            before = text[:start].rstrip()
            label_at = before.rfind("\n")
            if _is_label(before[label_at + 1 :]):  # a label line, not part of what was said
                before = before[: max(label_at, 0)].rstrip()
            return before, calls
        start += 1


def _next_open(text: str, start: int) -> int:
    found = [at for at in (text.find("[", start), text.find("{", start)) if at >= 0]
    return min(found) if found else -1


def _closing(text: str, start: int) -> int:
    """The index after the bracket that closes the one at `start`, strings skipped; -1
    when it never closes."""
    stack = [_OPEN[text[start]]]
    quote = ""
    index = start + 1
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in _OPEN:
            stack.append(_OPEN[char])
        elif char in "]}":
            if char != stack.pop():
                return -1
            if not stack:
                return index + 1
        index += 1
    return -1


def _literal(segment: str) -> Any:
    """`segment` read as JSON, else as a Python literal (smolagents writes the calls with
    `str()`); None when it is neither. `ast.literal_eval` evaluates literals only, never
    code."""
    try:
        return json.loads(segment)
    except ValueError:
        pass
    try:
        return ast.literal_eval(segment)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _as_calls(value: Any) -> list[dict[str, Any]] | None:
    """`value` as Chat Completions tool calls when it is a list of calls (or one call):
    each an object with a `name` and `arguments`, at its top or under `function`."""
    items = [value] if isinstance(value, dict) else value
    if not isinstance(items, list) or not items:
        return None
    calls = []
    for item in items:
        if not isinstance(item, dict):
            return None
        nested = item.get("function")
        function: dict[Any, Any] = nested if isinstance(nested, dict) else item
        name = function.get("name")
        if not isinstance(name, str) or "arguments" not in function:
            return None
        call_id = item.get("id")
        arguments = function["arguments"]
        try:
            arguments = arguments if isinstance(arguments, str) else arguments_text(arguments)
        except (TypeError, ValueError):  # a literal JSON has no spelling for (a set, bytes)
            return None
        calls.append(
            {
                "id": call_id if isinstance(call_id, str) else "",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": arguments,
                },
            }
        )
    return calls
