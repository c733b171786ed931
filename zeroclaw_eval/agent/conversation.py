"""A fixture's script, and what an agent sends the model checked against it: the one
conversation matcher.

The script is each turn's scripted steps as the provider replies they stand for
(`script_of`). Each request must carry the conversation so far as the script defines it: every turn's
user input, each scripted tool call echoed back with its id and name, and a result for
each call, in order (system and developer messages may stand anywhere). Walking the
messages gives the request's position in the script (turn = user messages so far,
step = assistant messages since the last one) or the first message that leaves it.
Replay checks that position against the step it is about to serve, walking only what
each request adds (`Follower`); `zeroclaw eval serve`, which keeps no state, answers
with the step at that position.

A turn's user message carries its scripted input exactly, or, where the case says
`user_input_match = "contains"` (agents whose framework wraps the user's input in a
template of its own), whole inside its text (`input_matches`). Two settings describe
agents that write the conversation otherwise:

- `[eval].tool_echo = "text"`: calls echoed in the assistant's text and results sent back
  as user messages, read as structured messages before the walk
  (`boundary.text_echo`); a turn's last results may then carry the next turn's input;
- `[eval].history = "turn"`: each request carries only its own turn (a framework that
  starts every turn afresh, a CrewAI crew kicked off per turn); the walk starts at the
  turn the script is at, and no earlier turn is asked for.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal, NamedTuple

from zeroclaw_eval._support.json.text import arguments_text, compact_json, quote
from zeroclaw_eval.boundary.provider import (
    ModelResponse,
    ToolCallRequest,
    echoed_as_sent,
)
from zeroclaw_eval.boundary.sent import SentHistory, entry, message_text
from zeroclaw_eval.boundary.text_echo import FROM_TEXT
from zeroclaw_eval.cases.model import LlmTrace, Response
from zeroclaw_eval.errors import Divergence

#: Each turn's replies, in order: `script[turn][step]`.
Script = list[list[ModelResponse]]

#: How a turn's user message must carry its scripted input (`input_matches`).
InputMatch = Literal["exact", "contains"]


def input_match_of(trace: LlmTrace, default: InputMatch = "exact") -> InputMatch:
    """How a case's user messages must carry its inputs: its fixture's
    `user_input_match`, else `default` (the suite's `[eval].user_input_match`)."""
    return trace.user_input_match or default


def input_matches(expected: str, sent: str | None, match: InputMatch) -> bool:
    """Whether a user message whose text is `sent` carries the scripted input `expected`:
    all of it and nothing else, or with "contains" all of it somewhere inside (never a
    part: a cut or reworded input is another input)."""
    if sent is None:
        return False
    return sent == expected if match == "exact" else expected in sent


def _to_model_response(response: Response, turn: int, step: int) -> ModelResponse:
    if not response.tool_calls:  # a text answer: half the steps
        return ModelResponse(response.content, (), response.input_tokens, response.output_tokens)
    calls = []
    for index, call in enumerate(response.tool_calls):
        # Key order and non-ASCII text are kept, so the tool receives what the fixture wrote.
        arguments = arguments_text(call.arguments)
        # A call the fixture gives no id gets one, so that its result can be matched.
        call_id = call.id or f"call_{turn}_{step}_{index}"
        calls.append(ToolCallRequest(call_id, call.name, arguments))
    return ModelResponse(response.content, tuple(calls), response.input_tokens, response.output_tokens)


def script_of(trace: LlmTrace) -> Script:
    """Each turn's scripted steps as provider replies (an empty list where none)."""
    return [
        [_to_model_response(s.response, t, i) for i, s in enumerate(turn.steps or ())]
        for t, turn in enumerate(trace.turns)
    ]


class Position(NamedTuple):
    """A place in the script: 0-based turn and step. (A named tuple: one is made and
    compared for every request, and a tuple does both in C.)"""

    turn: int
    step: int

    def __str__(self) -> str:
        return f"turn {self.turn + 1}, step {self.step + 1}"


def follow(
    trace: LlmTrace, script: Script, messages: list[Any], match: InputMatch = "exact", start: int = 0
) -> Position:
    """Where a request carrying `messages` stands in the script: the step it asks for,
    each user message carrying its turn's input as `match` says, the first that of turn
    `start` (0 but for an agent whose requests carry only their own turn).

    Raises `Divergence` at the first message that leaves the script, or when a result
    the script's calls need was not sent back.
    """
    walk = _Walk(trace, script, match, start)
    for index, message in enumerate(messages):
        walk.take(index, message)
    return walk.position()


class Follower:
    """`follow` for one conversation, request after request, walking only what is new.

    An agent resends the whole conversation with every request, so walking it all each
    time is quadratic in its length. The walk's state after the last request is kept; a
    request whose first messages the `SentHistory` finds unchanged since that one resumes
    from there, any other (an agent that edited, dropped or reordered its history) is
    walked from its first message, so every request gets what `follow` says.
    """

    def __init__(
        self,
        trace: LlmTrace,
        script: Script,
        history: SentHistory | None = None,
        match: InputMatch = "exact",
        per_turn: bool = False,
    ) -> None:
        self.trace = trace
        self.script = script
        self.match = match
        #: Each request carries only its own turn (`[eval].history = "turn"`).
        self.per_turn = per_turn
        #: The turn the walk in hand started at.
        self._start = 0
        #: Without a history of the recorder's (which reads each request before it comes
        #: here), the follower keeps one of its own.
        self._own = history is None
        self._history = history if history is not None else SentHistory()
        self._walk = _Walk(trace, script, match, 0)
        #: How many messages `_walk` has taken, and of which request (`SentHistory.requests`).
        self._walked = 0
        self._at = 0

    def follow(self, messages: list[Any], turn: int = 0) -> Position:
        """What `follow(trace, script, messages)` returns (or raises); `turn` is the turn
        the script is at, where a request of an agent that sends each turn alone starts."""
        history = self._history
        if self._own:
            history.take(messages)
        start = turn if self.per_turn else 0
        if type(messages) is not list:  # read it once, as `follow` does, and resume from nothing
            self._walk, self._walked, self._at = _Walk(self.trace, self.script, self.match, 0), 0, 0
            return follow(self.trace, self.script, messages, self.match, start)
        # The request before this one was walked here, from the same turn, and is this
        # one's unchanged start.
        resume = (
            history.requests == self._at + 1 and history.unchanged == self._walked and start == self._start
        )
        # Resumed in place: a walk that raises leaves `_at` behind, so the next request
        # starts a walk of its own rather than resume this one.
        walk = self._walk if resume else _Walk(self.trace, self.script, self.match, start)
        self._start = start
        for index in range(self._walked if resume else 0, len(messages)):
            walk.take(index, messages[index])
        self._walk, self._walked, self._at = walk, len(messages), history.requests
        return walk.position()


class _Walk:
    """The state of a walk through a request's messages: the turn and step reached, and
    the calls of the last assistant message still waiting for their results."""

    def __init__(self, trace: LlmTrace, script: Script, match: InputMatch, start: int) -> None:
        self.trace = trace
        self.script = script
        self.match = match
        # Before turn `start`, every step of the turn before it done (none asked for).
        self.turn = start - 1
        self.step = len(script[start - 1]) if start else 0
        self.pending: list[ToolCallRequest] = []
        #: A turn's last results, read from text, that did not carry the next turn's
        #: input (its index and text): what the next assistant message is told by.
        self.missed: tuple[int, str] | None = None

    def take(self, index: int, message: Any) -> None:
        """Walk one more message, the `index`-th of the request."""
        role = message.get("role") if isinstance(message, dict) else None  # `entry`, inlined: per message
        pending = self.pending
        if (
            role == "tool"
            and type(role) is str
            and pending
            and pending[0].id == message.get("tool_call_id")
            and FROM_TEXT not in message
        ):
            del pending[0]  # the usual case, the result the first waiting call awaits: as below, sooner
            return
        trace, script, turn, step = self.trace, self.script, self.turn, self.step
        # Every branch below names the message (`_where`) only in the divergence it raises:
        # this runs for every message of every request.
        if role in ("system", "developer"):
            return
        if role == "user":
            if pending:
                raise Divergence(
                    f"{_where(index, role)}: a user message came before the results of {_calls(pending)}",
                    pointer=_calls_at(turn, step - 1),
                )
            if turn >= 0 and step < _tool_steps(script[turn]):
                raise Divergence(
                    f"{_where(index, role)}: the next turn begins without turn {turn + 1},"
                    f" step {step + 1}'s tool calls ({_calls(script[turn][step].tool_calls)});"
                    " echo them back, with their results, before the next user message",
                    pointer=_calls_at(turn, step),
                )
            turn += 1
            if turn >= len(trace.turns):
                raise Divergence(
                    f"{_where(index, role)}: a user message beyond the script, which has"
                    f" {len(trace.turns)} turn(s)",
                    pointer="/turns",
                )
            expected = trace.turns[turn].user_input
            sent = message_text(entry(message, "content"))
            if sent != expected and not input_matches(expected, sent, self.match):
                raise self._input_divergence(turn, index, sent)
            self.turn, self.step, self.missed = turn, 0, None
        elif role == "assistant":
            if turn < 0:
                raise Divergence(
                    f"{_where(index, role)}: an assistant message before any user message",
                    pointer="/turns/0/user_input",
                )
            if pending:
                raise Divergence(
                    f"{_where(index, role)}: an assistant message came before the results of"
                    f" {_calls(pending)}",
                    pointer=_calls_at(turn, step - 1),
                )
            if step >= len(script[turn]) and self.missed is not None:
                raise self._input_divergence(turn + 1, *self.missed)
            if step >= len(script[turn]):
                raise Divergence(
                    f"{_where(index, role)}: an assistant message beyond the script, whose turn"
                    f" {turn + 1} has {len(script[turn])} step(s)",
                    pointer=f"/turns/{turn}/steps",
                )
            self.pending = _echoed_calls(index, role, message, script[turn][step], turn, step)
            self.step = step + 1
        elif role == "tool":
            call_id = entry(message, "tool_call_id")
            answered = next((call for call in pending if call.id == call_id), None)
            if answered is None:
                waiting = f"; the script waits for the results of {_calls(pending)}" if pending else ""
                raise Divergence(
                    f"{_where(index, role)}: a result for {_shown_id(call_id)}, which no scripted call"
                    f" awaits{waiting}",
                    pointer=_calls_at(turn, step - 1) if turn >= 0 and step > 0 else "/turns",
                )
            pending.remove(answered)
            if not pending and entry(message, FROM_TEXT) is True:
                self._carried(index, message)
        else:
            shown = quote(role) if isinstance(role, str) else "no role"
            raise Divergence(
                f"{_where(index, role)}: a message with {shown}; expected user, assistant, tool or system",
                pointer=f"/turns/{max(turn, 0)}",
            )

    def _input_divergence(self, turn: int, index: int, sent: str | None) -> Divergence:
        """Turn `turn`'s input is not what the `index`-th message carries (`sent`)."""
        expected = self.trace.turns[turn].user_input
        return Divergence(
            f"{_where(index, 'user')}: turn {turn + 1}'s user input is {quote(expected)};"
            f" the request has {_shown_input(expected, sent, self.match)}",
            pointer=f"/turns/{turn}/user_input",
        )

    def _carried(self, index: int, message: Any) -> None:
        """The results (read from a user message's text) that close a turn whose last
        step calls tools may carry the next turn's input: then that turn begins."""
        turn, script = self.turn, self.script
        if self.step < len(script[turn]) or turn + 1 >= len(self.trace.turns):
            return
        text = message_text(entry(message, "content"))
        if input_matches(self.trace.turns[turn + 1].user_input, text, self.match):
            self.turn, self.step, self.missed = turn + 1, 0, None
        else:
            self.missed = (index, text or "")

    def position(self) -> Position:
        """The step the walked messages ask for; raises `Divergence` when they carry no
        user message, or leave a scripted call without its result."""
        if self.turn < 0:
            raise Divergence(
                "the request carries no user message; turn 1's user input is"
                f" {quote(self.trace.turns[0].user_input)}",
                pointer="/turns/0/user_input",
            )
        if self.missed is not None:  # the last results closed the turn, without the next input
            raise self._input_divergence(self.turn + 1, *self.missed)
        if self.pending:
            raise Divergence(
                f"the request does not carry the results of {_calls(self.pending)}",
                pointer=_calls_at(self.turn, self.step - 1),
            )
        return Position(self.turn, self.step)


def step_at(
    trace: LlmTrace,
    messages: list[Any],
    script: Script | None = None,
    match: InputMatch = "exact",
    per_turn: bool = False,
) -> tuple[Position, ModelResponse]:
    """The position a request carrying `messages` asks for, and its scripted answer (what
    serve answers). `per_turn`: the request carries one turn only, whichever the script's
    it follows (the last that fits: a later turn's message may quote an earlier input)."""
    script = script_of(trace) if script is None else script
    if per_turn:
        position = _any_turn(trace, script, messages, match)
    else:
        position = follow(trace, script, messages, match)
    steps = script[position.turn]
    if position.step >= len(steps):
        raise Divergence(
            f"turn {position.turn + 1} scripts {len(steps)} step(s), all served;"
            " the request asks for another",
            pointer=f"/turns/{position.turn}/steps",
        )
    return position, steps[position.step]


def _any_turn(trace: LlmTrace, script: Script, messages: list[Any], match: InputMatch) -> Position:
    """`follow` from the last turn the messages fit, for a request that carries one turn;
    the first turn's divergence when they fit none."""
    refused: Divergence | None = None
    for start in reversed(range(len(trace.turns))):
        try:
            return follow(trace, script, messages, match, start)
        except Divergence as diverged:
            refused = diverged
    assert refused is not None  # a fixture has at least one turn
    raise refused


def next_step(trace: LlmTrace, messages: list[Any]) -> ModelResponse:
    """The scripted answer to a request carrying `messages`."""
    return step_at(trace, messages)[1]


def check_request(follower: Follower, messages: list[Any], expected: Position) -> None:
    """Raise `Divergence` unless a request carrying `messages` asks for step `expected`."""
    trace, script = follower.trace, follower.script
    found = follower.follow(messages, expected.turn)
    if found == expected:
        return
    if found.turn == expected.turn and found.step < expected.step:
        echoed = script[found.turn][found.step].tool_calls
        raise Divergence(
            f"the request carries the conversation only up to {found}; step {expected.step + 1} needs the"
            f" tool calls of step {found.step + 1} ({_calls(echoed)}) echoed back and a result for each"
        )
    if found.turn < expected.turn:
        raise Divergence(
            f"the request carries {found.turn + 1} turn(s) of the conversation; turn {expected.turn + 1}"
            f" needs every earlier turn and its user input {quote(trace.turns[expected.turn].user_input)}"
        )
    raise Divergence(f"the request carries the conversation of {found}, but the script is at {expected}")


def _echoed_calls(
    index: int, role: Any, message: Any, scripted: ModelResponse, turn: int, step: int
) -> list[ToolCallRequest]:
    """The calls of `scripted` (turn `turn`, step `step`) that `message`, the `index`-th
    of the request (`role` as the agent wrote it), echoes back, checked by id and name."""
    calls = entry(message, "tool_calls") or []
    if not isinstance(calls, list):
        raise Divergence(f"{_where(index, role)}: tool_calls must be a list")
    if not scripted.tool_calls:
        if calls:
            raise Divergence(
                f"{_where(index, role)}: {Position(turn, step)} of the script answers with text,"
                " not tool calls"
            )
        return []
    wanted = scripted.tool_calls
    if len(calls) == len(wanted):
        # The usual message, each call echoed as scripted, read without a list made of it;
        # anything else goes the long way below, which says what differs.
        for call, want in zip(calls, wanted, strict=True):
            function = call.get("function") if isinstance(call, dict) else None
            if (
                not isinstance(function, dict)
                or call.get("id") != want.id
                or function.get("name") != want.name
                or (
                    function.get("arguments") != want.arguments
                    and not echoed_as_sent(function.get("arguments"), want.arguments)
                )
            ):
                break
        else:
            return list(wanted)
    sent = [(_text_or_none(entry(call, "id")), _text_or_none(_name_of(call))) for call in calls]
    by_id = {call.id: call for call in wanted}
    if len(by_id) == len(wanted) and Counter(sent) == Counter((call.id, call.name) for call in wanted):
        # The step's calls, each once, in the order the agent echoes them: the ids pair
        # each with its result, so the order is the agent's to keep (smolagents sorts
        # them by id).
        wanted = tuple(by_id[str(call_id)] for call_id, _ in sent)
    if sent != [(call.id, call.name) for call in wanted]:
        echoed = (
            ", ".join(f"{_shown_name(name)} (id {_shown_id(call_id)})" for call_id, name in sent) or "none"
        )
        raise Divergence(
            f"{_where(index, role)}: {Position(turn, step)} of the script calls"
            f" {_calls(wanted)}; the request echoes back {echoed}"
        )
    for call, want in zip(calls, wanted, strict=True):
        echoed_arguments = entry(entry(call, "function"), "arguments")
        if not echoed_as_sent(echoed_arguments, want.arguments):
            raise Divergence(
                f"{_where(index, role)}: {Position(turn, step)} of the script calls {want.name}"
                f" (id {want.id}) with the arguments {quote(want.arguments)}; the request echoes that"
                " call back with"
                f" {_shown_arguments(echoed_arguments)}, as if the model had asked for them",
                pointer=f"{_calls_at(turn, step)}/{scripted.tool_calls.index(want)}/arguments",
            )
    return list(wanted)


def _name_of(call: Any) -> Any:
    return entry(entry(call, "function"), "name")


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _shown_arguments(value: Any) -> str:
    """Echoed arguments as a divergence quotes them."""
    if value is None:
        return "no arguments"
    return quote(value if isinstance(value, str) else compact_json(value))


def _shown_input(expected: str, sent: str | None, match: InputMatch) -> str:
    """A user message's text as a divergence about its input quotes it, with the setting
    that lets it pass where the input is there, wrapped."""
    if sent is None:
        return "no text"
    if match == "contains":
        return f'{quote(sent)}, which does not contain it (user_input_match is "contains")'
    if expected in sent:
        return (
            f"{quote(sent)}: the input wrapped in other text; where the agent's framework wraps"
            ' it so, set user_input_match = "contains" (in [eval] or the fixture)'
        )
    return quote(sent)


def _where(index: int, role: Any) -> str:
    """How a message is named in a divergence: its place in the request, and its role."""
    return f"messages[{index}]" + (f" ({role})" if isinstance(role, str) else "")


def _calls_at(turn: int, step: int) -> str:
    return f"/turns/{turn}/steps/{step}/response/tool_calls"


def _tool_steps(steps: list[ModelResponse]) -> int:
    """How many of a turn's steps call tools: each must be in the history before the next
    turn (the closing text answer may be left out, as some agents keep only calls)."""
    return max((index + 1 for index, step in enumerate(steps) if step.tool_calls), default=0)


def _calls(calls: tuple[ToolCallRequest, ...] | list[ToolCallRequest]) -> str:
    return ", ".join(f"{call.name} (id {call.id})" for call in calls)


def _shown_id(value: Any) -> str:
    return value if isinstance(value, str) and value else "no id"


def _shown_name(value: Any) -> str:
    return value if isinstance(value, str) and value else "no name"
