"""The tool boundary: the harness-owned `ToolBox` every dispatch goes through.

`ToolBox.call` decodes the arguments, finds the tool, runs it, and records the call, so
any agent (ours or a user's) is recorded without cooperating. An unknown tool, arguments
that are not a JSON object, or a tool that raises all become a failed tool result fed
back to the model, never a crash. The recorded calls are the canonical fact of dispatch.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from zeroclaw_eval.boundary.provider import ToolSpec, decode_arguments
from zeroclaw_eval.boundary.record import RecordedCall, RunRecord
from zeroclaw_eval.tools.tool import Tool, ToolOutcome
from zeroclaw_eval.tools.workspace import Workspace


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
            available = ", ".join(sorted(self._tools))
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
        """Whether a call of `name` is this tool box's to run."""
        return name in self._tools

    def ran(self, call_id: str) -> bool:
        """Whether a call with this id is recorded already."""
        return any(call.call_id == call_id for call in self._record.calls)

    def ran_without_id(self, name: str, arguments: str) -> RecordedCall | None:
        """The call of `name` with `arguments` this tool box ran without a call id (an MCP
        client's) and no fed-back result has claimed yet, if any."""
        received = decode_arguments(arguments)
        return next(
            (c for c in self._record.calls if not c.call_id and c.name == name and c.arguments == received),
            None,
        )

    def refuse(self, message: str, pointer: str) -> None:
        """Note a call the case does not script (`message`), at the fixture field `pointer`."""
        self.refusals.append((message, pointer))

    def observe(self, call_id: str, name: str, arguments: str, result: str, success: bool) -> None:
        """Record a call that ran outside the tool box, as the harness saw it cross a
        boundary it owns (an agent command's tool result, fed back over HTTP).

        A call this tool box already ran without a call id (one an MCP client made, which
        carries none) with the same name and arguments is that call: it takes the id, and
        keeps the result the tool returned, rather than being recorded twice."""
        if self._closed:
            raise RuntimeError("this case is over: its tools take no more calls")
        ran = self.ran_without_id(name, arguments)
        calls = self._record.calls
        if ran is not None:
            calls[calls.index(ran)] = replace(ran, call_id=call_id)
            return
        calls.append(RecordedCall(self.turn, call_id, name, decode_arguments(arguments), result, success))
