"""The turn family: each turn's answer, as the agent returned it, against the needles of
`turn_response_contains` (`{turn, needle}`, the turn 0-based). The response family
grades the final answer; this one any turn's, so a multi-turn case checks every answer."""

from __future__ import annotations

from collections.abc import Iterator

from zeroclaw_eval._support.json.text import quote
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.grading.result import RESPONSE, GradeResult, make_grade
from zeroclaw_eval.tools.workspace import Workspace


def turn_checks(
    expects: Expects, record: RunRecord, workspace: Workspace | None, words: bool
) -> Iterator[GradeResult]:
    """Every `turn_response_contains` check, against the answers `record` holds."""
    answers = reads_turns(record)
    for index, check in enumerate(expects.turn_response_contains):
        answer = answers[check.turn] if check.turn < len(answers) else None
        ok = answer is not None and check.needle in answer
        detail = ""
        if words or not ok:
            if answer is None:
                found = f"the run has no answer of that turn ({len(answers)} turn(s) ran)"
            else:
                found = f"found {quote(answer)}" if answer else "that answer is empty"
            expected = f"expected the answer of turn {check.turn} (0-based) to contain {quote(check.needle)}"
            detail = f"{expected}; {found}"
        yield make_grade(
            f"turn_response_contains[{index}]",
            RESPONSE,
            f"/expects/turn_response_contains/{index}",
            ok,
            detail,
            check.needle,
            answer,
        )


def reads_turns(record: RunRecord) -> tuple[str | None, ...]:
    """What the turn family reads of a run: each turn's answer, in order (None for a
    turn that ended without one)."""
    return tuple(turn.response for turn in record.turns)
