"""What graders score: the record of one run, taken at the provider and tool boundaries,
and the recorder at the model boundary (`RecordingProvider`; the tool box records the
tool boundary).

The list of recorded calls is the canonical fact of dispatch. Tool names, counts and
aggregate success are derived from it when grading; nothing keeps a second summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, Provider, ToolChoice, ToolSpec
from zeroclaw_eval.boundary.sent import SentHistory, request_words


@dataclass(slots=True)
class RecordedCall:
    """One tool dispatch as it crossed the tool boundary."""

    turn: int
    call_id: str
    name: str
    #: The arguments as the tool received them: an object, or the raw text when the
    #: model sent arguments that are not a JSON object.
    arguments: Any
    #: The result as the tool returned it (for a failed call: the failure message).
    result: str
    success: bool


@dataclass(slots=True)
class ModelStep:
    """One provider request and its reply, as they crossed the provider boundary."""

    turn: int
    content: str | None
    #: Each requested call as `{"id", "name", "arguments"}` (arguments as raw text).
    tool_calls: list[dict[str, str]]
    input_tokens: int = 0
    output_tokens: int = 0
    #: What the agent sent: the role of each message of the request, in order.
    sent_roles: list[str] = field(default_factory=list)
    #: The names of the tools the request offered the model.
    offered_tools: list[str] = field(default_factory=list)
    #: The request's system and developer messages, joined by newlines (None: none).
    system_prompt: str | None = None
    #: Of the input, the tokens read from a prompt cache; of the output, the reasoning
    #: (None: the reply did not say, as a scripted one does not).
    cached_input_tokens: int | None = None
    reasoning_tokens: int | None = None
    #: False where a live reply said no usage: its tokens (0) are no measure of its cost.
    usage_known: bool = True

    @classmethod
    def of(cls, turn: int, response: ModelResponse) -> ModelStep:
        """The step of `response` in `turn`: its text, its calls (arguments as raw text)
        and what it says of its tokens; what was sent is the recorder's to add."""
        calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in response.tool_calls]
        return cls(
            turn,
            response.content,
            calls,
            response.input_tokens,
            response.output_tokens,
            cached_input_tokens=response.cached_input_tokens,
            reasoning_tokens=response.reasoning_tokens,
            usage_known=response.usage_known,
        )


@dataclass(slots=True)
class TurnRecord:
    """One user turn and the answer the agent returned for it (None if it never did)."""

    index: int
    user_input: str
    response: str | None = None


@dataclass(slots=True)
class RunRecord:
    """Everything one run of a case produced."""

    turns: list[TurnRecord] = field(default_factory=list)
    steps: list[ModelStep] = field(default_factory=list)
    calls: list[RecordedCall] = field(default_factory=list)
    duration_ms: float = 0.0

    @property
    def final_response(self) -> str:
        """The last turn's answer as the agent returned it; "" when it gave none."""
        if not self.turns:
            return ""
        return self.turns[-1].response or ""

    @property
    def input_tokens(self) -> int:
        """Sum of the input tokens the provider reported."""
        return sum(step.input_tokens for step in self.steps)

    @property
    def output_tokens(self) -> int:
        """Sum of the output tokens the provider reported."""
        return sum(step.output_tokens for step in self.steps)

    @property
    def llm_calls(self) -> int:
        """Number of provider requests answered."""
        return len(self.steps)


class RecordingProvider:
    """Records every reply of the provider it wraps, so any agent is recorded alike."""

    def __init__(self, inner: Provider, record: RunRecord, history: SentHistory | None = None) -> None:
        self._inner = inner
        self._record = record
        #: What the requests sent, read once here for the checks behind this provider too.
        self.history = history if history is not None else SentHistory()
        #: Index of the turn in progress; the harness sets it before each turn.
        self.turn = 0
        self._closed = False
        #: Requests refused because the case was over (an agent still asking after its
        #: last answer, or a turn left running past its time limit), and what the first
        #: of them said (`sent.request_words`).
        self.late = 0
        self.first_late = ""

    def close(self) -> None:
        """End the case: an agent thread left running past it (a timed-out synchronous
        turn) must not add steps to a record already graded."""
        self._closed = True

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        """Forward to the wrapped provider and record the request and its reply."""
        if self._closed:
            self.late += 1
            if self.late == 1:
                self.first_late = request_words(messages)
            raise RuntimeError("this case is over: its provider takes no more requests")
        # Taken before forwarding: an agent may change its message list afterwards.
        history = self.history
        history.take(messages)
        roles, system = history.roles, history.system_prompt
        offered = [spec.name for spec in tools if isinstance(spec, ToolSpec)]
        response = await self._inner.complete(messages, tools, choice)
        step = ModelStep.of(self.turn, response)
        step.sent_roles, step.offered_tools, step.system_prompt = roles, offered, system
        self._record.steps.append(step)
        return response
