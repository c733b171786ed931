"""The tool results an agent sends the model, checked against what its tools returned.

An agent that runs the harness's tools (an agent of this process) dispatches each call
through the tool box, which records the call and the result the tool returned: the
dispatch list is the fact. Each request after a reply that called tools must send back,
for each of those calls, the result of that call's dispatch: the tool the model named,
with the arguments it gave. A result that reaches the model changed, one made up for a
call no tool ran, or one of another dispatch (another tool, other arguments) would let an
agent that feeds the model garbage pass, since every check grades what the tool
returned. So it is a run error at the call's field, in replay and in live mode alike. A
result, once sent, must stay what it was in every later request: an agent that rewrites
its history between turns is caught too. (An agent command runs its own tools: what it
sends back is all the harness sees of them, and is what its dispatch list records.)

A dispatch is the call's when it carries the call's id; a dispatch made without an id
is the call's when it is of the same tool with the same arguments (in order, among
equal ones), wherever it came in the order of dispatches (calls run at once finish in
any order).

What counts as the result sent back, a documented and minimal normalisation:

- the text as the tool returned it, or with the whitespace around it trimmed;
- the same JSON value written another way, for a result that is JSON text (a framework
  that reads and writes it again);
- for a call that failed, any text that holds the failure's message: frameworks say so
  in words of their own ("error: …", "Tool failed: … (please retry)", a retry prompt),
  and whatever they wrap it in, the model reads what went wrong. (An empty message holds
  nothing to find: only the empty text is its result.)

A result marked `is_error` for a call that succeeded is not the result either.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from zeroclaw_eval._support.json.text import arguments_text, json_equal, loads_untrusted, quote
from zeroclaw_eval.boundary.provider import (
    AUTO,
    Message,
    ModelResponse,
    Provider,
    ToolCallRequest,
    ToolChoice,
    ToolSpec,
    echoed_as_sent,
    same_arguments,
)
from zeroclaw_eval.boundary.record import RecordedCall, RunRecord
from zeroclaw_eval.boundary.sent import (
    FedBack,
    SentHistory,
    content_text,
    entry,
    fed_back,
    last_of,
)
from zeroclaw_eval.errors import RunError
from zeroclaw_eval.tools.toolbox import served_as


class ResultsChecked:
    """A provider that first checks the tool results each request sends back (see the
    module), then asks the provider it wraps. The first problem is kept in `divergence`,
    even if the agent swallows the exception raised for it."""

    def __init__(self, inner: Provider, record: RunRecord, history: SentHistory, *, scripted: bool) -> None:
        self._inner = inner
        self._record = record
        #: What the requests sent, read by the recorder before they come here.
        self._history = history
        #: Replay: a problem points at the scripted call; live mode has no script to point into.
        self._scripted = scripted
        self._last: ModelResponse | None = None
        #: How many calls were recorded when the last reply was made: the ones after it
        #: are the dispatches of that reply's calls.
        self._mark = 0
        #: The results accepted so far, by call id (a model may use an id again in a later
        #: reply): what later requests must still send.
        self._sent: dict[str, set[str]] = {}
        #: The request checked last (`SentHistory.requests`), and the indices of its tool
        #: messages whose text is not (yet) an accepted result of their call: every other
        #: tool message of it, sent again unchanged, needs no second look.
        self._at = 0
        self._unsettled: list[int] = []
        self.divergence: RunError | None = None

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        """Check what `messages` send back, then answer as the wrapped provider does."""
        history = self._history
        # The request before this one was checked here, and is this one's unchanged start.
        unchanged = history.unchanged if history.requests == self._at + 1 else 0
        problem = self._rewritten(messages, unchanged)
        if problem is None and self._last is not None and self._last.tool_calls:
            problem = self._problem(fed_back(messages))
        if problem is not None:
            self.divergence = problem
            raise problem
        self._settle(messages, unchanged)
        response = await self._inner.complete(messages, tools, choice)
        self._last, self._mark = response, len(self._record.calls)
        return response

    def _rewritten(self, messages: list[Message], unchanged: int) -> RunError | None:
        """A result sent earlier that this request sends otherwise, if any: the results
        before its last assistant message (those after it are new, checked by `_problem`).
        Of the first `unchanged` messages, only those not settled are read again."""
        last = last_of(messages, ("assistant",)) or 0
        if unchanged >= last and not self._unsettled:
            return None  # the usual request: the conversation before, with what it adds
        unsettled = [i for i in self._unsettled if i < unchanged]
        for index in [*unsettled, *range(unchanged, last)]:
            if index >= last:
                break
            message = messages[index]
            call_id = entry(message, "tool_call_id")
            if entry(message, "role") != "tool" or not isinstance(call_id, str) or call_id not in self._sent:
                continue
            content = entry(message, "content")
            text = content_text(content)
            if text not in self._sent[call_id]:
                earlier = " or ".join(quote(sent) for sent in sorted(self._sent[call_id]))
                turn = self._record.turns[-1].index if self._record.turns else 0
                return RunError(
                    f"turn {turn + 1}: the request sends the result of call {call_id} as {quote(text)},"
                    f" but an earlier request sent it as {earlier}: a result the model has seen must not"
                    " change",
                    f"/turns/{turn}",
                )
        return None

    def _settle(self, messages: list[Message], unchanged: int) -> None:
        """Note, of a request that passed, the tool messages whose text is not an accepted
        result of their call (none, usually): the only ones of them a later request that
        sends them again unchanged must have read again."""
        self._at = self._history.requests
        if type(messages) is not list:  # read whole next time too: `unchanged` will be 0
            self._unsettled = []
            return
        sent = self._sent
        unsettled: list[int] = []
        read: Sequence[int] = range(unchanged, len(messages))
        if self._unsettled:
            read = [*(i for i in self._unsettled if i < unchanged), *read]
        for index in read:
            message = messages[index]
            if not isinstance(message, dict) or message.get("role") != "tool":  # `entry`, inlined
                continue
            call_id = message.get("tool_call_id")
            accepted = sent.get(call_id) if isinstance(call_id, str) else None
            if accepted is None or content_text(message.get("content")) not in accepted:
                unsettled.append(index)
        self._unsettled = unsettled

    def _problem(self, results: list[FedBack]) -> RunError | None:
        assert self._last is not None
        calls = self._last.tool_calls
        dispatched = _dispatches(self._record.calls[self._mark :], calls)
        # Each call's index in the reply, the first of an id given twice (as a search would).
        indices: dict[str, int] = {}
        for i, call in enumerate(calls):
            indices.setdefault(call.id, i)
        for result in results:
            index = indices.get(result.call_id)
            if index is None:
                continue  # a result for no call of the reply: the conversation matcher says so
            call = calls[index]
            if not self._scripted and (
                result.name != call.name or not echoed_as_sent(result.arguments, call.arguments)
            ):
                # Live mode: no script walks the echo (in replay the conversation matcher does).
                return self._error(
                    index,
                    f"the request echoes the model's call {call.name} (id {call.id}) back as"
                    f" {result.name or 'no tool'} with the arguments {quote(result.arguments)};"
                    f" the model asked for {call.name} with {quote(call.arguments)}",
                )
            ran = dispatched.get(call.id)
            if ran is None:
                return self._error(
                    index, f"{_where(call)} was returned by no tool: the agent never ran that call"
                )
            if not served_as(call.name, ran.name) or not same_arguments(ran.arguments, call.arguments):
                return self._error(
                    index,
                    f"{_where(call)} is the result of {ran.name} with {quote(_shown(ran.arguments))},"
                    f" not of the call the model asked for ({call.name} with {quote(call.arguments)})",
                )
            if not is_result_of(result, ran):
                return self._error(
                    index,
                    f"{_where(call)} is not what the tool returned: the tool returned {said(ran)},"
                    f" the request sends {said_back(result)}",
                )
            self._sent.setdefault(call.id, set()).add(result.content)
        return None

    def _error(self, index: int, message: str) -> RunError:
        step = self._record.steps[-1]
        number = sum(1 for each in self._record.steps if each.turn == step.turn) - 1
        if not self._scripted:
            # The turn's model requests so far, this one included.
            return RunError(f"turn {step.turn + 1}, request {number + 2}: {message}", f"/turns/{step.turn}")
        pointer = f"/turns/{step.turn}/steps/{number}/response/tool_calls/{index}"
        return RunError(f"turn {step.turn + 1}, step {number + 2}: {message}", pointer)


def _dispatches(recorded: list[RecordedCall], calls: tuple[ToolCallRequest, ...]) -> dict[str, RecordedCall]:
    """The recorded dispatches of a reply's calls, by call id: those the agent dispatched
    with the call's id, then, for the calls left, those it dispatched without one of the
    same tool (or the MCP tool the call's name stands for, `served_as`) and arguments, in
    order among equal ones."""
    ids = {call.id for call in calls}
    found = {call.call_id: call for call in recorded if call.call_id in ids}
    if len(found) == len(ids):
        return found  # every call dispatched with its id: the usual case
    anonymous = [call for call in recorded if not call.call_id]
    for call in calls:
        if call.id in found:
            continue
        match = next(
            (
                i
                for i, ran in enumerate(anonymous)
                if served_as(call.name, ran.name) and same_arguments(ran.arguments, call.arguments)
            ),
            None,
        )
        if match is not None:
            found[call.id] = anonymous.pop(match)
    return found


def _where(call: ToolCallRequest) -> str:
    """How a problem names the result sent back for `call` (put in words only for one)."""
    return f"the result sent to the model for {call.name} (call {call.id})"


def _shown(arguments: Any) -> str:
    return arguments_text(arguments)


def said(ran: RecordedCall) -> str:
    return quote(ran.result) + ("" if ran.success else " (a failure)")


def said_back(result: FedBack) -> str:
    return quote(result.content) + (" marked is_error" if result.failed else "")


def is_result_of(result: FedBack, ran: RecordedCall) -> bool:
    """Whether `result` is the result `ran` returned (see the module's normalisation)."""
    sent, returned = result.content, ran.result
    if result.failed and ran.success:
        return False  # a success sent as a failure
    if sent == returned or sent.strip() == returned.strip():
        return True
    if not ran.success:
        return bool(returned.strip()) and returned.strip() in sent
    return _json_alike(sent, returned)


def _json_alike(sent: str, returned: str) -> bool:
    start = returned.lstrip()[:1]
    if start not in ("{", "[") or sent.lstrip()[:1] != start:
        return False
    try:
        # A key given twice is refused: readers disagree on which one wins, so the text a
        # model reads could say the first while the harness compared the last.
        told = json.loads(sent, object_pairs_hook=_no_duplicates)
        return json_equal(told, loads_untrusted(returned))
    except (ValueError, RecursionError):
        return False


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("a key given twice")
    return found
