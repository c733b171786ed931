"""A simulated user (a fixture's `simulated_user`): in live mode, once the scripted turns
are played, a user model playing a persona toward a goal writes each next user message,
until the goal is met, the agent's answer holds the fixture's `stop_when`, or the
conversation has `max_turns` turns.

The user model is shown the conversation as a transcript (not as chat roles turned
around): every wire reads one system and one user message alike. It answers with the
next message only, or with `GOAL_DONE` alone when the conversation is over for the
persona (a reply holding it anywhere ends it). The harness records each message as a
turn's `user_input`, so `--record` writes the conversation as ordinary scripted turns
(without `simulated_user`: the recorded case is the conversation that happened) and a
replay never calls the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from zeroclaw_eval._support.json.scan import well_formed
from zeroclaw_eval.boundary.provider import Provider
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.model import SimulatedUser

#: What the user model answers when the conversation is over for the persona.
DONE = "GOAL_DONE"
#: The longest user message taken from the user model, in characters: past it, cut.
MAX_MESSAGE_CHARS = 20_000


def instruction(spec: SimulatedUser) -> str:
    """The user model's system message: who it plays, what it wants, how to answer."""
    return (
        "You play the user in a conversation with an AI assistant; you are not the assistant."
        f"\nWho you are: {spec.persona}\nWhat you want: {spec.goal}\n"
        "Write only your next message to the assistant, in your own voice, with nothing around"
        f" it. When you have what you want, or the assistant cannot give it, answer {DONE} alone."
    )


def transcript(record: RunRecord) -> str:
    """The conversation so far, as the user model reads it: a JSON list of the turns
    (`you`, `assistant`; null: no answer), so that an answer cannot forge a turn of the
    user's by holding "You: ..." lines."""
    turns = [{"you": turn.user_input, "assistant": turn.response} for turn in record.turns]
    said = json.dumps(turns, ensure_ascii=False, indent=1)
    return f"The conversation so far, as a JSON list of turns:\n{said}\n\nYour next message:"


@dataclass
class UserModel:
    """The simulated user of one case: its fixture's spec and the model that plays it."""

    spec: SimulatedUser
    provider: Provider

    def over(self, record: RunRecord) -> bool:
        """Whether the conversation is over before the user model is asked: `max_turns`
        reached, or the last answer holds `stop_when`."""
        if len(record.turns) >= self.spec.max_turns:
            return True
        last = record.turns[-1].response if record.turns else None
        stop = self.spec.stop_when
        return bool(stop and last is not None and stop.casefold() in last.casefold())

    async def next_input(self, record: RunRecord) -> str | None:
        """The next user message, or None when the conversation is over."""
        if self.over(record):
            return None
        messages = [
            {"role": "system", "content": instruction(self.spec)},
            {"role": "user", "content": transcript(record)},
        ]
        reply = await self.provider.complete(messages, [])
        text = well_formed((reply.content or "").strip())[:MAX_MESSAGE_CHARS]
        if not text or DONE in text:  # "Thanks! GOAL_DONE" ends it too: never sent to the agent
            return None
        return text
