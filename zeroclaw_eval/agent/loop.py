"""The agent under test: the protocol it implements, and the reference loop.

An agent is a black box between the two boundaries the harness owns: it gets a
provider and a tool box in an `AgentContext` and answers one user turn at a time.
`[eval].agent = "module:callable"` names a factory `(AgentContext) -> Agent`; the
harness still wraps the provider and the tools, so every agent is recorded alike.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from zeroclaw_eval.agent.inline import refuse_from_other_thread, run_now, running_inline
from zeroclaw_eval.boundary.provider import Message, ModelResponse, Provider, ToolSpec
from zeroclaw_eval.errors import IterationCapReached
from zeroclaw_eval.tools.tool import ToolOutcome

T = TypeVar("T")


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
    #: The harness's event loop, where `provider` and `tools` run (set by the harness).
    loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False, compare=False)
    #: With `[eval].mcp`: the URL of an MCP server (streamable HTTP) offering `tools`;
    #: give it to the agent's MCP client. None otherwise.
    mcp_url: str | None = None
    #: The W3C `traceparent` of this case's span in the run's trace: start the agent's
    #: own spans under it, and they join the case's results in one trace (the `otlp`
    #: report). None when the run has no trace.
    traceparent: str | None = None

    def sync(self, awaitable: Coroutine[Any, Any, T]) -> T:
        """Wait for `awaitable` (a call of `provider` or `tools`) from a synchronous
        `run_turn`, which the harness runs in a worker thread (or, for an agent with
        `inline_turns = True`, on the event loop's own thread where it can: see
        `agent.inline`): `context.sync(context.provider.complete(messages, specs))`."""
        inline = running_inline(self.loop)
        if inline is not None:
            if inline.thread != threading.get_ident():
                refuse_from_other_thread(inline, awaitable)
            return run_now(inline, awaitable)
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if self.loop is None or running is self.loop:
            awaitable.close()  # never to run: closing it spares a "never awaited" warning
            if self.loop is None:
                raise RuntimeError("this context has no event loop to run on; await the call instead")
            raise RuntimeError("sync() is for a synchronous run_turn; an async one awaits the call")
        return asyncio.run_coroutine_threadsafe(awaitable, self.loop).result()


class Agent(Protocol):
    """Answers user turns; keeps its own conversation history between them."""

    async def run_turn(self, user_input: str) -> str:
        """Handle one user message and return the final text answer."""
        ...


class SyncAgent(Protocol):
    """An agent whose `run_turn` is a plain method: the harness runs it in a worker thread,
    where it reaches the provider and the tools through `context.sync`. One that calls
    `context.sync` only from that thread and runs no event loop of its own may set
    `inline_turns = True`: where nothing it calls waits, its turns then run on the event
    loop's thread, without a thread's cost (`agent.inline`)."""

    def run_turn(self, user_input: str) -> str:
        """Handle one user message and return the final text answer."""
        ...


AgentFactory = Callable[[AgentContext], "Agent | SyncAgent"]


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
                "tool_calls": [call.as_openai() for call in response.tool_calls],
            }
        )
        for call in response.tool_calls:
            outcome = await self._tools.call(call.name, call.arguments, call.id)
            content = outcome.content if outcome.success else f"error: {outcome.content}"
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": content})


def reference_agent(context: AgentContext) -> Agent:
    """The default agent factory."""
    return ReferenceAgent(context)
