"""Which result answered each tool call of an imported trace.

A call's result is, first, what the agent sent the model back: the `tool` message that
follows the assistant message of the call in a later request. Ids are not enough to
find it: some providers give none (each result then answers the call at its position),
and an agent may reuse one across steps (`call_0` in every step), so a result is found
by the step that asked for it and the call's place in it, read from requests that carry
the whole conversation (as many assistant messages as steps came before). A request
that carries only what is new (the Responses API's `previous_response_id`) is read by
id alone. Failing that, the result is the one a tool span recorded: the span with the
call's id, else the next one of that tool with the same arguments, else the next one of
that tool that recorded no arguments (a span that recorded other arguments ran another
call). A call read from an earlier turn's history (its model call is not in the trace)
claims a tool span by its id only: the trace's spans all came after it.

Whether a call succeeded is what the trace proves, never a hope (`proven_outcome`): it
failed where anything says so (its tool run's error status, error type or exception; a
result the agent marked as an error; a result in the words the common frameworks use
for a failure, as a replay of an agent command reads them, `boundary.sent.inferred_success`);
it succeeded where its tool run ended with none of those, and no other run of it failed
(a run no call claimed, with its id or arguments: `Results.failed_twins`); else nothing
is known, and a fixture claims nothing of it. A result text alone never proves success: an agent that
feeds a tool's exception back as text (`URLError: ...`) says nothing a reader can trust.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from zeroclaw_eval._support.json.text import json_equal
from zeroclaw_eval.boundary.provider import Message, ToolCallRequest, decode_arguments
from zeroclaw_eval.boundary.record import RecordedCall
from zeroclaw_eval.boundary.sent import content_text, entry, inferred_success
from zeroclaw_eval.importing.messages import listed
from zeroclaw_eval.importing.trace import ToolRun


@dataclass(frozen=True)
class FedBack:
    """A result the agent sent the model back."""

    content: str
    failed: bool


@dataclass
class Results:
    """Every result the trace's requests carried, and its tool runs."""

    runs: list[ToolRun]
    #: By (step ordinal, position of the call in that step).
    by_place: dict[tuple[int, int], FedBack] = field(default_factory=dict)
    #: By call id, the first seen.
    by_id: dict[str, FedBack] = field(default_factory=dict)
    used: set[int] = field(default_factory=set)

    def collect(self, messages: list[Message], steps_before: int) -> None:
        """The results `messages` (a request sent after `steps_before` steps) carries."""
        whole = sum(1 for message in messages if entry(message, "role") == "assistant") == steps_before
        ordinal, ids, answered = -1, [], 0
        for message in messages:
            role = entry(message, "role")
            if role == "assistant":
                ordinal += 1
                ids = [entry(call, "id") for call in listed(entry(message, "tool_calls"))]
                answered = 0
            elif role == "tool":
                call_id = entry(message, "tool_call_id")
                found = _fed_back(message)
                named = isinstance(call_id, str) and bool(call_id)
                if named and call_id not in self.by_id:
                    self.by_id[call_id] = found
                place = ids.index(call_id) if named and call_id in ids else answered
                answered += 1
                if whole and ordinal >= 0:
                    self.by_place.setdefault((ordinal, place), found)

    def dispatch(
        self, turn: int, ordinal: int, position: int, request: ToolCallRequest, after: int | None
    ) -> Dispatch:
        """The recorded dispatch of `request`, the `position`-th call of step `ordinal`
        (whose request started at `after`; None: a step read from the history), the tool
        run it claimed, and what the trace proves of its outcome."""
        arguments = decode_arguments(request.arguments)
        run = self._run_for(request, arguments, after)
        fed = self.by_place.get((ordinal, position))
        if fed is None and request.id:
            fed = self.by_id.get(request.id)
        content = fed.content if fed is not None else run.result if run is not None else None
        if content is None:
            return Dispatch(None, run, None)
        proven = proven_outcome(content, fed is not None and fed.failed, run)
        # Unproven reads as a success in the record: no check the fixture writes claims it.
        recorded = RecordedCall(turn, request.id, request.name, arguments, content, proven is not False)
        return Dispatch(recorded, run, proven)

    def _run_for(self, request: ToolCallRequest, arguments: Any, after: int | None) -> ToolRun | None:
        def by_id(run: ToolRun) -> bool:
            return bool(request.id) and run.call_id == request.id

        def same_arguments(run: ToolRun) -> bool:
            if run.call_id or after is None or run.start < after:
                return False
            return json_equal(_decoded(run.arguments), arguments)

        def next_one(run: ToolRun) -> bool:
            return not run.call_id and after is not None and run.start >= after and run.arguments is None

        for matches in (by_id, same_arguments, next_one):
            for index, run in enumerate(self.runs):
                if index not in self.used and run.name == request.name and matches(run):
                    self.used.add(index)
                    return run
        return None

    def failed_twins(self, calls: list[RecordedCall], proven: list[bool | None]) -> None:
        """Mark failed (in `proven`, and in the recorded `calls`) each call proven to have
        succeeded whose tool run the trace also recorded as failed: a run no call claimed,
        of the call's tool, with its id (or, where the run names none, its arguments, or
        none recorded). The trace holds that call's run twice (an exporter's retry, a span
        and its copy, a LangSmith run and its child) and which one the call got cannot be
        told; a call failed where anything in the trace says so."""
        unclaimed = (run for index, run in enumerate(self.runs) if index not in self.used)
        failed = [run for run in unclaimed if run.success is False]
        for index, call in enumerate(calls):
            if proven[index] is True and any(_twin(run, call) for run in failed):
                proven[index] = False
                calls[index] = replace(call, success=False)


def _twin(run: ToolRun, call: RecordedCall) -> bool:
    """Whether `run` may have been a run of `call`: the same tool, and the same call id,
    or (a run that names none) the same arguments or none recorded."""
    if run.name != call.name:
        return False
    if run.call_id:
        return run.call_id == call.call_id
    return run.arguments is None or json_equal(_decoded(run.arguments), call.arguments)


@dataclass(frozen=True)
class Dispatch:
    """A tool call of the trace: its recorded dispatch (None: no result was recorded
    anywhere), the tool run it claimed, and what the trace proves of its outcome (see
    `proven_outcome`)."""

    recorded: RecordedCall | None
    run: ToolRun | None
    proven: bool | None


def proven_outcome(result: str, marked_failed: bool, run: ToolRun | None) -> bool | None:
    """What a trace proves of a call's outcome: False where anything says it failed (the
    agent marked its result as an error, the result reads as a failure in the words the
    common frameworks use, its tool run failed); True where its tool run ended with no
    sign of failure; None where nothing says either."""
    if marked_failed or not inferred_success(result):
        return False
    return run.success if run is not None else None


def _decoded(arguments: Any) -> Any:
    return decode_arguments(arguments) if isinstance(arguments, str) else arguments


def _fed_back(message: Message) -> FedBack:
    return FedBack(content_text(entry(message, "content")), entry(message, "is_error") is True)


def cut_arguments(request: ToolCallRequest, run: ToolRun | None) -> bool:
    """Whether `request`'s arguments were cut on the way into the trace: they are not a
    JSON object, while the tool span recorded the call's arguments whole."""
    if run is None or not isinstance(decode_arguments(request.arguments), str):
        return False
    return isinstance(_decoded(run.arguments), dict)
