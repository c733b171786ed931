"""Fuzzing the judge path: whatever a judge model answers (any text, JSON objects of any
values with non-finite numbers and lone surrogates among them), about any answer, `ask`
gives a verdict of yes or no or a `JudgeError` that says why, and a verdict is one that a
fixture `--record` or `--rejudge` writes it into still admits, and that grades the answer
it names in replay."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, strategies as st

from tests.fuzz.budget import share
from tests.fuzz.hostile import hostile_text
from tests.support.builders import admit_case, echo_fixture
from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, ToolChoice, ToolSpec
from zeroclaw_eval.boundary.record import RunRecord, TurnRecord
from zeroclaw_eval.cases.model import JudgeCheck
from zeroclaw_eval.cases.questions import questions
from zeroclaw_eval.cases.verdicts import add_verdicts
from zeroclaw_eval.errors import JudgeError
from zeroclaw_eval.grading.judges.check import ask, judge_checks

TEXT = hostile_text(long=False, max_pieces=3)
#: JSON values a judge may put in its object: NaN, infinities and huge numbers among them.
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**400), 10**400) | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
VERDICTS = st.sampled_from(["yes", "no", "YES", " no ", "maybe", ""]) | VALUES


@st.composite
def judge_replies(draw: st.DrawFn) -> str:
    """A judge's reply: an object with a verdict and a reason (fenced or not, escaped or
    not), any JSON value, or any text."""
    shape = draw(st.sampled_from(["object", "value", "text"]))
    if shape == "text":
        return draw(TEXT)
    if shape == "value":
        return json.dumps(draw(VALUES))
    data: dict[str, Any] = {"verdict": draw(VERDICTS), "reason": draw(VALUES)}
    data.update(draw(st.dictionaries(TEXT, VALUES, max_size=2)))
    body = json.dumps(data, ensure_ascii=draw(st.booleans()))
    return draw(st.sampled_from([body, f"```json\n{body}\n```", f"```{body}```", f"{body} and more"]))


class _Judge:
    """The judge model, answering `reply` to anything."""

    def __init__(self, reply: str) -> None:
        self.reply = reply

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        return ModelResponse(self.reply, (), 1, 1)


@share(0.5)
@given(reply=judge_replies(), answer=TEXT)
def test_any_judge_reply_is_a_verdict_a_fixture_holds_or_an_error(reply: str, answer: str) -> None:
    check = JudgeCheck(rubric="Is the answer polite?")
    refused: JudgeError | None = None
    try:
        verdict = asyncio.run(ask(_Judge(reply), "judge", questions(0, check)[0], answer))
    except JudgeError as exc:
        refused = exc
    if refused is not None:
        assert "the judge's reply is no verdict" in str(refused)
        str(refused).encode("utf-8")  # what a refusal says can be printed and reported
        return
    assert verdict.verdict in ("yes", "no")
    fixture = echo_fixture({"judge": [{"rubric": check.rubric}]})
    add_verdicts(fixture, {0: [verdict]})
    with tempfile.TemporaryDirectory() as name:
        case = admit_case(Path(name), fixture)
    (grade,) = judge_checks(case.trace.expects.judge, RunRecord(turns=[TurnRecord(0, "hi", answer)]))
    assert grade.passed is (verdict.verdict == "yes")


def test_a_reply_that_names_the_verdict_twice_is_no_verdict() -> None:
    # The last key won: `{"verdict": "no", "verdict": "yes"}` passed the check.
    check = JudgeCheck(rubric="Is the answer polite?")
    for reply in ('{"verdict": "no", "verdict": "yes"}', '{"verdict": "yes", "reason": "a", "reason": "b"}'):
        refused: JudgeError | None = None
        try:
            asyncio.run(ask(_Judge(reply), "judge", questions(0, check)[0], "hello"))
        except JudgeError as exc:
            refused = exc
        assert refused is not None, reply
        assert "the judge's reply is no verdict" in str(refused)
