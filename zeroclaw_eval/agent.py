"""The agent under test: its protocol, the reference loop, and loading a user's factory.

An agent is a black box between the two boundaries the harness owns: it gets a
provider and a tool box in an `AgentContext` and answers one user turn at a time.
`[eval].agent = "module:callable"` names a factory `(AgentContext) -> Agent`; the
harness still wraps the provider and the tools, so every agent is recorded alike.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from zeroclaw_eval.errors import AgentLoadError, EvalError
from zeroclaw_eval.provider import Message, ModelResponse, Provider, ToolSpec
from zeroclaw_eval.tools import ToolOutcome


class ToolDispatcher(Protocol):
    """The tool boundary as an agent sees it (implemented by `ToolBox`)."""

    def specs(self) -> list[ToolSpec]:
        """The tools on offer."""
        ...

    async def call(self, name: str, arguments: str | dict[str, Any], call_id: str = "") -> ToolOutcome:
        """Run one tool call; a bad call comes back as a failed outcome."""
        ...


@dataclass(frozen=True)
class AgentContext:
    """What the harness hands an agent factory."""

    provider: Provider
    tools: ToolDispatcher
    max_tool_iterations: int = 10


class Agent(Protocol):
    """Answers user turns; keeps its own conversation history between them."""

    async def run_turn(self, user_input: str) -> str:
        """Handle one user message and return the final text answer."""
        ...


AgentFactory = Callable[[AgentContext], Agent]


class IterationCapReached(EvalError):
    """The model kept asking for tools past `max_tool_iterations` rounds in one turn."""


class ReferenceAgent:
    """The ZeroClaw agent loop in Python.

    Per turn: ask the model; run each requested tool (several per step are allowed);
    feed every result back; stop at a text answer, or fail once the model asks for a
    tool round beyond the cap.
    """

    def __init__(self, context: AgentContext) -> None:
        self._provider = context.provider
        self._tools = context.tools
        self._cap = context.max_tool_iterations
        self.messages: list[Message] = []

    async def run_turn(self, user_input: str) -> str:
        """Run the loop for one user message."""
        self.messages.append({"role": "user", "content": user_input})
        specs = self._tools.specs()
        rounds = 0
        while True:
            response = await self._provider.complete(self.messages, specs)
            if not response.tool_calls:
                answer = response.content or ""
                self.messages.append({"role": "assistant", "content": answer})
                return answer
            if rounds >= self._cap:
                raise IterationCapReached(
                    f"iteration cap reached: the model still asked for tools after {self._cap} tool rounds"
                )
            rounds += 1
            await self._dispatch(response)

    async def _dispatch(self, response: ModelResponse) -> None:
        self.messages.append(
            {
                "role": "assistant",
                "content": response.content,
                "tool_calls": [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for call in response.tool_calls
                ],
            }
        )
        for call in response.tool_calls:
            outcome = await self._tools.call(call.name, call.arguments, call.id)
            content = outcome.content if outcome.success else f"error: {outcome.content}"
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": content})


def reference_agent(context: AgentContext) -> Agent:
    """The default agent factory."""
    return ReferenceAgent(context)


def load_agent_factory(spec: str, project_dir: Path | None = None) -> AgentFactory:
    """Import the factory named by `module:callable` (`module.sub:attr.attr` works too).

    `project_dir` (the folder of the config file) is put on `sys.path` first, as pytest
    does with its rootdir, so a module of the project imports without being installed.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise AgentLoadError(
            f"[eval].agent = {spec!r} is not of the form 'module:callable'"
            " (for example 'my_project.agents:make_agent')"
        )
    if project_dir is not None and str(project_dir) not in sys.path:
        sys.path.insert(0, str(project_dir))
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:
        raise AgentLoadError(
            f"[eval].agent: cannot import module {module_name!r}: {type(exc).__name__}: {exc}"
        ) from None
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AgentLoadError(
                f"[eval].agent: module {module_name!r} has no attribute {attribute!r}"
            ) from None
    if not callable(target):
        raise AgentLoadError(f"[eval].agent: {spec!r} is not callable")
    factory: AgentFactory = target
    return factory
