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

from zeroclaw_eval._support.frozen import quick_init
from zeroclaw_eval._support.json.text import arguments_text, loads_untrusted, quote


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
PLAIN_ONLY = (
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
        copied: list[Any] = orjson.loads(orjson.dumps(values, option=PLAIN_ONLY))
    except orjson.JSONEncodeError:  # a lone surrogate, a key that is not a string, a big int, ...
        return [plain_copy(value) for value in values]
    return copied


@quick_init
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
    last = last_of(messages, ("assistant", "user"))
    if last is None or entry(messages[last], "role") == "user":
        return []
    # `entry`, inlined here: this and `last_of` read every message a request adds.
    listed = messages[last].get("tool_calls")
    calls: dict[str, tuple[str, str]] = {}
    for call in listed if isinstance(listed, (list, tuple)) else ():
        call_id = call.get("id") if isinstance(call, dict) else None
        if not isinstance(call_id, str):
            continue
        function = call.get("function")
        name, arguments = (
            (function.get("name"), function.get("arguments")) if isinstance(function, dict) else ("", "")
        )
        calls[call_id] = (
            name if isinstance(name, str) else "",
            "" if arguments is None else arguments_text(arguments),
        )
    results = []
    for message in messages[last + 1 :]:
        if not isinstance(message, dict) or message.get("role") != "tool":
            continue
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str) or call_id not in calls:
            continue
        content = message.get("content")
        shown = content if type(content) is str else content_text(content)
        results.append(FedBack(call_id, *calls[call_id], shown, message.get("is_error") is True))
    return results


#: Characters of a request's last message quoted where an error names the request.
SAID_CHARS = 160


def request_words(messages: Any) -> str:
    """A request, as an error about one the script did not expect names it: its last
    message's role and text (cut), so a background call (a title, a summary) is known by
    what it asks."""
    if not isinstance(messages, list) or not messages:
        return "a request with no messages"
    last = messages[-1]
    role = entry(last, "role")
    text = content_text(entry(last, "content"))
    shown = quote(text, SAID_CHARS) if text else "no text"
    return f"its last message is {role if isinstance(role, str) else 'of no role'}: {shown}"


def last_of(messages: list[Any], roles: tuple[str, ...]) -> int | None:
    """The index of the last message with one of `roles`, None when none has: read from
    the end, since a request's last assistant message is near it."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, dict) and message.get("role") in roles:  # `entry`, inlined
            return index
    return None


def _role_and_system_text(message: Any) -> tuple[str, str | None]:
    """A message's role (`?` when it has none) and, for a system or developer message, its
    text (None otherwise): what a record keeps of each message."""
    role = message.get("role") if isinstance(message, dict) else None
    if not isinstance(role, str):
        return "?", None
    if role == "system" or role == "developer":
        return role, message_text(message.get("content"))
    return role, None


def roles_and_system_prompt(messages: list[Any]) -> tuple[list[str], str | None]:
    """The role of each message, in order (`?` for a message without one), and the text
    of the system and developer messages joined (None when there are none): what a
    record keeps of every request, read in one pass."""
    roles: list[str] = []
    texts: list[str] = []
    for message in messages:
        role, text = _role_and_system_text(message)
        roles.append(role)
        if text is not None:
            texts.append(text)
    return roles, "\n".join(texts) if texts else None


class SentHistory:
    """What one conversation's requests sent, request after request, read once.

    An agent resends the whole conversation with every request, so every check that reads
    a request whole is quadratic in the conversation's length. The history keeps a copy of
    the last request's messages: a request that begins with messages equal to that copy
    (`unchanged` of them) sent those again as they were, and each check reads only what
    the request adds; any other request (an agent that edited, dropped or reordered its
    history) has `unchanged` 0 and is read whole. The one who sees a request first (the
    recorder) calls `take`; the checks behind it read `unchanged`, and `requests` to know
    whether the request before was one they read too.
    """

    def __init__(self) -> None:
        #: Copies of the last request's messages, unchanged by what the agent does later.
        self._seen: list[Any] = []
        #: How many leading messages of the request in hand are the last request's, unchanged.
        self.unchanged = 0
        #: Requests taken so far (the one in hand included).
        self.requests = 0
        #: The role of each message of the request in hand. A new list per request: one
        #: published here is never changed, so a record may keep it.
        self.roles: list[str] = []
        #: The system and developer texts of the request in hand, with their message's index.
        self._system: list[tuple[int, str]] = []

    @property
    def system_prompt(self) -> str | None:
        """The request's system and developer texts joined by newlines (None: none)."""
        return "\n".join(text for _, text in self._system) if self._system else None

    def take(self, messages: list[Any]) -> None:
        """Read the next request's `messages` (before it is forwarded: the agent may change
        its list afterwards)."""
        self.requests += 1
        if type(messages) is not list:  # read once, as the checks read it, and keep nothing
            roles, joined = roles_and_system_prompt(messages)
            self._seen, self.unchanged, self.roles = [], 0, roles
            self._system = [(0, joined)] if joined is not None else []
            return
        done = len(self._seen)
        # One C-level comparison: messages equal to the copies (plain data) are the same
        # messages. Only an object whose own `__eq__` lies could pass for a copy it is not,
        # and an agent in this process could as well patch the harness.
        try:
            start = done if len(messages) >= done and self._seen == messages[:done] else 0
        except RecursionError:  # a copy nested near the limit, compared from deeper down
            start = 0
        roles = self.roles[:start]
        system = [each for each in self._system if each[0] < start] if start and self._system else []
        for index in range(start, len(messages)):
            message = messages[index]
            role = message.get("role") if type(message) is dict else None
            if type(role) is str and role != "system" and role != "developer":
                roles.append(role)  # the usual message, read as `_role_and_system_text` would
                continue
            role, text = _role_and_system_text(message)
            roles.append(role)
            if text is not None:
                system.append((index, text))
        try:
            added = plain_copies(messages[start:])
        except (ValueError, RecursionError):  # no faithful copy to compare: read the next one whole
            self._seen = []
        else:
            if start == done:
                self._seen.extend(added)  # the list is this history's own: no other holds it
            else:
                self._seen = self._seen[:start] + added
        self.unchanged, self.roles, self._system = start, roles, system


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
