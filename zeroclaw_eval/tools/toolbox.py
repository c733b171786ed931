"""The tool boundary: the harness-owned `ToolBox` every dispatch goes through.

`ToolBox.call` decodes the arguments, finds the tool, runs it, and records the call, so
any agent (ours or a user's) is recorded without cooperating. An unknown tool, arguments
that are not a JSON object, or a tool that raises all become a failed tool result fed
back to the model, never a crash. The recorded calls are the canonical fact of dispatch.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import replace
from typing import Any

from zeroclaw_eval.boundary.provider import ToolSpec, decode_arguments, same_arguments
from zeroclaw_eval.boundary.record import RecordedCall, RunRecord
from zeroclaw_eval.tools.tool import Tool, ToolOutcome
from zeroclaw_eval.tools.workspace import Workspace

#: What an MCP client puts between the server's name and a tool's when it prefixes it.
_PREFIX_ENDS = frozenset("_-.:/")


def served_as(model_name: str, tool: str) -> bool:
    """Whether the model's call `model_name` is a call of the MCP tool `tool` as a client
    that prefixes each tool with its server's name offers it (pydantic-ai's toolsets
    loaded from an `mcpServers` file: `shop_lookup_order` for `lookup_order`), or that
    very tool. A prefixed name that ends in no served tool stays a name of its own."""
    if model_name == tool:
        return True
    cut = len(model_name) - len(tool)
    return cut > 1 and model_name.endswith(tool) and model_name[cut - 1] in _PREFIX_ENDS


class ToolBox:
    """The harness-owned tool registry: every call through it is recorded."""

    def __init__(
        self,
        tools: dict[str, Tool],
        record: RunRecord,
        workspace: Workspace | None = None,
        *,
        supervised: bool = False,
    ) -> None:
        self._tools = tools
        self._record = record
        self._workspace = workspace
        #: Supervised (live mode): a call to a tool not on offer is an approval request,
        #: denied without asking anyone; the harness fails the case for it.
        self._supervised = supervised
        self.denials: list[str] = []
        #: Calls the case does not script, said with the fixture field to fix (a tool an
        #: MCP client called that the case does not serve): each fails the case.
        self.refusals: list[tuple[str, str]] = []
        #: Index of the turn in progress; the harness sets it before each turn.
        self.turn = 0
        #: The calls running now, as (name, call id): what a turn that times out was doing.
        self.running: list[tuple[str, str]] = []
        self._closed = False

    def close(self) -> None:
        """End the case: an agent thread left running past it (a timed-out synchronous
        turn) must not dispatch into a workspace and record already graded."""
        self._closed = True

    @property
    def instant(self) -> bool:
        """Whether every tool on offer answers at once (`Tool.instant`)."""
        return all(tool.instant for tool in self._tools.values())

    def specs(self) -> list[ToolSpec]:
        """The specs of the tools on offer, for the provider request."""
        return [tool.spec for tool in self._tools.values()]

    async def call(self, name: str, arguments: str | dict[str, Any], call_id: str = "") -> ToolOutcome:
        """Dispatch one tool call and record it; never raises for a bad call."""
        if self._closed:
            raise RuntimeError("this case is over: its tools take no more calls")
        # Arguments that are not a JSON object are recorded as the raw text the model
        # sent, which is what a failing case needs to show.
        received = decode_arguments(arguments)
        outcome: ToolOutcome
        tool = self._tools.get(name)
        if tool is None and self._supervised:
            denial = f"approval denied: the model called {name!r}, which this case may not use"
            self.denials.append(denial)
            outcome = ToolOutcome(denial, False)
        elif tool is None:
            available = ", ".join(sorted(self._tools)) or "none"
            outcome = ToolOutcome(f"unknown tool {name!r}; available tools: {available}", False)
        elif not isinstance(received, dict):
            outcome = ToolOutcome(
                f"malformed arguments for {name}: expected a JSON object, got {arguments!r}", False
            )
        else:
            self.running.append((name, call_id))
            # Left in `running` when the call is cancelled (the turn's time ran out): the
            # timeout's message says what was running.
            outcome = await tool.invoke(received, self._workspace)
            self.running.remove((name, call_id))
        self._record.calls.append(
            RecordedCall(self.turn, call_id, name, received, outcome.content, outcome.success)
        )
        return outcome

    def serves(self, name: str) -> bool:
        """Whether the model's call `name` is a call of a tool this tool box runs, by that
        name or with an MCP client's prefix (`served_as`): a result sent back for it must
        come from the tool box."""
        return name in self._tools or any(served_as(name, tool) for tool in self._tools)

    def ran(self, call_id: str) -> bool:
        """Whether a call with this id is recorded already."""
        return any(call.call_id == call_id for call in self._record.calls)

    @property
    def recorded(self) -> int:
        """How many calls are recorded so far."""
        return len(self._record.calls)

    def unclaimed(self, name: str, arguments: str, *, since: int, taken: Set[int]) -> int | None:
        """The index of the first call that is the model's call `name` with `arguments`
        (equal as JSON) this tool box ran without a call id (an MCP client's) at or after
        `since`, not in `taken` and not claimed by a call id yet: a call of that very tool
        first, else of the tool the name stands for with a client's prefix
        (`served_as`); None if there is none."""
        calls = self._record.calls
        for exact in (True, False):
            for index in range(since, len(calls)):
                call = calls[index]
                if call.call_id or index in taken or (call.name == name) is not exact:
                    continue
                if (exact or served_as(name, call.name)) and same_arguments(call.arguments, arguments):
                    return index
        return None

    def dispatch_at(self, index: int) -> RecordedCall:
        return self._record.calls[index]

    def claim(self, index: int, call_id: str) -> None:
        """The id-less call at `index` is the model's call `call_id` (its result, fed back,
        said so): it takes the id and keeps the result the tool returned."""
        if self._closed:
            raise RuntimeError("this case is over: its tools take no more calls")
        calls = self._record.calls
        calls[index] = replace(calls[index], call_id=call_id)

    def refuse(self, message: str, pointer: str) -> None:
        """Note a call the case does not script (`message`), at the fixture field `pointer`."""
        self.refusals.append((message, pointer))

    def observe(self, call_id: str, name: str, arguments: str, result: str, success: bool) -> None:
        """Record a call that ran outside the tool box, as the harness saw it cross a
        boundary it owns (an agent command's tool result, fed back over HTTP)."""
        if self._closed:
            raise RuntimeError("this case is over: its tools take no more calls")
        received = decode_arguments(arguments)
        self._record.calls.append(RecordedCall(self.turn, call_id, name, received, result, success))
