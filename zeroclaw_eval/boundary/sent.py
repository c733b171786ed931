"""Reading what an agent sends the model: chat messages, untrusted.

Every field is read defensively (a message may be anything a client put in the list):
a missing or mistyped field reads as None, never as an exception.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

from zeroclaw_eval.fixtures.json.text import loads_untrusted


def entry(value: Any, key: str) -> Any:
    """`value[key]` for an object, else None: what an agent sends is untrusted."""
    return value.get(key) if isinstance(value, dict) else None


def message_text(content: Any) -> str | None:
    """The text of a message's content: a string, or a list of text parts (as some
    clients send it); None for anything else."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [entry(part, "text") for part in content]
        if parts and all(isinstance(part, str) for part in parts):
            return "".join(parts)
    return None


def content_text(content: Any) -> str:
    """A message's content as text: its text (`message_text`), else its JSON (a tool
    result an agent sent back as structured content)."""
    text = message_text(content)
    return text if text is not None else json.dumps(content, ensure_ascii=False, default=str)


#: The scalar types a message is copied through: exactly these (and dict and list), so that
#: no subclass's own equality or lookup can make a changed message compare equal to a copy.
_SCALARS = (str, int, float, bool, type(None))


def plain_copy(value: Any) -> Any:
    """A deep copy of plain JSON data (dicts, lists, scalars); `ValueError` for anything else."""
    kind = type(value)
    if kind is dict:
        return {key: plain_copy(item) for key, item in value.items()}
    if kind is list:
        return [plain_copy(item) for item in value]
    if kind in _SCALARS:
        return value
    raise ValueError(f"not plain JSON data: {kind.__name__}")


#: What orjson must refuse rather than convert: a subclass of a built-in type (whose own
#: equality could lie), a dataclass, a date; `plain_copy` then says what it is.
_PLAIN_ONLY = (
    orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
)


def plain_copies(values: list[Any]) -> list[Any]:
    """`[plain_copy(value) for value in values]`, through orjson's compiled writer and
    reader when it can; what it cannot write goes to `plain_copy`, which says why.

    What orjson converts rather than refuses mostly compares unequal to its copy (a UUID
    written as text, a tuple made a list, NaN made null), so such a message is walked
    again. One exception: an enum that is also a `str` or `int` is copied as its value
    and compares equal to it by that type's own equality, which is what the walk read
    from it too (plain `plain_copy` refused it); an agent's enum that redefines `__eq__`
    could pass for a copy it is not, as any object in this process could patch the
    harness itself.
    """
    try:
        copied: list[Any] = orjson.loads(orjson.dumps(values, option=_PLAIN_ONLY))
    except orjson.JSONEncodeError:  # a lone surrogate, a key that is not a string, a big int, ...
        return [plain_copy(value) for value in values]
    return copied


@dataclass(frozen=True)
class FedBack:
    """A tool result an agent sent back, with the call it answers as the agent echoed it."""

    call_id: str
    name: str
    arguments: str
    content: str
    #: The agent said the call failed (Anthropic's `tool_result` `is_error`, kept on the
    #: `tool` message as `is_error`); False says nothing either way.
    failed: bool = False


def fed_back(messages: list[Any]) -> list[FedBack]:
    """The tool results a request sends back: the `tool` messages after its last assistant
    message, each joined to that message's call of the same id (what an agent outside the
    process ran, as the wire shows it). None once a user message follows: the results
    before it belong to a turn already over."""
    roles = [entry(message, "role") for message in messages]
    last = max((i for i, role in enumerate(roles) if role in ("assistant", "user")), default=None)
    if last is None or roles[last] == "user":
        return []
    calls: dict[str, tuple[str, str]] = {}
    for call in entry(messages[last], "tool_calls") or []:
        call_id, function = entry(call, "id"), entry(call, "function")
        name, arguments = entry(function, "name"), entry(function, "arguments")
        if isinstance(call_id, str):
            calls[call_id] = (
                name if isinstance(name, str) else "",
                arguments if isinstance(arguments, str) else "",
            )
    results = []
    for message, role in zip(messages[last + 1 :], roles[last + 1 :], strict=True):
        call_id = entry(message, "tool_call_id")
        if role != "tool" or not isinstance(call_id, str) or call_id not in calls:
            continue
        shown = content_text(entry(message, "content"))
        results.append(FedBack(call_id, *calls[call_id], shown, entry(message, "is_error") is True))
    return results


def roles_and_system_prompt(messages: list[Any]) -> tuple[list[str], str | None]:
    """The role of each message, in order (`?` for a message without one), and the text
    of the system and developer messages joined (None when there are none): what a
    record keeps of every request, read in one pass."""
    roles: list[str] = []
    texts: list[str] = []
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else None
        if not isinstance(role, str):
            roles.append("?")
            continue
        roles.append(role)
        if role == "system" or role == "developer":
            text = message_text(message.get("content"))
            if text is not None:
                texts.append(text)
    return roles, "\n".join(texts) if texts else None


# Whether a tool result an agent sends reads as a failure. An agent that runs its own
# tools says how a call went only in the result it sends the model, so the harness infers
# it, in the words the common frameworks use. It is an inference, documented as one: a
# result reads as failed when
#
# - its text begins with "error" or "an error occurred" or "encountered error" (any case):
#   "Error: …", the OpenAI Agents SDK's "An error occurred while running the tool…";
# - it begins "N validation error(s)" or ends "Fix the errors and try again." (pydantic-ai's
#   retry prompts for a tool that raised or got invalid arguments);
# - it is a JSON object with a non-null `error`, or a true `is_error` / `isError` (MCP).

_FAILED_OPENING = re.compile(
    r"(errors?\b|an error occurred|encountered error|\d+ validation errors?\b)", re.I
)
_FAILED_ENDING = "fix the errors and try again."


def inferred_success(content: str) -> bool:
    """Whether a tool result an agent sent reads as a success (see the rules above)."""
    text = content.strip()
    if _FAILED_OPENING.match(text) or text.lower().endswith(_FAILED_ENDING):
        return False
    if text.startswith("{"):
        try:
            data = loads_untrusted(text)
        except ValueError:
            return True
        if isinstance(data, dict) and (
            data.get("error") is not None or data.get("is_error") is True or data.get("isError") is True
        ):
            return False
    return True
