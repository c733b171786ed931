"""The tool results an agent sends the model, checked against what its tools returned.

An agent that runs the harness's tools (an agent of this process) dispatches each call
through the tool box, which records the result the tool returned: the dispatch list is
the fact. Each request after a reply that called tools must send back, for each of those
calls, that result: a result that reaches the model changed (or one made up for a call no
tool ran) would let an agent that feeds the model garbage pass, since every check grades
what the tool returned. So it is a run error at the call's field, in replay and in live
mode alike. (An agent command runs its own tools: what it sends back is all the harness
sees of them, and is what its dispatch list records.)

What counts as the result sent back, a documented and minimal normalisation:

- the text as the tool returned it, or with the whitespace around it trimmed;
- the same JSON value written another way, for a result that is JSON text (a framework
  that reads and writes it again);
- for a call that failed, any text that holds the failure's message (frameworks say so
  in words of their own: "error: …", a retry prompt).
"""

from __future__ import annotations

from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, Provider, ToolChoice, ToolSpec
from zeroclaw_eval.boundary.record import RecordedCall, RunRecord
from zeroclaw_eval.boundary.sent import FedBack, fed_back
from zeroclaw_eval.errors import RunError
from zeroclaw_eval.fixtures.json.text import json_equal, loads_untrusted, quote


class ResultsChecked:
    """A provider that first checks the tool results each request sends back (see the
    module), then asks the provider it wraps. The first problem is kept in `divergence`,
    even if the agent swallows the exception raised for it."""

    def __init__(self, inner: Provider, record: RunRecord, *, scripted: bool) -> None:
        self._inner = inner
        self._record = record
        #: Replay: a problem points at the scripted call; live mode has no script to point into.
        self._scripted = scripted
        self._last: ModelResponse | None = None
        #: How many calls were recorded when the last reply was made: the ones after it
        #: are the dispatches of that reply's calls.
        self._mark = 0
        self.divergence: RunError | None = None

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        """Check what `messages` send back, then answer as the wrapped provider does."""
        if self._last is not None and self._last.tool_calls:
            problem = self._problem(fed_back(messages))
            if problem is not None:
                self.divergence = problem
                raise problem
        response = await self._inner.complete(messages, tools, choice)
        self._last, self._mark = response, len(self._record.calls)
        return response

    def _problem(self, results: list[FedBack]) -> RunError | None:
        assert self._last is not None
        calls = self._last.tool_calls
        dispatched = _dispatches(self._record.calls[self._mark :], [call.id for call in calls])
        for result in results:
            index = next((i for i, call in enumerate(calls) if call.id == result.call_id), None)
            if index is None:
                continue  # a result for no call of the reply: the conversation matcher says so
            call = calls[index]
            where = f"the result sent to the model for {call.name} (call {call.id})"
            ran = dispatched.get(call.id)
            if ran is None:
                return self._error(index, f"{where} was returned by no tool: the agent never ran that call")
            if not _same(result.content, ran):
                return self._error(
                    index,
                    f"{where} is not what the tool returned: the tool returned {quote(ran.result)},"
                    f" the request sends {quote(result.content)}",
                )
        return None

    def _error(self, index: int, message: str) -> RunError:
        step = self._record.steps[-1]
        number = sum(1 for each in self._record.steps if each.turn == step.turn) - 1
        if not self._scripted:
            # The turn's model requests so far, this one included.
            return RunError(f"turn {step.turn + 1}, request {number + 2}: {message}", f"/turns/{step.turn}")
        pointer = f"/turns/{step.turn}/steps/{number}/response/tool_calls/{index}"
        return RunError(f"turn {step.turn + 1}, step {number + 2}: {message}", pointer)


def _dispatches(recorded: list[RecordedCall], ids: list[str]) -> dict[str, RecordedCall]:
    """The recorded dispatches of a reply's calls, by call id: those the agent dispatched
    with the call's id, then those it dispatched without one, in order, for the calls left."""
    found = {call.call_id: call for call in recorded if call.call_id in ids}
    anonymous = iter(call for call in recorded if not call.call_id)
    for call_id in ids:
        if call_id not in found:
            unnamed = next(anonymous, None)
            if unnamed is not None:
                found[call_id] = unnamed
    return found


def _same(sent: str, ran: RecordedCall) -> bool:
    """Whether `sent` is the result `ran` returned (see the module's normalisation)."""
    returned = ran.result
    if sent == returned or sent.strip() == returned.strip():
        return True
    if not ran.success:
        return returned.strip() in sent
    return _json_alike(sent, returned)


def _json_alike(sent: str, returned: str) -> bool:
    start = returned.lstrip()[:1]
    if start not in ("{", "[") or sent.lstrip()[:1] != start:
        return False
    try:
        return json_equal(loads_untrusted(sent), loads_untrusted(returned))
    except ValueError:
        return False
