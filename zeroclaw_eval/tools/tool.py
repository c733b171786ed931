"""What a tool is to the harness: its spec, the function that does its work, and the
outcome a call comes back as.

A tool never raises at its caller: `Tool.invoke` turns a refusal (`ToolRefused`: a
missing argument, a path outside the workspace) or any exception into a failed
`ToolOutcome`, whose text goes back to the model. What a tool returns becomes the
outcome's text: a string as it is, a `ToolOutcome` as it says, anything else as compact
JSON (a dict's keys in their order, non-ASCII kept).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zeroclaw_eval._support.frozen import quick_init
from zeroclaw_eval._support.json.text import compact_json
from zeroclaw_eval._support.threads import in_thread
from zeroclaw_eval.boundary.provider import ToolSpec
from zeroclaw_eval.errors import ToolRefused, exception_words, is_interruption
from zeroclaw_eval.tools.workspace import Workspace


@quick_init
@dataclass(frozen=True)
class ToolOutcome:
    """What a dispatch returns to the agent."""

    content: str
    success: bool


#: What a tool does with a call's arguments: its result text, a `ToolOutcome`, or data
#: written back as JSON; an awaitable of one of those for an async tool.
ToolFunction = Callable[[dict[str, Any], "Workspace | None"], Any]


@dataclass(frozen=True)
class Tool:
    """A tool as the harness runs it: its spec, what it does, and how to run that."""

    spec: ToolSpec
    run: ToolFunction
    needs_workspace: bool = False
    #: A plain function that may block (a project's tool): it runs in a worker thread.
    blocking: bool = False
    #: It answers at once, never waiting on the event loop (a built-in tool, a double),
    #: so a synchronous turn running on the loop's thread may call it (`agent.inline`).
    instant: bool = True

    async def invoke(self, arguments: dict[str, Any], workspace: Workspace | None) -> ToolOutcome:
        """Run the tool; a refusal or an exception is a failed outcome, never raised."""
        try:
            result = (
                await in_thread(self.run, arguments, workspace)
                if self.blocking
                else self.run(arguments, workspace)
            )
            # A result text needs no further look (the built-in tools' answer, each call).
            if type(result) is not str and inspect.isawaitable(result):
                result = await result
        except ToolRefused as exc:
            return ToolOutcome(str(exc), False)
        except BaseException as exc:  # `sys.exit` or an exception class of its own too
            if is_interruption(exc):  # the turn's time is up, or the run is stopping
                raise
            return ToolOutcome(f"{self.spec.name} raised {exception_words(exc)}", False)
        return _outcome(result)


def _outcome(result: Any) -> ToolOutcome:
    if isinstance(result, ToolOutcome):
        return result
    if isinstance(result, str):
        return ToolOutcome(result, True)
    try:
        return ToolOutcome(compact_json(result), True)
    except (TypeError, ValueError):  # not JSON data: its text is the best there is
        return ToolOutcome(str(result), True)
