"""Graded judge checks: a judge asked for a score from 0 to 1 (`threshold`), per named
dimension of the rubric (`dimensions`), live against a loopback judge model, recorded,
replayed, calibrated at their threshold, and refused where they say two things."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.cli.commands.test_run_judge import RUBRIC, configure, run
from tests.cli.commands.test_run_live import text_case
from tests.support.builders import write_fixture
from tests.support.invoke import invoke
from zeroclaw_eval.cases.model import JudgeCheck
from zeroclaw_eval.cases.questions import questions
from zeroclaw_eval.collect.suite import discover
from zeroclaw_eval.grading.judges.check import judge_prompt
from zeroclaw_eval.serve.routing import load_cases
from zeroclaw_eval.serve.server import ReplayServer

DIMENSIONS = ["accuracy", "tone"]


def _scored_case(threshold: float = 0.7) -> dict[str, Any]:
    case = text_case("alpha", "apple")
    case["expects"] = {
        "judge": [{"rubric": RUBRIC, "threshold": threshold, "dimensions": DIMENSIONS}],
        "response_contains": ["apple"],
    }
    return case


def _judge_scripts(folder: Path, scores: dict[str, float]) -> None:
    """What the judge model answers to each dimension's question about "apple"."""
    check = JudgeCheck.model_validate({"rubric": RUBRIC, "threshold": 0.7, "dimensions": DIMENSIONS})
    for question in questions(0, check):
        reply = json.dumps({"score": scores[question.dimension or ""], "reason": f"on {question.dimension}"})
        script = {
            "model_name": "judge",
            "turns": [
                {
                    "user_input": judge_prompt(question.text, "apple"),
                    "steps": [{"response": {"type": "text", "content": reply}}],
                }
            ],
            "expects": {"response_contains": ["score"]},
        }
        write_fixture(folder / "served", f"judge_{question.dimension}.json", script)


def _serve(project: Path, serve: Callable[..., ReplayServer], scores: dict[str, float]) -> None:
    _judge_scripts(project, scores)
    cases = load_cases(discover(project / "suite")) + load_cases(discover(project / "served"))
    configure(project, serve(cases).url)


def test_a_scored_check_is_asked_per_dimension_recorded_and_replayed(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    write_fixture(tmp_path / "suite", "alpha.json", _scored_case())
    _serve(tmp_path, serve, {"accuracy": 0.9, "tone": 0.5})
    live = run(tmp_path, "--mode", "live", "--record", "recorded", "--format", "json", "--details", "all")
    assert live.code == 1, live.stdout + live.stderr  # tone scored under the threshold
    (case,) = live.json()["cases"]
    grades = {g["check_id"]: g for g in case["grades"]}
    assert grades["judge[0].accuracy"]["passed"] is True
    assert grades["judge[0].tone"]["passed"] is False
    assert 'scored 0.5 on "tone", and the check passes from 0.7' in grades["judge[0].tone"]["detail"]
    recorded = json.loads((tmp_path / "recorded" / "alpha.json").read_text(encoding="utf-8"))
    verdicts = recorded["expects"]["judge"][0]["verdicts"]
    assert [(v["dimension"], v["score"], v["verdict"]) for v in verdicts] == [
        ("accuracy", 0.9, "yes"),
        ("tone", 0.5, "yes"),
    ]
    # Replayed offline, the recorded scores grade it; a lower threshold lets tone pass.
    replayed = invoke("eval", "run", str(tmp_path / "recorded"), cwd=tmp_path)
    assert replayed.code == 1
    recorded["expects"]["judge"][0]["threshold"] = 0.5
    (tmp_path / "recorded" / "alpha.json").write_text(json.dumps(recorded), encoding="utf-8")
    assert invoke("eval", "run", str(tmp_path / "recorded"), cwd=tmp_path).code == 0


def test_a_scored_check_that_says_two_things_is_refused(tmp_path: Path) -> None:
    case = _scored_case()
    case["expects"]["judge"][0]["pass_if"] = "no"
    case["expects"]["judge"][0]["dimensions"] = ["tone", "tone"]
    path = write_fixture(tmp_path, "alpha.json", case)
    result = invoke("eval", "check", str(path), cwd=tmp_path)
    assert result.code == 1
    assert "a check with a threshold passes on a score, not on a verdict" in result.stdout
    assert "the dimension 'tone' is named twice" in result.stdout


def test_a_scored_judge_is_calibrated_at_its_threshold(tmp_path: Path) -> None:
    """`collect` reads each score at the check's threshold; the calibration holds for that
    threshold alone: the check at another one is diagnostic until calibrated again."""
    check = JudgeCheck.model_validate({"rubric": RUBRIC, "threshold": 0.7})
    (question,) = questions(0, check)
    from zeroclaw_eval.cases.questions import digest

    for number in range(50):
        answer = f"apple number {number}"
        said = {
            "text_sha256": digest(answer),
            "rubric_sha256": question.sha256,
            "model": "judge-m",
            "verdict": "yes",
            "score": 0.9 if number < 45 else 0.3,
        }
        fixture = text_case(f"c{number:02}", answer)
        fixture["expects"] = {"judge": [{"rubric": RUBRIC, "threshold": 0.7, "verdicts": [said]}]}
        fixture["expects"]["response_contains"] = ["apple"]
        write_fixture(tmp_path / "evals" / "regression", f"c{number:02}.json", fixture)
    (tmp_path / "zeroclaw.toml").write_text("[eval]\n", encoding="utf-8")
    collected = invoke("eval", "calibrate", "collect", "-o", "r.jsonl", cwd=tmp_path)
    assert collected.code == 0, collected.stderr
    records = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {(r["verdict"], r["threshold"]) for r in records} == {("yes", 0.7), ("no", 0.7)}
    labels = "y\n" * 45 + "n\n" * 5  # the person agrees with every score read at 0.7
    assert invoke("eval", "calibrate", "label", "r.jsonl", cwd=tmp_path, stdin=labels).code == 0
    assert invoke("eval", "calibrate", "finalize", "r.jsonl", cwd=tmp_path).code == 0
    (written,) = (tmp_path / "evals" / "calibration").iterdir()
    assert json.loads(written.read_text(encoding="utf-8"))["threshold"] == 0.7
    gated = invoke("eval", "run", "--format", "json", cwd=tmp_path)
    assert gated.code == 1  # calibrated: the five scores of 0.3 fail their cases
    for path in (tmp_path / "evals" / "regression").iterdir():  # the same check at 0.2
        data = json.loads(path.read_text(encoding="utf-8"))
        data["expects"]["judge"][0]["threshold"] = 0.2
        path.write_text(json.dumps(data), encoding="utf-8")
    moved = invoke("eval", "run", "--format", "json", "--details", "all", cwd=tmp_path)
    assert moved.code == 0  # every score passes 0.2, and the judge decides nothing there
    grade = next(g for g in moved.json()["cases"][0]["grades"] if g["check_id"] == "judge[0]")
    assert "was calibrated at the threshold 0.7" in grade["detail"]
    assert "the check asks 0.2" in grade["detail"]


def test_a_threshold_of_zero_and_verdicts_that_do_not_fit_their_question_are_refused(tmp_path: Path) -> None:
    from zeroclaw_eval.cases.questions import digest

    check = JudgeCheck.model_validate({"rubric": RUBRIC, "threshold": 0.7, "dimensions": DIMENSIONS})
    accuracy, tone = questions(0, check)
    base = {"text_sha256": digest("apple"), "model": "judge"}
    cases = {
        "zero": ({"threshold": 0}, [], "greater than 0"),
        "no score": (
            {},
            [{**base, "rubric_sha256": accuracy.sha256, "verdict": "yes", "dimension": "accuracy"}],
            "this verdict gives none",
        ),
        "no with score": (
            {},
            [
                {
                    **base,
                    "rubric_sha256": accuracy.sha256,
                    "verdict": "no",
                    "score": 0.9,
                    "dimension": "accuracy",
                }
            ],
            "carries no score",
        ),
        "other dimension": (
            {},
            [{**base, "rubric_sha256": tone.sha256, "verdict": "yes", "score": 0.9, "dimension": "accuracy"}],
            "names the dimension 'accuracy'",
        ),
    }
    for name, (change, verdicts, said) in cases.items():
        case = _scored_case()
        case["expects"]["judge"][0].update(change)
        case["expects"]["judge"][0]["verdicts"] = verdicts
        path = write_fixture(tmp_path / name.replace(" ", "_"), "alpha.json", case)
        result = invoke("eval", "check", str(path), cwd=tmp_path)
        assert result.code == 1, name
        assert said in result.stdout, (name, result.stdout)
    plain = text_case("alpha", "apple")  # a yes-or-no check whose verdict gives a score
    plain["expects"] = {
        "judge": [
            {
                "rubric": RUBRIC,
                "verdicts": [{**base, "rubric_sha256": digest(RUBRIC), "verdict": "yes", "score": 0.5}],
            }
        ]
    }
    path = write_fixture(tmp_path / "plain", "alpha.json", plain)
    result = invoke("eval", "check", str(path), cwd=tmp_path)
    assert result.code == 1
    assert "the check asks yes or no: this verdict gives a score" in result.stdout
