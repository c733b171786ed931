"""An imported trace as a conversation: turns of user input and scripted steps, and the
run it recorded (`RunRecord`), the one a fixture's checks are proven against.

The model calls, in the order they started, are the scripted steps: each reply is one
step, its text or its tool calls as the model gave them. A call whose request ends with
a user message, once the turn before has its answer, starts a new turn with that
message as the user input. What the first call's request carries before it (earlier
turns of the conversation, as the agent kept them) becomes the turns before it: its
assistant messages are steps. Which result answered each tool call is `results`' to say.
A model call that failed with no reply (a request the agent retried) is no step.

Refused, naming the trace, span and attribute: a model call with no reply, a span that
never ended, a request with no user message to start from, a request that carries more
model replies than the trace recorded (a model call missing from it), a tool call with
no result anywhere or with arguments cut short, a turn that ends without a text answer
(spans cut off).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval.boundary.provider import Message, ModelResponse, ToolCallRequest
from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.boundary.sent import entry, message_text, roles_and_system_prompt
from zeroclaw_eval.errors import UnfaithfulTrace
from zeroclaw_eval.importing.messages import assistant_reply, listed, said
from zeroclaw_eval.importing.results import Results, cut_arguments
from zeroclaw_eval.importing.trace import ImportedTrace, ModelCall, ToolRun

#: Roles that are the agent's own framing, not the conversation.
_FRAMING = frozenset({"system", "developer"})


@dataclass
class _Step:
    reply: ModelResponse
    #: The model call it came from (None: read from an earlier turn's history).
    call: ModelCall | None

    def outputs(self) -> bool:
        """Whether the step is the run's structured answer: it calls output tools only
        (pydantic-ai's `final_result`), which the agent reads, not runs."""
        names = self.call.output_tools if self.call is not None else frozenset()
        return bool(self.reply.tool_calls) and all(call.name in names for call in self.reply.tool_calls)


@dataclass
class _Turn:
    user_input: str
    steps: list[_Step] = field(default_factory=list)

    def answered(self) -> bool:
        """Whether the turn ends with the model's answer: text, or a structured one."""
        return bool(self.steps) and (not self.steps[-1].reply.tool_calls or self.steps[-1].outputs())


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
    #: What the trace proves of each recorded call's outcome (`results.proven_outcome`),
    #: in the order of `record.calls`: True succeeded, False failed, None unknown.
    proven: list[bool | None]


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
    calls = _steps_only(calls)
    for call in calls:
        _check_call(trace, call)
    # A request that failed and got no reply is no step: the agent asked again, or gave up.
    answered = [call for call in calls if not (call.failed and call.reply is None)]
    if not answered:
        raise UnfaithfulTrace(
            trace.trace_id, _where(calls[0]), None, "every model call of the trace failed with no reply"
        )
    calls = answered
    turns = _history(trace, calls[0])
    results = Results(sorted(trace.tools, key=lambda run: run.start))
    for call in calls:
        replies = [step.reply for turn in turns for step in turn.steps]
        _check_carried(trace, call, replies)
        results.collect(call.messages, len(replies))
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


def _steps_only(calls: list[ModelCall]) -> list[ModelCall]:
    """The model calls that may be steps. Passed over: a request another span of the trace
    answers (Logfire's streamed call: a span that ends when the stream starts, then a log
    span with the request and the reply), and, beside calls that recorded content, a span
    that recorded neither messages nor a reply (a request builder marked as a model call:
    LlamaIndex's `_prepare_chat_with_tools`). A step that goes missing this way is still
    found: a later request carries more replies than the trace recorded."""
    answered = {said(call.messages) for call in calls if call.reply is not None}
    recorded = any(call.messages or call.reply is not None for call in calls)
    kept = []
    for call in calls:
        if call.reply is None and not call.failed:
            if call.messages and said(call.messages) in answered:
                continue
            if not call.messages and recorded:
                continue
        kept.append(call)
    return kept


def _check_carried(trace: ImportedTrace, call: ModelCall, replies: list[ModelResponse]) -> None:
    """Refuse a request that carries more model replies than the trace recorded before
    it, or one whose calls are not the recorded ones: a model call is missing."""
    carried = [message for message in call.messages if _role(message) == "assistant"]
    if len(carried) > len(replies):
        raise UnfaithfulTrace(
            trace.trace_id,
            _where(call),
            "input messages",
            f"the request carries {len(carried)} model replies, but the trace recorded {len(replies)}"
            " before it: a model call is missing from the trace (a span dropped or sampled out?)",
        )
    if len(carried) < len(replies):
        return  # a request with only what is new (previous_response_id): nothing to compare
    for number, (message, reply) in enumerate(zip(carried, replies, strict=True), 1):
        ids = [entry(c, "id") for c in listed(entry(message, "tool_calls"))]
        recorded = [request.id for request in reply.tool_calls]
        if any(ids) and any(recorded) and ids != recorded:
            raise UnfaithfulTrace(
                trace.trace_id,
                _where(call),
                "input messages",
                f"model reply {number} of the request calls {ids}, but the trace recorded calls {recorded}:"
                " a model call is missing from the trace",
            )


def _check_call(trace: ImportedTrace, call: ModelCall) -> None:
    if call.span_id in trace.unfinished:
        raise UnfaithfulTrace(
            trace.trace_id, _where(call), None, "the span never ended: the trace was cut off mid-run"
        )
    if call.reply is None and not call.messages:
        if call.unread:
            raise UnfaithfulTrace(
                trace.trace_id,
                _where(call),
                None,
                "the model call recorded no messages or reply in a shape this import reads, though"
                f" it holds {', '.join(call.unread[:6])}: a format not read yet (please report it)",
            )
        raise UnfaithfulTrace(
            trace.trace_id,
            _where(call),
            call.reply_attribute or None,
            "the model call recorded neither its messages nor its reply: is message content capture"
            " on? (for OpenTelemetry's GenAI instrumentations,"
            " OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)",
        )
    if call.reply is None and not call.failed:
        raise UnfaithfulTrace(
            trace.trace_id,
            _where(call),
            call.reply_attribute or None,
            "the model call recorded no reply, so there is no step to script",
        )


def _where(call: ModelCall) -> str:
    return f"{call.span_id} ({call.label})" if call.label else call.span_id


def _role(message: Any) -> str | None:
    role = entry(message, "role")
    return role if isinstance(role, str) else None


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


def _built(trace: ImportedTrace, turns: list[_Turn], results: Results) -> Conversation:
    record = RunRecord()
    written: list[dict[str, Any]] = []
    tools: dict[str, None] = {}
    span_ids: list[str] = []
    proven: list[bool | None] = []
    ordinal = -1
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
            ordinal += 1
            steps.append({"response": _response(step.reply)})
            if step.call is not None:
                span_ids.append(step.call.span_id)
                offered = [name for name in step.call.offered or [] if name not in step.call.output_tools]
                tools.update(dict.fromkeys(offered))
            record.steps.append(_model_step(index, step))
            if step.outputs():
                continue  # the structured answer: no tool runs it, and no result comes back
            for position, request in enumerate(step.reply.tool_calls):
                tools[request.name] = None
                after = step.call.start if step.call is not None else None
                found = results.dispatch(index, ordinal, position, request, after)
                _check_dispatch(trace, step, request, found.recorded, found.run)
                assert found.recorded is not None  # _check_dispatch
                record.calls.append(found.recorded)
                proven.append(found.proven)
                if found.run is not None:
                    span_ids.append(found.run.span_id)
        # A structured answer is what the agent makes of the output tool's arguments, which
        # the trace does not say in words: no answer text to check.
        response = turn.steps[-1].reply.content or ""
        record.turns.append(TurnRecord(index, turn.user_input, response))
        written.append({"user_input": turn.user_input, "steps": steps})
    results.failed_twins(record.calls, proven)
    return Conversation(written, record, list(tools), _offered_every(turns), span_ids, proven)


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
    recorded = ModelStep.of(turn, step.reply)
    if step.call is not None:
        recorded.sent_roles, recorded.system_prompt = roles_and_system_prompt(step.call.messages)
        recorded.offered_tools = list(step.call.offered or [])
    return recorded


def _check_dispatch(
    trace: ImportedTrace,
    step: _Step,
    request: ToolCallRequest,
    recorded: RecordedCall | None,
    run: ToolRun | None,
) -> None:
    where = _where(step.call) if step.call is not None else None
    if run is not None and run.span_id in trace.unfinished:
        raise UnfaithfulTrace(
            trace.trace_id,
            f"{run.span_id} ({run.name})",
            None,
            "the tool span never ended: the trace was cut off mid-run",
        )
    if cut_arguments(request, run):
        assert run is not None
        raise UnfaithfulTrace(
            trace.trace_id,
            where,
            "output messages",
            f"the arguments of the tool call {request.name} are not JSON, while the tool span"
            f" {run.span_id} recorded them whole: were they cut by an attribute length limit?",
        )
    if recorded is None:
        raise UnfaithfulTrace(
            trace.trace_id,
            where,
            "output messages",
            f"the tool call {request.name} (id {request.id or 'none'}) has no result: no later model call"
            " carries it and no tool span recorded one (the trace was cut off?)",
        )
