"""The replay provider: a real `Provider` that answers from a fixture's scripted steps.

Like httpx's mock transport, it is a full implementation of the interface rather than a
patched object. Each turn has its own FIFO of scripted steps; asking for more steps than
a turn scripts, or leaving some unconsumed, is a run error naming the turn. What the
agent sends is checked too: a request must carry the conversation so far as the script
defines it (`conversation.check_request`), offer every tool of the harness's that the
step it asks for calls, and let the model make the step's calls (`tool_choice`,
`parallel_tool_calls`: `permitted.check_choice`); otherwise the run errors at that step.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from zeroclaw_eval.agent.conversation import (
    Follower,
    InputMatch,
    Position,
    check_request,
    script_of,
)
from zeroclaw_eval.agent.permitted import check_choice, check_offered
from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, ToolChoice, ToolSpec
from zeroclaw_eval.boundary.sent import SentHistory, request_words
from zeroclaw_eval.cases.model import LlmTrace
from zeroclaw_eval.errors import Divergence, RunError

#: The advice on a tool not offered, for an agent that runs its own tools (an agent command).
OWN_TOOLS_HINT = "; offer the agent's tools with each request"


class ReplayProvider:
    """Serves the scripted steps of a fixture, one turn at a time."""

    def __init__(
        self,
        trace: LlmTrace,
        offered: Iterable[str] = (),
        offer_hint: str = "; pass on the tools the harness gives the agent",
        history: SentHistory | None = None,
        match: InputMatch = "exact",
        per_turn: bool = False,
    ) -> None:
        #: What to do about a tool the request did not offer, said after the divergence.
        self._offer_hint = offer_hint
        self._turns = script_of(trace)
        self._follower = Follower(trace, self._turns, history, match, per_turn)
        #: The tools the harness offers the case: the agent must pass on each one a step calls.
        self._offered = frozenset(offered)
        self._queue: deque[ModelResponse] = deque()
        self._turn = 0
        self._served = 0
        #: The first divergence seen, kept even if the agent swallows the exception.
        self.divergence: RunError | None = None

    def begin_turn(self, turn: int) -> None:
        """Load the scripted steps of `turn` (0-based)."""
        self._turn = turn
        self._served = 0
        self._queue = deque(self._turns[turn])

    def finish_turn(self) -> RunError | None:
        """The run error for this turn, if the agent diverged from its script."""
        if self.divergence is not None:
            return self.divergence
        if self._queue:
            left = len(self._queue)
            first = self._served
            why = "the script expects more model calls than the agent made"
            called = self._turns[self._turn][first - 1].tool_calls if first else ()
            if called:
                # The usual cause: the agent ran the calls and answered without the model.
                names = ", ".join(f"{call.name}'s result (call {call.id})" for call in called)
                why = f"{names} never reached the model, which step {first + 1} needs"
            return RunError(
                f"turn {self._turn + 1}: the agent finished the turn with {left} scripted"
                f" step(s) unconsumed (first: step {first + 1}); {why}",
                f"/turns/{self._turn}/steps/{first}",
            )
        return None

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        """The next scripted step of the current turn."""
        if not self._queue:
            scripted = self._served
            if not self._turns[self._turn]:
                message = (
                    f"turn {self._turn + 1}: the agent asked the model for a step but the turn"
                    " scripts none (a turn without steps can only run in live mode)"
                )
            else:
                message = (
                    f"turn {self._turn + 1}: the agent asked the model for step {scripted + 1}"
                    f" but the turn scripts only {scripted} step(s): a request the script did not"
                    f" expect ({request_words(messages)})"
                )
            self.divergence = RunError(message, f"/turns/{self._turn}/steps")
            raise self.divergence
        position = Position(self._turn, self._served)
        step = self._queue[0]
        try:
            check_request(self._follower, messages, position)
            check_offered(step, self._offered, tools, self._offer_hint)
            check_choice(step, choice)
        except Divergence as diverged:
            pointer = f"/turns/{position.turn}/steps/{position.step}"
            self.divergence = RunError(f"{position}: {diverged}", pointer)
            raise self.divergence from None
        self._served += 1
        return self._queue.popleft()
