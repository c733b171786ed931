"""The model boundary: what an agent sends a provider and what it gets back.

Messages follow the OpenAI chat-completions shape (`role`, `content`, `tool_calls`,
`tool_call_id`) so the same agent can talk to the replay provider and to a real one.
These are the types a custom agent is written against; the harness wraps whichever
provider a case uses (`record.RecordingProvider`), so every reply is recorded whatever
agent is under test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import orjson

from zeroclaw_eval._support.frozen import quick_init
from zeroclaw_eval._support.json.text import json_equal, loads_strict
from zeroclaw_eval.boundary.sent import PLAIN_ONLY

#: One chat message: `{"role": ..., "content": ..., "tool_calls"?: ..., "tool_call_id"?: ...}`.
Message = dict[str, Any]


@dataclass(frozen=True)
class ToolSpec:
    """A tool as a model sees it: a name, what it does, and a JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]

    def as_openai(self) -> dict[str, Any]:
        """This tool in the `tools` shape of an OpenAI chat-completions request."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@quick_init
@dataclass(frozen=True)
class ToolCallRequest:
    """A tool call the model asks for; `arguments` is raw JSON text, as providers send it."""

    id: str
    name: str
    arguments: str

    def as_openai(self) -> dict[str, Any]:
        """This call in the `tool_calls` shape of an OpenAI assistant message."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


def decode_arguments(arguments: str | dict[str, Any]) -> dict[str, Any] | str:
    """Tool-call arguments as a tool receives them: the JSON object the text holds, else
    the raw text itself (a model's malformed arguments are kept as it sent them).

    Blank text is an empty object: providers send `""` for a call without arguments.
    """
    if not isinstance(arguments, str):
        return arguments
    if not arguments.strip():
        return {}
    try:
        parsed = loads_strict(arguments)
    except ValueError:
        return arguments
    return parsed if isinstance(parsed, dict) else arguments


def same_arguments(received: Any, sent: str) -> bool:
    """Whether a tool received the arguments the model sent as text: equal as JSON
    (`json_equal`) to the object the text holds, or, for text that holds none, that very
    text (what `decode_arguments` hands the tool)."""
    if type(received) is dict:
        # The usual case, without parsing: the text is, byte for byte, what orjson writes
        # of the object (a scripted call's text is, unless a float in it is spelled
        # otherwise by the two writers, 1e-07 against 1e-7: then it goes the long way).
        # orjson writes NaN and the infinities as null, so an object written with a null
        # is compared the long way; what it cannot write as plain JSON (a subclass, a
        # big int) is too.
        try:
            written = orjson.dumps(received, option=PLAIN_ONLY)
        except orjson.JSONEncodeError:
            written = b""
        if written and b"null" not in written and written == sent.encode("utf-8", "surrogatepass"):
            return True
    asked = decode_arguments(sent)
    if isinstance(received, dict) and isinstance(asked, dict):
        return json_equal(received, asked)
    return type(received) is type(asked) and bool(received == asked)


def echoed_as_sent(echoed: Any, sent: str) -> bool:
    """Whether the arguments an agent echoes back in its history, with a call the model
    made, are those the model sent as the text `sent`: that very text, or the same
    arguments as a tool receives them (`same_arguments`: equal as JSON, blank text or
    none at all being `{}`); text the model sent that holds no JSON object may also come
    back as a JSON string of it (a client of the Anthropic Messages API echoes a
    `tool_use` input as it got it). An agent that echoes other arguments tells the model
    it asked for something it did not: the conversation it sends is not the one it had."""
    if echoed == sent:
        return True  # the usual echo, as it came: no parsing
    if echoed is None:
        echoed = ""
    received = decode_arguments(echoed) if isinstance(echoed, str) else echoed
    if isinstance(received, str) and isinstance(decode_arguments(sent), str):
        try:
            quoted = loads_strict(received)
        except ValueError:
            quoted = None
        if quoted == sent:
            return True
    return same_arguments(received, sent)


@quick_init
@dataclass(frozen=True)
class ModelResponse:
    """One provider reply: text, or tool calls (optionally with some text beside them)."""

    content: str | None = None
    tool_calls: tuple[ToolCallRequest, ...] = ()
    #: Every input token the reply counts, those read from a prompt cache included.
    input_tokens: int = 0
    #: Every output token, reasoning (thinking) included.
    output_tokens: int = 0
    #: Of the input, those read from the provider's prompt cache (billed cheaper); None:
    #: the reply does not say (missing is not zero).
    cached_input_tokens: int | None = None
    #: Of the output, the model's reasoning; None: the reply does not say.
    reasoning_tokens: int | None = None
    #: Whether the reply said its usage at all: a live reply without one counts no
    #: tokens, which is no measure of what it cost (a scripted reply's are the script's).
    usage_known: bool = True


@dataclass(frozen=True)
class ToolChoice:
    """What a request lets the model do with the tools it offers (its `tool_choice` and
    `parallel_tool_calls`, in whichever API's words): `mode` is `auto` (call any tool or
    none), `none` (call none), `required` (call at least one), or `function` (call the one
    tool named `function`); `allowed` narrows the tools it may call (None: every tool
    offered); `parallel` false allows one call per reply at most. `said`: the setting as
    the request wrote it, for a wire whose setting is not `tool_choice` (Gemini's
    `toolConfig.functionCallingConfig {...}`), so a divergence quotes what was sent."""

    mode: Literal["auto", "none", "required", "function"] = "auto"
    function: str | None = None
    allowed: frozenset[str] | None = None
    parallel: bool = True
    said: str = field(default="", compare=False)


#: What a request that says nothing about tool use lets the model do: anything.
AUTO = ToolChoice()


class Provider(Protocol):
    """Anything that answers a conversation with a `ModelResponse`."""

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        """Answer the conversation so far, given the tools on offer and what the request
        lets the model do with them."""
        ...
