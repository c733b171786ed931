"""Calibrating a judge against a person (`zeroclaw eval calibrate`): how often the judge
model's recorded verdicts agree with a person's labels of the same answers, per judge
model and rubric.

- **Records**: each recorded verdict of a `judge` check whose judged answer is in the
  fixture's script (its digest names which scripted answer), with the conversation's
  user inputs, the answer and the rubric. A verdict whose answer no script holds (an
  agent that rephrased it) is left out: the person must see what the judge saw.
- **Labels**: a person's `yes` or `no` to the rubric about each answer, given without
  seeing the judge's verdict (a label that saw it would measure agreement with itself).
- **Agreement**: the share of labelled records where the judge said what the person did
  (a judge's `unknown` agrees with nobody), Cohen's κ (agreement beyond what the two
  would reach by chance from how often each says yes), and the judge's true-positive
  and true-negative rates, taking the person as right.

`MIN_LABELS` labels of one judge model and rubric at the least: below about fifty, κ's
interval is wider than the difference between a good judge and a poor one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.cases.questions import conversation_text, digest, questions
from zeroclaw_eval.grading.judges.check import passes

#: The fewest labels a calibration is computed from.
MIN_LABELS = 50
#: The least agreement a calibration is written for, unless `--min-agreement` says otherwise.
MIN_AGREEMENT = 0.85
#: The version of a calibration file's shape.
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Record:
    """One recorded verdict, with what the person labelling it is shown."""

    id: str
    fixture: str
    check: int
    rubric: str
    rubric_sha256: str
    model: str
    user_inputs: list[str]
    answer: str
    #: The judge's verdict: kept for `finalize`, never shown by `label`. For a scored
    #: check, its score read at the check's threshold: yes from the threshold on.
    verdict: str
    #: A scored check's threshold (None: a yes-or-no judge): a calibration holds for it alone.
    threshold: float | None = None


def records_of(cases: Iterable[Case]) -> Iterator[Record]:
    """Each recorded verdict of `cases` whose judged answer is one their scripts hold."""
    for case in cases:
        trace = case.trace
        answers = {
            digest(step.response.content): step.response.content
            for turn in trace.turns
            for step in turn.steps or ()
            if step.response.content is not None
        }
        inputs = [turn.user_input for turn in trace.turns]
        # A conversation's judge judged every turn: the scripted conversation, each turn's
        # answer its last scripted reply (what a replay records as the turn's answer).
        finals = [turn.steps[-1].response.content if turn.steps else None for turn in trace.turns]
        whole = conversation_text(zip(inputs, finals, strict=True))
        answers[digest(whole)] = whole
        for index, check in enumerate(trace.expects.judge):
            # Each question of the check (a dimension each) is a rubric of its own: the
            # person labels what the judge was asked, under its digest.
            asked = {question.sha256: question for question in questions(index, check)}
            for verdict in check.verdicts:
                answer = answers.get(verdict.text_sha256)
                question = asked.get(verdict.rubric_sha256)
                if answer is None or question is None:
                    continue
                said = (verdict.model, verdict.rubric_sha256, verdict.text_sha256)
                key = "\0".join((case.path.name, str(index), *said))
                judged = verdict.verdict
                if check.threshold is not None and judged != "unknown":
                    judged = "yes" if passes(check, verdict) else "no"
                yield Record(
                    hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16],
                    str(case.path),
                    index,
                    question.text,
                    verdict.rubric_sha256,
                    verdict.model,
                    inputs,
                    answer,
                    judged,
                    check.threshold,
                )


def record_line(record: Record) -> str:
    """One record as a JSON line."""
    return json.dumps(asdict(record), ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Agreement:
    """How a judge's verdicts compare with a person's labels of the same answers."""

    labels: int
    agreement: float
    kappa: float
    #: The judge's yes among the person's yes, and its no among the person's no (None:
    #: the person never said it).
    true_positive_rate: float | None
    true_negative_rate: float | None


def agreement(pairs: list[tuple[str, str]]) -> Agreement:
    """Agreement of (judge verdict, person's label) pairs; a judge's `unknown` agrees
    with neither label and counts as neither yes nor no in κ's chance term."""
    count = len(pairs)
    if count == 0:
        raise ValueError("no labels to compare")
    agreed = sum(judge == person for judge, person in pairs) / count
    judge_yes = sum(judge == "yes" for judge, _ in pairs) / count
    judge_no = sum(judge == "no" for judge, _ in pairs) / count
    person_yes = sum(person == "yes" for _, person in pairs) / count
    chance = judge_yes * person_yes + judge_no * (1 - person_yes)
    kappa = 1.0 if chance == 1 else (agreed - chance) / (1 - chance)
    yes = [judge for judge, person in pairs if person == "yes"]
    no = [judge for judge, person in pairs if person == "no"]
    return Agreement(
        count,
        agreed,
        kappa,
        sum(judge == "yes" for judge in yes) / len(yes) if yes else None,
        sum(judge == "no" for judge in no) / len(no) if no else None,
    )


def calibration_path(folder: Path, model: str, rubric_sha256: str) -> Path:
    """Where the calibration of `model` under a rubric is written: one file each."""
    safe = "".join(c if c.isalnum() or c in "-._" else "_" for c in model)[:80]
    return folder / f"{safe}__{rubric_sha256[:16]}.json"
