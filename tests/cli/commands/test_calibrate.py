"""`zeroclaw eval calibrate collect|label|finalize` (`grading.judges.calibration`): a judge's
recorded verdicts measured against a person's labels, end to end through the installed
command, the labels fed on stdin."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import write_fixture
from tests.support.invoke import console_script
from zeroclaw_eval.cases.questions import digest
from zeroclaw_eval.grading.judges.calibration import agreement

RUBRIC = "Does the answer greet the user?"


def _suite(folder: Path, verdicts: list[str]) -> None:
    """One fixture per verdict: a scripted answer and the judge's recorded verdict of it."""
    for number, verdict in enumerate(verdicts):
        answer = f"Hello number {number}!"
        judged = {
            "text_sha256": digest(answer),
            "rubric_sha256": digest(RUBRIC),
            "model": "judge-m",
            "verdict": verdict,
        }
        fixture = {
            "model_name": f"greet-{number:03}",
            "turns": [
                {
                    "user_input": f"Greet me ({number})",
                    "steps": [{"response": {"type": "text", "content": answer}}],
                }
            ],
            # A check that needs no judge beside it: a case no check decides would fail.
            "expects": {"judge": [{"rubric": RUBRIC, "verdicts": [judged]}], "response_contains": ["Hello"]},
        }
        write_fixture(folder / "evals" / "live", f"greet_{number:03}.json", fixture)


def _zeroclaw(
    folder: Path, *args: str, stdin: str = "", command: str = "calibrate"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "USER": "zeroclaw_user"}
    return subprocess.run(
        [console_script(), "eval", command, *args],
        cwd=folder,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_a_judge_that_agrees_with_the_person_is_calibrated_end_to_end(tmp_path: Path) -> None:
    _suite(tmp_path, ["yes"] * 45 + ["no"] * 5)
    collected = _zeroclaw(tmp_path, "collect", "--suite", "evals/live", "-o", "cal/records.jsonl")
    assert collected.returncode == 0, collected.stderr
    assert "Wrote 50 record(s) of 50 fixture(s)" in collected.stderr
    # The person says yes to the first 44 and no to the rest: 49 of 50 agree.
    answers = "y\n" * 44 + "n\n" * 6
    labelled = _zeroclaw(tmp_path, "label", "cal/records.jsonl", stdin=answers)
    assert labelled.returncode == 0, labelled.stderr
    assert "answer: Hello number 0!" in labelled.stdout
    assert "judge-m" not in labelled.stdout  # neither the judge nor its verdict is shown
    assert '"verdict"' not in labelled.stdout
    # Until it is calibrated, the judge decides nothing: its five noes fail no case.
    (tmp_path / "zeroclaw.toml").write_text('[eval]\nsuite_dir = "evals/live"\n', encoding="utf-8")
    before = _zeroclaw(tmp_path, command="run")
    assert before.returncode == 0, before.stdout
    assert "50 judge checks diagnostic, 5 of them failed" in before.stdout
    finalized = _zeroclaw(tmp_path, "finalize", "cal/records.jsonl")  # into [eval].calibration_dir
    assert finalized.returncode == 0, finalized.stderr
    after = _zeroclaw(tmp_path, command="run")  # calibrated: its five noes fail their cases
    assert after.returncode == 1, after.stdout
    assert "45 passed, 5 failed" in after.stdout
    (written,) = (tmp_path / "evals" / "calibration").iterdir()
    calibration: dict[str, Any] = json.loads(written.read_text(encoding="utf-8"))
    assert calibration["model"] == "judge-m"
    assert calibration["rubric_sha256"] == digest(RUBRIC)
    assert calibration["labels"] == 50
    assert calibration["labelers"] == ["zeroclaw_user"]
    assert calibration["agreement"] == pytest.approx(49 / 50)
    assert calibration["true_positive_rate"] == 1.0  # every yes of the person, the judge said too
    assert calibration["true_negative_rate"] == pytest.approx(5 / 6)


def test_labelling_stops_and_resumes_where_it_left_off(tmp_path: Path) -> None:
    _suite(tmp_path, ["yes"] * 3)
    assert _zeroclaw(tmp_path, "collect", "--suite", "evals/live", "-o", "r.jsonl").returncode == 0
    first = _zeroclaw(tmp_path, "label", "r.jsonl", stdin="y\ns\nq\n")  # one label, one skipped, stop
    assert first.returncode == 0
    assert len((tmp_path / "r.labels.jsonl").read_text(encoding="utf-8").splitlines()) == 1
    again = _zeroclaw(tmp_path, "label", "r.jsonl", stdin="n\nn\n")
    assert "2 of 3 record(s) to label" in again.stderr
    labels = [json.loads(line)["label"] for line in (tmp_path / "r.labels.jsonl").read_text().splitlines()]
    assert labels == ["yes", "no", "no"]


def test_49_labels_and_a_low_agreement_are_refused_and_write_nothing(tmp_path: Path) -> None:
    _suite(tmp_path, ["yes"] * 60)
    assert _zeroclaw(tmp_path, "collect", "--suite", "evals/live", "-o", "r.jsonl").returncode == 0
    assert _zeroclaw(tmp_path, "label", "r.jsonl", stdin="y\n" * 49 + "q\n").returncode == 0
    few = _zeroclaw(tmp_path, "finalize", "r.jsonl", "--out-dir", "cal")
    assert few.returncode == 1
    assert "49 label(s), fewer than 50" in few.stderr
    assert not (tmp_path / "cal").exists()
    # Eleven more, all no: 49 of 60 agree (82 %), below the floor of 85 %.
    assert _zeroclaw(tmp_path, "label", "r.jsonl", stdin="n\n" * 11).returncode == 0
    low = _zeroclaw(tmp_path, "finalize", "r.jsonl", "--out-dir", "cal")
    assert low.returncode == 1
    assert "agreement 82%" in low.stderr
    assert "below --min-agreement 0.85: no calibration written" in low.stderr
    assert not (tmp_path / "cal").exists()
    assert (
        _zeroclaw(tmp_path, "finalize", "r.jsonl", "--out-dir", "cal", "--min-agreement", "0.8").returncode
        == 0
    )


def test_kappa_is_agreement_beyond_chance() -> None:
    # A judge that says yes to everything agrees 90 % with a person who says yes to 90 %,
    # and has learnt nothing: kappa 0. Unknown agrees with nobody.
    always = agreement([("yes", "yes")] * 9 + [("yes", "no")])
    assert always.agreement == pytest.approx(0.9)
    assert always.kappa == pytest.approx(0.0)
    perfect = agreement([("yes", "yes")] * 5 + [("no", "no")] * 5)
    assert perfect.kappa == pytest.approx(1.0)
    unsure = agreement([("unknown", "yes"), ("yes", "yes")])
    assert unsure.agreement == 0.5
    assert unsure.true_positive_rate == 0.5


def test_a_records_file_that_is_not_one_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "r.jsonl").write_text('{"id": "x"}\nnot json\n', encoding="utf-8")
    result = _zeroclaw(tmp_path, "label", "r.jsonl")
    assert result.returncode == 2
    assert "is not one `collect` writes" in result.stderr or "not a record or label" in result.stderr
