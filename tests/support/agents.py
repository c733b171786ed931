"""Agents the tests run in place of the reference loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from zeroclaw_eval.agent.loop import AgentContext, ReferenceAgent
from zeroclaw_eval.boundary.provider import Message, ToolCallRequest


class RaisingAgent:
    """Makes one echo call, then raises."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    async def run_turn(self, user_input: str) -> str:
        """Call echo, then fail with `ValueError("agent exploded")`."""
        await self.context.tools.call("echo", {"message": "before the crash"}, "r1")
        raise ValueError("agent exploded")


class Rewriting(ReferenceAgent):
    """The reference loop, but each tool result goes through `rewrite` before it is sent;
    `dispatch` says whether the call runs through the harness's tools at all, `with_ids`
    whether it passes the call's id when it does, `reverse` whether a reply's calls run
    last first, `redirect` what runs in a call's place (its name and arguments text in,
    a name and arguments out), `echo` the arguments text each call is echoed back with
    in the history (its name and arguments in), and `mark` (when set) the `is_error` a
    result is sent with, from whether the call succeeded."""

    rewrite: Callable[[str, bool], str] = staticmethod(lambda content, success: content)
    dispatch = True
    with_ids = True
    reverse = False
    redirect: Callable[[str, str], tuple[str, Any]] = staticmethod(lambda name, arguments: (name, arguments))
    echo: Callable[[str, str], str] = staticmethod(lambda name, arguments: arguments)
    mark: Callable[[bool], bool] | None = None

    async def _dispatch(self, response: Any) -> None:
        echoed = [
            ToolCallRequest(call.id, call.name, type(self).echo(call.name, call.arguments)).as_openai()
            for call in response.tool_calls
        ]
        self.messages.append({"role": "assistant", "content": response.content, "tool_calls": echoed})
        outcomes: dict[str, tuple[str, bool]] = {}
        calls = list(response.tool_calls)
        for call in reversed(calls) if self.reverse else calls:
            outcomes[call.id] = ("made up", True)
            if self.dispatch:
                name, arguments = type(self).redirect(call.name, call.arguments)
                outcome = await self._tools.call(name, arguments, call.id if self.with_ids else "")
                outcomes[call.id] = (outcome.content, outcome.success)
        for call in calls:
            content, success = outcomes[call.id]
            sent: Message = {
                "role": "tool",
                "tool_call_id": call.id,
                "content": type(self).rewrite(content, success),
            }
            mark = type(self).mark
            if mark is not None:
                sent["is_error"] = mark(success)
            self.messages.append(sent)


def rewriting(**overrides: Any) -> Callable[[AgentContext], Rewriting]:
    kind = type(
        "Variant",
        (Rewriting,),
        {key: staticmethod(value) if callable(value) else value for key, value in overrides.items()},
    )
    return lambda context: kind(context)


class SyncLoop:
    """The reference loop written synchronously: every provider and tool call through
    `context.sync`; `threads` names the thread each turn ran on, and `sent` is what a
    tool result becomes before it is sent back (the result itself, for an honest agent)."""

    def __init__(self, context: AgentContext) -> None:
        self.context = context
        self.messages: list[Message] = []
        self.threads: list[str] = []

    def sent(self, content: str) -> str:
        return content

    def run_turn(self, user_input: str) -> str:
        """Ask the model, run its calls, send the results back, until it answers."""
        self.threads.append(threading.current_thread().name)
        sync, provider, tools = self.context.sync, self.context.provider, self.context.tools
        self.messages.append({"role": "user", "content": user_input})
        while True:
            reply = sync(provider.complete(self.messages, tools.specs()))
            if not reply.tool_calls:
                self.messages.append({"role": "assistant", "content": reply.content})
                return reply.content or ""
            calls = [call.as_openai() for call in reply.tool_calls]
            self.messages.append({"role": "assistant", "content": reply.content, "tool_calls": calls})
            for call in reply.tool_calls:
                outcome = sync(tools.call(call.name, call.arguments, call.id))
                self.messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": self.sent(outcome.content)}
                )


class InlineSyncLoop(SyncLoop):
    """`SyncLoop`, allowing the harness to run its turns on the event loop's thread."""

    inline_turns = True


class CancelsItsOwnTask(ReferenceAgent):
    """The reference loop, except that it cancels the task running it where its user
    says `CUE`."""

    CUE = "cancel me"

    async def run_turn(self, user_input: str) -> str:
        if self.CUE in user_input:
            current = asyncio.current_task()
            assert current is not None
            current.cancel()
            await asyncio.sleep(0)
        return await super().run_turn(user_input)
