"""The model boundary: what an agent sends a provider and what it gets back.

Messages follow the OpenAI chat-completions shape (`role`, `content`, `tool_calls`,
`tool_call_id`) so the same agent can talk to the replay provider and to a real one.
The harness wraps whichever provider a case uses in `RecordingProvider`, so every reply
is recorded whatever agent is under test.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from zeroclaw_eval.record import ModelStep, RunRecord

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


@dataclass(frozen=True)
class ToolCallRequest:
    """A tool call the model asks for; `arguments` is raw JSON text, as providers send it."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ModelResponse:
    """One provider reply: text, or tool calls (optionally with some text beside them)."""

    content: str | None = None
    tool_calls: tuple[ToolCallRequest, ...] = field(default_factory=tuple)
    input_tokens: int = 0
    output_tokens: int = 0


class Provider(Protocol):
    """Anything that answers a conversation with a `ModelResponse`."""

    async def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        """Answer the conversation so far, given the tools on offer."""
        ...


class RecordingProvider:
    """Records every reply of the provider it wraps into a `RunRecord`."""

    def __init__(self, inner: Provider, record: RunRecord) -> None:
        self._inner = inner
        self._record = record
        #: Index of the turn in progress; the harness sets it before each turn.
        self.turn = 0

    async def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        """Forward to the wrapped provider and record its reply."""
        response = await self._inner.complete(messages, tools)
        calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls]
        self._record.steps.append(
            ModelStep(
                self.turn,
                response.content,
                calls,
                response.input_tokens,
                response.output_tokens,
            )
        )
        return response
