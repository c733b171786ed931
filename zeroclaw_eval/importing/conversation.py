"""An imported trace as a conversation: turns of user input and scripted steps, and the
run it recorded (`RunRecord`), the one a fixture's checks are proven against.

The model calls, in the order they started, are the scripted steps: each reply is one
step, its text or its tool calls as the model gave them. A call whose request ends with
a user message, once the turn before has its answer, starts a new turn with that
message as the user input. What the first call's request carries before it (earlier
turns of the conversation, as the agent kept them) becomes the turns before it: its
assistant messages are steps, its tool messages their results. A tool call's result is
what the agent sent back to the model (a `tool` message of a later request), else what
a tool span recorded; success is read from the result as a replay reads it
(`boundary.sent.inferred_success`), so the trajectory's statuses hold in replay too.

Refused, naming the trace, span and attribute: a model call with no reply, a span that
never ended, a request with no user message to start from, a tool call with no result
anywhere, a turn that ends without a text answer (spans cut off).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval.boundary.provider import Message, ModelResponse, ToolCallRequest
from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.boundary.sent import entry, inferred_success, message_text, roles_and_system_prompt
from zeroclaw_eval.importing.messages import assistant_reply
from zeroclaw_eval.importing.trace import ImportedTrace, ModelCall, ToolRun, UnfaithfulTrace

#: Roles that are the agent's own framing, not the conversation.
_FRAMING = frozenset({"system", "developer"})


@dataclass
class _Step:
    reply: ModelResponse
    #: The model call it came from (None: read from an earlier turn's history).
    call: ModelCall | None


@dataclass
class _Turn:
    user_input: str
    steps: list[_Step] = field(default_factory=list)

    def answered(self) -> bool:
        return bool(self.steps) and not self.steps[-1].reply.tool_calls


@dataclass
class _Result:
    content: str
    failed: bool


@dataclass
class Conversation:
    """A trace as turns, and the run it recorded."""

    #: Each turn as a fixture writes it: `{"user_input", "steps": [{"response": ...}]}`.
    turns: list[dict[str, Any]]
    record: RunRecord
    #: Tools offered or called, in the order first seen.
    tools: list[str]
    #: The tools every model request offered (None: some request's offer is unknown).
    offered_every: frozenset[str] | None
    #: The spans the steps and results came from, in order.
    span_ids: list[str]


def conversation(trace: ImportedTrace) -> Conversation:
    """`trace` as turns and a recorded run; `UnfaithfulTrace` when it cannot replay."""
    calls = sorted(trace.calls, key=lambda call: call.start)
    if not calls:
        raise UnfaithfulTrace(
            trace.trace_id,
            None,
            None,
            "no model call with its messages: is message content capture on? (for OpenTelemetry's"
            " GenAI instrumentations, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)",
        )
    for call in calls:
        _check_call(trace, call)
    turns = _history(trace, calls[0])
    results: dict[str, _Result] = {}
    for call in calls:
        _collect_results(call.messages, results)
        last = _last_user(call.messages)
        if last is not None and (not turns or turns[-1].answered()):
            turns.append(_Turn(_user_text(trace, call, last)))
        if not turns:
            raise UnfaithfulTrace(
                trace.trace_id,
                _where(call),
                "input messages",
                "the request holds no user message to start from",
            )
        assert call.reply is not None  # _check_call
        turns[-1].steps.append(_Step(call.reply, call))
    return _built(trace, turns, results)


def _check_call(trace: ImportedTrace, call: ModelCall) -> None:
    if call.span_id in trace.unfinished:
        raise UnfaithfulTrace(
            trace.trace_id, _where(call), None, "the span never ended: the trace was cut off mid-run"
        )
    if call.reply is None and not call.messages:
        raise UnfaithfulTrace(
            trace.trace_id,
            _where(call),
            call.reply_attribute or None,
            "the model call recorded neither its messages nor its reply: is message content capture"
            " on? (for OpenTelemetry's GenAI instrumentations,"
            " OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)",
        )
    if call.reply is None:
        raise UnfaithfulTrace(
            trace.trace_id,
            _where(call),
            call.reply_attribute or None,
            "the model call recorded no reply, so there is no step to script",
        )


def _where(call: ModelCall) -> str:
    return f"{call.span_id} ({call.label})" if call.label else call.span_id


def _role(message: Any) -> Any:
    return entry(message, "role")


def _last_user(messages: list[Message]) -> Message | None:
    """The request's last message when it is the user's (what the model is answering)."""
    spoken = [message for message in messages if _role(message) not in _FRAMING]
    return spoken[-1] if spoken and _role(spoken[-1]) == "user" else None


def _user_text(trace: ImportedTrace, call: ModelCall | None, message: Message) -> str:
    text = message_text(entry(message, "content"))
    if text is None:
        where = _where(call) if call is not None else None
        raise UnfaithfulTrace(
            trace.trace_id, where, "input messages", "a user message holds no text (only images or files?)"
        )
    return text


def _history(trace: ImportedTrace, first: ModelCall) -> list[_Turn]:
    """The turns the first request carries before its last user message (and, should it
    not end with one, after it): the conversation as the agent kept it."""
    turns: list[_Turn] = []
    messages = first.messages
    last = _last_user(messages)
    before = messages[: len(messages) - 1] if last is not None else messages
    for message in before:
        role = _role(message)
        if role == "user":
            if turns and not turns[-1].steps:
                # A user message with no reply before the next one is the agent's own
                # preamble (it sends it again in replay), not a turn of the user's.
                turns[-1] = _Turn(_user_text(trace, first, message))
            else:
                turns.append(_Turn(_user_text(trace, first, message)))
        elif role == "assistant" and turns:
            reply = assistant_reply(message)
            if reply is not None:
                turns[-1].steps.append(_Step(reply, None))
    return turns


def _collect_results(messages: list[Message], results: dict[str, _Result]) -> None:
    """Each tool message's content by the call id it answers (the first one seen)."""
    for message in messages:
        call_id = entry(message, "tool_call_id")
        if _role(message) != "tool" or not isinstance(call_id, str) or not call_id or call_id in results:
            continue
        content = entry(message, "content")
        text = message_text(content)
        shown = text if text is not None else json.dumps(content, ensure_ascii=False, default=str)
        results[call_id] = _Result(shown, entry(message, "is_error") is True)


def _built(trace: ImportedTrace, turns: list[_Turn], results: dict[str, _Result]) -> Conversation:
    record = RunRecord()
    written: list[dict[str, Any]] = []
    tools: dict[str, None] = {}
    span_ids: list[str] = []
    runs = sorted(trace.tools, key=lambda run: run.start)
    used: set[int] = set()
    for index, turn in enumerate(turns):
        if not turn.answered():
            reason = f"turn {index + 1} ends without the model's text answer: the trace was cut off"
            if len(trace.calls) == 1 and not trace.tools and trace.agent is None:
                reason = (
                    "the trace holds one model call, which asks for tool calls: when nothing wraps"
                    " an agent's run in a span, each model call is its own trace; start a span"
                    " (invoke_agent) around each run so that its calls share one trace"
                )
            raise UnfaithfulTrace(trace.trace_id, _last_span(turn), None, reason)
        steps = []
        for step in turn.steps:
            steps.append({"response": _response(step.reply)})
            if step.call is not None:
                span_ids.append(step.call.span_id)
                tools.update(dict.fromkeys(step.call.offered or []))
            record.steps.append(_model_step(index, step))
            for request in step.reply.tool_calls:
                tools[request.name] = None
                recorded, run = _dispatch(trace, index, step, request, results, runs, used)
                record.calls.append(recorded)
                if run is not None:
                    span_ids.append(run.span_id)
        response = turn.steps[-1].reply.content or ""
        record.turns.append(TurnRecord(index, turn.user_input, response))
        written.append({"user_input": turn.user_input, "steps": steps})
    return Conversation(written, record, list(tools), _offered_every(turns), span_ids)


def _offered_every(turns: list[_Turn]) -> frozenset[str] | None:
    """The tools every request offered; None when a step's request is not in the trace
    (read from history) or did not record its tools."""
    offers = [step.call.offered if step.call is not None else None for turn in turns for step in turn.steps]
    if any(offer is None for offer in offers):
        return None
    return frozenset.intersection(*(frozenset(offer or ()) for offer in offers))


def _last_span(turn: _Turn) -> str | None:
    calls = [step.call for step in turn.steps if step.call is not None]
    return _where(calls[-1]) if calls else None


def _response(reply: ModelResponse) -> dict[str, Any]:
    """A reply as a fixture scripts it (arguments as the object they hold, else as text)."""
    from zeroclaw_eval.boundary.provider import decode_arguments

    tokens = {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens}
    tokens = {key: value for key, value in tokens.items() if value}
    if not reply.tool_calls:
        return {"type": "text", "content": reply.content or "", **tokens}
    response: dict[str, Any] = {"type": "tool_calls"}
    if reply.content:
        response["content"] = reply.content
    response["tool_calls"] = [
        {"id": call.id, "name": call.name, "arguments": decode_arguments(call.arguments)}
        for call in reply.tool_calls
    ]
    return {**response, **tokens}


def _model_step(turn: int, step: _Step) -> ModelStep:
    reply = step.reply
    calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply.tool_calls]
    recorded = ModelStep(turn, reply.content, calls, reply.input_tokens, reply.output_tokens)
    if step.call is not None:
        recorded.sent_roles, recorded.system_prompt = roles_and_system_prompt(step.call.messages)
        recorded.offered_tools = list(step.call.offered or [])
    return recorded


def _dispatch(
    trace: ImportedTrace,
    turn: int,
    step: _Step,
    request: ToolCallRequest,
    results: dict[str, _Result],
    runs: list[ToolRun],
    used: set[int],
) -> tuple[RecordedCall, ToolRun | None]:
    """The recorded dispatch of `request`: its result as the agent fed it back, else as
    the tool span recorded it (by call id, else the next unclaimed run of that tool)."""
    from zeroclaw_eval.boundary.provider import decode_arguments

    arguments = decode_arguments(request.arguments)
    run = _run_for(request, step, runs, used)
    fed = results.get(request.id) if request.id else None
    if fed is not None:
        success = not fed.failed and inferred_success(fed.content)
        return RecordedCall(turn, request.id, request.name, arguments, fed.content, success), run
    if run is not None and run.result is not None:
        return RecordedCall(turn, request.id, request.name, arguments, run.result, run.success), run
    where = _where(step.call) if step.call is not None else None
    raise UnfaithfulTrace(
        trace.trace_id,
        where,
        "output messages",
        f"the tool call {request.name} (id {request.id or 'none'}) has no result: no later model call"
        " carries it and no tool span recorded one (the trace was cut off?)",
    )


def _run_for(request: ToolCallRequest, step: _Step, runs: list[ToolRun], used: set[int]) -> ToolRun | None:
    after = step.call.start if step.call is not None else 0
    for by_id in (True, False):
        for index, run in enumerate(runs):
            if index in used or run.name != request.name:
                continue
            if (by_id and request.id and run.call_id == request.id) or (
                not by_id and not run.call_id and run.start >= after
            ):
                used.add(index)
                return run
    return None
