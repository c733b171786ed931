"""What a judge check asks (`grading.judges.check` asks and grades it): one question per
dimension of its rubric, each with its own text and digest. Here, where admission can
hold a fixture's recorded verdicts to the questions they answer.

A question's text is what the judge is shown as the rubric and what its verdicts and
calibrations are keyed by (its SHA-256): the rubric, with a line for the dimension, for
a conversation's judge, and for a score. A plain yes-or-no check's question is its
rubric alone.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

from zeroclaw_eval.cases.model import JudgeCheck


def digest(text: str) -> str:
    """The SHA-256 of `text` as UTF-8, in hex: what a verdict names."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


#: What a scored check's question adds to its rubric (a person labelling it is shown the
#: rubric without it: they say yes or no).
SCORE_TAIL = "\n\nScore the answer from 0 (not at all) to 1 (fully)."


@dataclass(frozen=True)
class Question:
    """One thing a judge check asks: its rubric, or with `dimensions` the rubric about
    one of them; its text (what the judge is shown as the rubric, and whose digest its
    verdicts and calibrations name) says the dimension and, for a scored check, that a
    score is asked. A plain yes-or-no check's question is its rubric, as it always was."""

    check_id: str
    pointer: str
    dimension: str | None
    text: str
    scored: bool

    @property
    def sha256(self) -> str:
        return digest(self.text)


#: What a question about the whole conversation adds to its rubric.
CONVERSATION_TAIL = "\n\nJudge the whole conversation: every message of the user and every answer."


def conversation_text(turns: Iterable[tuple[str, str | None]]) -> str:
    """A conversation as a judge of its whole reads it: a JSON list of its turns, each
    `{"user": ..., "assistant": ...}` (null: no answer). JSON, not `User:` lines: an
    answer holding "\n\nUser: thanks" would read as a turn of its own; in JSON it is one
    escaped string."""
    return json.dumps(
        [{"user": said, "assistant": answer} for said, answer in turns], ensure_ascii=False, indent=1
    )


def questions(index: int, check: JudgeCheck) -> list[Question]:
    """What judge check `index` asks, one question per dimension (one without)."""
    scored = check.threshold is not None
    tail = (CONVERSATION_TAIL if check.scope == "conversation" else "") + (SCORE_TAIL if scored else "")
    base = f"judge[{index}]"
    if not check.dimensions:
        return [Question(base, f"/expects/judge/{index}", None, check.rubric + tail, scored)]
    return [
        Question(
            f"{base}.{name}",
            f"/expects/judge/{index}/dimensions/{number}",
            name,
            f"{check.rubric}\n\nJudge this dimension only: {name}{tail}",
            scored,
        )
        for number, name in enumerate(check.dimensions)
    ]
