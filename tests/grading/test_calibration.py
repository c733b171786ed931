"""Measuring a judge against a person, in-process (`grading.judges.calibration`): which
recorded verdicts become records a person labels, and the agreement, Cohen's kappa and
rates computed from the labels. (The commands around them are
tests/cli/commands/test_calibrate.py's.)"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import admit_case
from zeroclaw_eval.cases.model import JudgeCheck
from zeroclaw_eval.cases.questions import digest, questions
from zeroclaw_eval.grading.judges.calibration import agreement, calibration_path, record_line, records_of

RUBRIC = "Is the answer polite?"


def _fixture(
    answer: str, verdicts: list[dict[str, Any]], check: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "model_name": "polite",
        "turns": [{"user_input": "Say hi", "steps": [{"response": {"type": "text", "content": answer}}]}],
        "expects": {
            "judge": [{**(check or {"rubric": RUBRIC}), "verdicts": verdicts}],
            "response_contains": ["i"],
        },
    }


def _case(folder: Path, answer: str, check: dict[str, Any], verdicts: list[dict[str, Any]]) -> Any:
    return admit_case(folder, _fixture(answer, verdicts, check))


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


def test_a_verdict_whose_answer_no_script_holds_is_skipped_not_the_ones_after_it(tmp_path: Path) -> None:
    said = [_verdict(digest(RUBRIC), "an answer no script holds"), _verdict(digest(RUBRIC), "Hi there")]
    case = _case(tmp_path, "Hi there", {"rubric": RUBRIC}, said)
    (record,) = records_of([case])
    assert (record.answer, record.fixture) == ("Hi there", str(case.path))


def test_a_record_keeps_its_id_so_saved_labels_still_find_it(tmp_path: Path) -> None:
    # The id is what a person's saved label names: the same fixture, check and verdict
    # must have the same id in every later release, and two checks of one case two ids.
    said = [_verdict(digest(RUBRIC), "Hi there")]
    check = {"rubric": RUBRIC, "verdicts": said}
    fixture = {
        "model_name": "polite",
        "turns": [{"user_input": "Say hi", "steps": [{"response": {"type": "text", "content": "Hi there"}}]}],
        "expects": {"judge": [check, check], "response_contains": ["i"]},
    }
    records = list(records_of([admit_case(tmp_path, fixture)]))
    # The id: sha256 of the file's name, the check's index, the judge model and the two
    # digests, joined by NUL, in 16 hex digits.
    named = [
        "\0".join(("case.json", str(index), "j", digest(RUBRIC), digest("Hi there"))) for index in (0, 1)
    ]
    assert [record.id for record in records] == [
        hashlib.sha256(key.encode()).hexdigest()[:16] for key in named
    ]


def test_a_fixture_whose_file_name_is_not_utf8_still_makes_records(tmp_path: Path) -> None:
    # A byte that is no UTF-8 in a file name reaches Python as a lone surrogate.
    name = b"caf\xe9.json".decode("utf-8", "surrogateescape")
    case = admit_case(tmp_path, _fixture("Hi there", [_verdict(digest(RUBRIC), "Hi there")]), name)
    (record,) = records_of([case])
    assert (record.fixture, len(record.id)) == (str(tmp_path / name), 16)


def test_a_conversation_with_an_unscripted_turn_still_makes_records(tmp_path: Path) -> None:
    fixture = _fixture("Hi there", [_verdict(digest(RUBRIC), "Hi there")])
    fixture["turns"].append({"user_input": "And now?"})  # a turn a live model answers
    (record,) = records_of([admit_case(tmp_path, fixture)])
    assert (record.answer, record.user_inputs) == ("Hi there", ["Say hi", "And now?"])


def test_a_record_line_keeps_non_ascii_text_as_written(tmp_path: Path) -> None:
    said = [_verdict(digest(RUBRIC), "Grüß dich")]
    (record,) = records_of([_case(tmp_path, "Grüß dich", {"rubric": RUBRIC}, said)])
    assert '"answer": "Grüß dich"' in record_line(record)


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
    with pytest.raises(ValueError, match=r"^no labels to compare$"):
        agreement([])


def test_a_calibration_file_is_named_by_its_model_and_rubric(tmp_path: Path) -> None:
    path = calibration_path(tmp_path, "org/model:v1 large", "ab" * 32)
    assert path == tmp_path / f"org_model_v1_large__{'ab' * 8}.json"
    assert len(calibration_path(tmp_path, "m" * 200, "cd" * 32).name) == 80 + 2 + 16 + 5
