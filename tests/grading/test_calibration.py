"""Measuring a judge against a person, in-process (`grading.judges.calibration`): which
recorded verdicts become records a person labels, and the agreement, Cohen's kappa and
rates computed from the labels. (The commands around them are
tests/cli/commands/test_calibrate.py's.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import admit_case
from zeroclaw_eval.cases.model import JudgeCheck
from zeroclaw_eval.cases.questions import digest, questions
from zeroclaw_eval.grading.judges.calibration import agreement, calibration_path, record_line, records_of

RUBRIC = "Is the answer polite?"


def _case(folder: Path, answer: str, check: dict[str, Any], verdicts: list[dict[str, Any]]) -> Any:
    fixture = {
        "model_name": "polite",
        "turns": [{"user_input": "Say hi", "steps": [{"response": {"type": "text", "content": answer}}]}],
        "expects": {"judge": [{**check, "verdicts": verdicts}], "response_contains": ["i"]},
    }
    return admit_case(folder, fixture)


def _verdict(question_sha256: str, text: str, verdict: str = "yes", **more: Any) -> dict[str, Any]:
    return {
        "text_sha256": digest(text),
        "rubric_sha256": question_sha256,
        "model": "j",
        "verdict": verdict,
        **more,
    }


def test_a_record_is_made_of_each_verdict_whose_answer_the_script_holds(tmp_path: Path) -> None:
    said = [_verdict(digest(RUBRIC), "Hi there"), _verdict(digest(RUBRIC), "an answer no script holds")]
    (record,) = records_of([_case(tmp_path, "Hi there", {"rubric": RUBRIC}, said)])
    assert (record.answer, record.rubric, record.verdict, record.threshold) == (
        "Hi there",
        RUBRIC,
        "yes",
        None,
    )
    assert record.user_inputs == ["Say hi"]
    assert (record.check, record.model, record.rubric_sha256) == (0, "j", digest(RUBRIC))
    assert len(record.id) == 16
    assert '"answer": "Hi there"' in record_line(record)


def test_a_verdict_of_an_older_rubric_makes_no_record(tmp_path: Path) -> None:
    old = _verdict(digest("Was the answer rude?"), "Hi there")
    assert list(records_of([_case(tmp_path, "Hi there", {"rubric": RUBRIC}, [old])])) == []


def test_a_score_is_read_at_the_checks_threshold(tmp_path: Path) -> None:
    check = {"rubric": RUBRIC, "threshold": 0.6}
    (question,) = questions(0, JudgeCheck.model_validate(check))
    scores = {"Hi there": 0.6, "Hello": 0.59}
    found = {}
    for number, (answer, score) in enumerate(scores.items()):
        said = [_verdict(question.sha256, answer, score=score)]
        (record,) = records_of([_case(tmp_path / str(number), answer, check, said)])
        found[answer] = (record.verdict, record.threshold)
    assert found == {"Hi there": ("yes", 0.6), "Hello": ("no", 0.6)}  # yes from the threshold on
    unknown = [_verdict(question.sha256, "Hi there", verdict="unknown")]
    (record,) = records_of([_case(tmp_path / "u", "Hi there", check, unknown)])
    assert record.verdict == "unknown"


def test_two_records_of_one_case_have_two_ids(tmp_path: Path) -> None:
    said = [_verdict(digest(RUBRIC), "Hi there"), {**_verdict(digest(RUBRIC), "Hi there"), "model": "k"}]
    records = list(records_of([_case(tmp_path, "Hi there", {"rubric": RUBRIC}, said)]))
    assert len({record.id for record in records}) == 2


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        # (agreement, kappa, true-positive rate, true-negative rate)
        ([("yes", "yes")] * 3 + [("no", "no")], (1.0, 1.0, 1.0, 1.0)),
        ([("yes", "no")] * 2 + [("no", "yes")] * 2, (0.0, -1.0, 0.0, 0.0)),
        ([("yes", "yes"), ("no", "yes"), ("no", "no"), ("no", "no")], (0.75, 0.5, 0.5, 1.0)),
        ([("yes", "yes")] * 4, (1.0, 1.0, 1.0, None)),  # the person never said no
        ([("no", "no")] * 2, (1.0, 1.0, None, 1.0)),
        ([("unknown", "no"), ("no", "no")], (0.5, 0.0, None, 0.5)),
    ],
)
def test_agreement_kappa_and_rates(pairs: list[tuple[str, str]], expected: tuple[Any, ...]) -> None:
    measured = agreement(pairs)
    assert measured.labels == len(pairs)
    got = (measured.agreement, measured.kappa, measured.true_positive_rate, measured.true_negative_rate)
    assert got == pytest.approx(expected)


def test_no_labels_is_no_agreement() -> None:
    with pytest.raises(ValueError, match="no labels"):
        agreement([])


def test_a_calibration_file_is_named_by_its_model_and_rubric(tmp_path: Path) -> None:
    path = calibration_path(tmp_path, "org/model:v1 large", "ab" * 32)
    assert path == tmp_path / f"org_model_v1_large__{'ab' * 8}.json"
    assert len(calibration_path(tmp_path, "m" * 200, "cd" * 32).name) == 80 + 2 + 16 + 5
