"""`[eval].judge_gate` (`grading.judges.gate`): a judge check decides a case only where a
calibration file backs its judge model on its rubric at the floor; elsewhere it is
reported as diagnostic, in every output, and decides nothing: not the run, not
vacuity, not a mutant."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import write_fixture
from tests.support.invoke import Result, invoke
from zeroclaw_eval.cases.questions import digest

RUBRIC = "Does the answer name a fruit?"
JUDGE = "judge-m"


def _fixture(
    folder: Path,
    verdict: str,
    *,
    answer: str = "apple",
    extra: dict[str, Any] | None = None,
    name: str = "alpha",
) -> Path:
    said = {
        "text_sha256": digest("apple"),
        "rubric_sha256": digest(RUBRIC),
        "model": JUDGE,
        "verdict": verdict,
    }
    fixture = {
        "model_name": name,
        "turns": [
            {"user_input": "Name a fruit", "steps": [{"response": {"type": "text", "content": answer}}]}
        ],
        # A check that needs no judge, which passes whatever the answer: the judge's check
        # alone decides whether the case can fail.
        "expects": {
            "judge": [{"rubric": RUBRIC, "verdicts": [said]}],
            **({"response_not_contains": ["banana"]} if extra is None else extra),
        },
    }
    return write_fixture(folder / "evals" / "regression", f"{name}.json", fixture)


def _calibration(folder: Path, agreement: float = 0.96, *, model: str = JUDGE, rubric: str = RUBRIC) -> Path:
    """A calibration file as `calibrate finalize` writes one (its own test makes one)."""
    path = folder / "evals" / "calibration" / f"{model}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    calibration = {
        "schema_version": 1,
        "model": model,
        "rubric_sha256": digest(rubric),
        "rubric": rubric,
        "labelers": ["zeroclaw_user"],
        "date": "2026-12-07",
        "labels": 50,
        "agreement": agreement,
        "kappa": 0.8,
        "true_positive_rate": 1.0,
        "true_negative_rate": 0.9,
        "labels_sha256": "0" * 64,
    }
    path.write_text(json.dumps(calibration), encoding="utf-8")
    return path


def _config(folder: Path, text: str = "") -> None:
    (folder / "zeroclaw.toml").write_text(f"[eval]\n{text}", encoding="utf-8")


def _run(folder: Path, *args: str) -> Result:
    return invoke("eval", "run", *args, cwd=folder)


def _judge_grade(result: Result) -> dict[str, Any]:
    (case,) = result.json()["cases"]
    (grade,) = [g for g in case["grades"] if g["check_id"] == "judge[0]"]
    return dict(grade)


def test_an_uncalibrated_judge_that_says_no_decides_nothing_and_says_so(tmp_path: Path) -> None:
    _config(tmp_path)
    (tmp_path / "evals" / "calibration").mkdir(parents=True)  # there, and empty
    _fixture(tmp_path, "no")
    result = _run(tmp_path, "--format", "json")
    assert result.code == 0, result.stdout
    grade = _judge_grade(result)
    assert grade["passed"] is False
    assert grade["diagnostic"] is True
    assert grade["detail"].endswith(
        f'[diagnostic: the judge "{JUDGE}" has no calibration on this rubric in "evals/calibration"'
        " (calibrate it with `zeroclaw eval calibrate`, or set [eval].judge_gate)]"
    )
    assert result.json()["diagnostic_checks"] == {"total": 1, "failed": 1}
    assert result.json()["cases"][0]["status"] == "passed"
    table = _run(tmp_path)
    assert table.code == 0
    assert "~ judge[0] [response, diagnostic]" in table.stdout
    assert "1 judge check diagnostic, 1 of them failed" in table.stdout


def test_a_calibrated_judge_gates_and_a_saying_yes_passes(tmp_path: Path) -> None:
    _config(tmp_path)
    _calibration(tmp_path)
    _fixture(tmp_path, "no")
    failing = _run(tmp_path, "--format", "json")
    assert failing.code == 1
    grade = _judge_grade(failing)
    assert grade["diagnostic"] is False
    assert "diagnostic" not in grade["detail"]
    _fixture(tmp_path, "yes")
    assert _run(tmp_path).code == 0


def test_a_calibration_of_another_model_or_rubric_does_not_back_the_check(tmp_path: Path) -> None:
    _config(tmp_path)
    _calibration(tmp_path, model="another-judge")
    _calibration(tmp_path, rubric="Is the answer polite?")
    _fixture(tmp_path, "no")
    assert _run(tmp_path).code == 0


def test_a_calibration_below_the_floor_is_diagnostic_and_the_floor_is_configurable(tmp_path: Path) -> None:
    _config(tmp_path)
    _calibration(tmp_path, agreement=0.8)
    _fixture(tmp_path, "no")
    result = _run(tmp_path, "--format", "json")
    assert result.code == 0
    assert "agrees with a person on 80% of 50 labels" in _judge_grade(result)["detail"]
    assert "below [eval].judge_min_agreement 0.85" in _judge_grade(result)["detail"]
    _config(tmp_path, "judge_min_agreement = 0.75\n")
    assert _run(tmp_path).code == 1


@pytest.mark.parametrize(("gate", "code"), [("always", 1), ("never", 0)])
def test_always_and_never(tmp_path: Path, gate: str, code: int) -> None:
    _config(tmp_path, f'judge_gate = "{gate}"\n')
    _calibration(tmp_path)  # `never` ignores it; `always` needs none
    _fixture(tmp_path, "no")
    result = _run(tmp_path, "--format", "json")
    assert result.code == code
    detail = _judge_grade(result)["detail"]
    assert detail.endswith("[diagnostic: [eval].judge_gate is never]") == (gate == "never")


def test_an_agreement_at_the_floor_gates(tmp_path: Path) -> None:
    _config(tmp_path)
    _calibration(tmp_path, agreement=0.85)
    _fixture(tmp_path, "no")
    assert _run(tmp_path).code == 1
    _fixture(tmp_path, "yes", answer="pear")  # no verdict: the rubric's calibration at the floor
    assert _run(tmp_path).code == 1
    _calibration(tmp_path, agreement=0.5)  # below the floor, the rubric's only calibration backs nothing
    result = _run(tmp_path, "--format", "json")
    assert result.code == 0
    assert "no judge is calibrated on this rubric" in _judge_grade(result)["detail"]


def test_an_answer_no_verdict_covers_gates_where_the_rubric_is_calibrated(tmp_path: Path) -> None:
    _config(tmp_path)
    _fixture(tmp_path, "yes", answer="pear")  # the recorded verdict judged "apple"
    result = _run(tmp_path, "--format", "json")
    assert result.code == 0
    assert "no judge is calibrated on this rubric" in _judge_grade(result)["detail"]
    _calibration(tmp_path)
    again = _run(tmp_path, "--format", "json")
    assert again.code == 1
    assert "no verdict is recorded for this final response" in _judge_grade(again)["detail"]


def test_the_calibration_folder_is_configurable(tmp_path: Path) -> None:
    moved = _calibration(tmp_path)
    (tmp_path / "judges").mkdir()
    moved.rename(tmp_path / "judges" / moved.name)
    _fixture(tmp_path, "no")
    _config(tmp_path)
    assert _run(tmp_path).code == 0
    _config(tmp_path, 'calibration_dir = "judges"\n')
    assert _run(tmp_path).code == 1
    _calibration(tmp_path, model="another-judge").rename(tmp_path / "judges" / moved.name)  # not this judge
    result = _run(tmp_path, "--format", "json")
    assert result.code == 0
    assert 'has no calibration on this rubric in "judges" (' in _judge_grade(result)["detail"]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"rubric_sha256": "0" * 64}, "`rubric_sha256` is not the SHA-256 of its `rubric`"),
        ({"labels": 49}, "`labels` must be a count of 50 or more, not 49"),
        ({"agreement": 1.5}, "`agreement` must be a share from 0 to 1, not 1.5"),
        ({"schema_version": 2}, "schema_version 2, where this version of zeroclaw-eval reads 1"),
        ({"model": None}, "`model` is missing or not a string"),
        ({"model": ""}, "`model` is missing or not a string"),
        ({"labels": True}, "`labels` must be a count of 50 or more, not True"),
        ({"labels": "many"}, "`labels` must be a count of 50 or more, not 'many'"),
        ({"agreement": True}, "`agreement` must be a share from 0 to 1, not True"),
        ({"threshold": 1.5}, "`threshold` must be null or a score from 0 to 1, not 1.5"),
        ({"threshold": True}, "`threshold` must be null or a score from 0 to 1, not True"),
    ],
)
def test_a_calibration_file_that_is_not_one_stops_the_run(
    tmp_path: Path, change: dict[str, Any], said: str
) -> None:
    _config(tmp_path)
    path = _calibration(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, **change}), encoding="utf-8")
    _fixture(tmp_path, "yes")
    result = _run(tmp_path)
    assert result.code == 2
    assert str(path) in result.stderr
    assert f"{said}; write it again with `zeroclaw eval calibrate finalize`" in _flat(result.stderr)
    assert "(or move it out of the calibration folder)" in _flat(result.stderr)
    assert "Traceback" not in result.stderr


def _flat(text: str) -> str:
    """`text` with its lines joined (an error message is wrapped to the terminal)."""
    return " ".join(text.split())


def test_a_calibration_file_that_is_no_json_object_stops_the_run(tmp_path: Path) -> None:
    _config(tmp_path)
    path = _calibration(tmp_path)
    path.write_text("[]", encoding="utf-8")
    _fixture(tmp_path, "yes")
    result = _run(tmp_path)
    assert result.code == 2
    assert ": not a JSON object; write it again" in _flat(result.stderr)


@pytest.mark.parametrize("change", [{"agreement": 0}, {"threshold": 0}, {"threshold": 1}])
def test_a_calibration_at_the_bounds_of_its_values_is_read(tmp_path: Path, change: dict[str, Any]) -> None:
    # Read, it backs nothing here (an agreement of 0 is below the floor; a threshold is
    # another judge than this yes-or-no check's), so the judge's no decides nothing.
    _config(tmp_path)
    path = _calibration(tmp_path)
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), **change}), encoding="utf-8")
    _fixture(tmp_path, "no")
    result = _run(tmp_path, "--format", "json")
    assert result.code == 0, result.stderr
    detail = _judge_grade(result)["detail"]
    if "threshold" in change:
        assert f"was calibrated at the threshold {change['threshold']} ({path.name!r}"[:-1] in detail.replace(
            '"', "'"
        )
    else:
        assert "agrees with a person on 0% of 50 labels" in detail


def test_a_calibration_file_that_is_not_json_stops_the_run(tmp_path: Path) -> None:
    _config(tmp_path)
    path = _calibration(tmp_path)
    path.write_text("{not json", encoding="utf-8")
    _fixture(tmp_path, "yes")
    result = _run(tmp_path)
    assert result.code == 2
    assert f"{path}: not JSON" in result.stderr


def test_two_calibrations_of_one_judge_and_rubric_stop_the_run(tmp_path: Path) -> None:
    _config(tmp_path)
    first = _calibration(tmp_path)
    (first.parent / "copy.json").write_text(first.read_text(encoding="utf-8"), encoding="utf-8")
    _fixture(tmp_path, "yes")
    result = _run(tmp_path)
    assert result.code == 2
    assert f"calibrates {JUDGE} on the rubric {digest(RUBRIC)[:12]}, as" in _flat(result.stderr)
    assert "keep one of them" in result.stderr


def test_a_case_whose_only_failing_check_is_diagnostic_is_vacuous(tmp_path: Path) -> None:
    _config(tmp_path)
    _fixture(tmp_path, "yes")  # and response_not_contains, which an empty run passes
    vacuous = invoke("eval", "vacuity", cwd=tmp_path)
    assert vacuous.code == 1
    assert "no check that decides the case fails" in vacuous.stdout
    assert "fails against an empty run but decides nothing" in vacuous.stdout
    _calibration(tmp_path)
    assert invoke("eval", "vacuity", cwd=tmp_path).code == 0
    _fixture(tmp_path, "yes", extra={"response_contains": ["apple"]})  # a check of its own
    (tmp_path / "evals" / "calibration" / f"{JUDGE}.json").unlink()
    assert invoke("eval", "vacuity", cwd=tmp_path).code == 0


def test_a_case_no_check_decides_fails_whatever_the_judge_said(tmp_path: Path) -> None:
    # Judge checks alone, none calibrated: nothing could fail the case, so it fails, saying why.
    _config(tmp_path)
    _fixture(tmp_path, "yes", extra={})
    result = _run(tmp_path, "--format", "json")
    assert result.code == 1
    (case,) = result.json()["cases"]
    (undecided,) = [g for g in case["grades"] if g["check_id"] == "judge_gate"]
    assert undecided["passed"] is False
    assert (
        "no check decides this case: its one check is judge checks no calibration backs"
        in undecided["detail"]
    )
    assert undecided["field"]["pointer"] == "/expects/judge"
    assert undecided["category"] == "response"
    assert undecided["detail"] == (
        "no check decides this case: its one check is judge checks no calibration backs (see each), so it"
        " would pass whatever the agent did; calibrate the judge (zeroclaw eval calibrate), add a check"
        ' that needs no judge (response_contains, a tool check, ...), or set [eval].judge_gate = "always"'
    )
    _calibration(tmp_path)  # calibrated, the judge decides: it said yes
    assert _run(tmp_path).code == 0
    _config(tmp_path, 'judge_gate = "never"\n')  # never: nothing decides again
    assert _run(tmp_path).code == 1
    # Such a case fails an empty run too: it is not vacuous, it is undecided.
    assert invoke("eval", "vacuity", cwd=tmp_path).code == 0


def test_a_library_run_lets_every_judge_decide(tmp_path: Path) -> None:
    # Options built by hand read no configuration: the judge decides, failing closed.
    from zeroclaw_eval import run_suite

    _fixture(tmp_path, "no")
    assert run_suite(tmp_path / "evals" / "regression").exit_code() == 1


def test_a_calibration_folder_that_is_mistyped_says_so_and_one_that_is_a_file_stops_the_run(
    tmp_path: Path,
) -> None:
    _calibration(tmp_path)
    _fixture(tmp_path, "no")
    _config(tmp_path, 'calibration_dir = "evals/calibrations"\n')
    result = _run(tmp_path, "--format", "json")
    assert result.code == 0
    assert 'in "evals/calibrations", which does not exist' in _judge_grade(result)["detail"]
    _config(tmp_path, 'calibration_dir = "evals/regression/alpha.json"\n')
    stopped = _run(tmp_path)
    assert stopped.code == 2
    assert "[eval].calibration_dir names a file, not a folder" in stopped.stderr


def test_a_pipe_or_a_key_twice_in_the_calibration_folder_stops_the_run(tmp_path: Path) -> None:
    import os

    _config(tmp_path)
    path = _calibration(tmp_path)
    _fixture(tmp_path, "yes")
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:-1] + ', "agreement": 0.99}', encoding="utf-8")  # the last one would win
    twice = _run(tmp_path)
    assert twice.code == 2
    assert "a key twice" in twice.stderr
    path.unlink()
    os.mkfifo(path)  # read, it would wait for a writer for ever
    piped = _run(tmp_path)
    assert piped.code == 2
    assert "not a file" in piped.stderr


def test_a_diagnostic_judge_kills_no_mutant(tmp_path: Path) -> None:
    _config(tmp_path)
    path = _fixture(tmp_path, "yes", extra={"response_not_contains": ["banana"]})

    def killers() -> list[list[str]]:
        result = invoke("eval", "mutate", str(path), "--format", "json", cwd=tmp_path)
        data = json.loads(result.stdout)
        return [
            m["killed_by"]
            for f in data["fixtures"]
            for m in f["mutants"]
            if m["operator"] == "alter_response"
        ]

    uncalibrated = killers()
    assert uncalibrated
    assert not any(uncalibrated), "an uncalibrated judge killed a mutant"
    _calibration(tmp_path)
    assert all("judge[0]" in killed for killed in killers())


def test_every_output_shows_a_failed_diagnostic_check(tmp_path: Path) -> None:
    _config(tmp_path)
    _fixture(tmp_path, "no")
    reports = tmp_path / "reports"
    result = _run(
        tmp_path,
        "--format",
        "github",
        "--report",
        f"junit={reports / 'eval.xml'}",
        "--report",
        f"html={reports / 'eval.html'}",
        "--report",
        f"json={reports / 'eval.json'}",
    )
    assert result.code == 0
    assert "::notice file=evals/regression/alpha.json,line=" in result.stdout
    assert "title=alpha.json%3A judge[0] (diagnostic)::" in result.stdout
    assert "::error" not in result.stdout
    tree = ET.parse(reports / "eval.xml")
    properties = {p.get("name"): p.get("value") for p in tree.iter("property")}
    assert "judge[0] failed at" in (properties.get("zeroclaw.diagnostic") or "")
    assert "1 judge check diagnostic" in (properties.get("zeroclaw.diagnostic_checks") or "")
    assert not list(tree.iter("failure"))
    page = (reports / "eval.html").read_text(encoding="utf-8")
    assert "Diagnostic checks that failed (reported, deciding nothing)" in page
    assert 'id="diagnostic-checks"' in page
    # The saved report keeps the mark: a comment made from it says so too.
    comment = invoke("eval", "compare", str(reports / "eval.json"), str(reports / "eval.json"), cwd=tmp_path)
    assert comment.code == 0, comment.stderr
    assert "1 judge check diagnostic, 1 of them failed" in comment.stdout
    assert "Diagnostic checks that failed, deciding nothing (1)" in comment.stdout


def test_a_case_that_passes_only_as_its_judge_stopped_deciding_is_no_plain_fix(tmp_path: Path) -> None:
    _config(tmp_path)
    calibration = _calibration(tmp_path)
    _fixture(tmp_path, "no")
    assert _run(tmp_path, "--report", "json=base.json").code == 1
    calibration.unlink()  # the judge no longer decides: the case passes, nothing was fixed
    assert _run(tmp_path, "--report", "json=head.json").code == 0
    comment = invoke("eval", "compare", "base.json", "head.json", cwd=tmp_path)
    assert comment.code == 0, comment.stderr
    assert "`evals/regression/alpha.json` (a judge check that fails is now diagnostic)" in comment.stdout


def test_a_case_of_two_judge_checks_no_calibration_backs_counts_them(tmp_path: Path) -> None:
    _config(tmp_path)
    path = _fixture(tmp_path, "yes", extra={})
    fixture = json.loads(path.read_text(encoding="utf-8"))
    judge = fixture["expects"]["judge"][0]
    fixture["expects"]["judge"] = [judge, {**judge, "rubric": "Is the answer short?", "verdicts": []}]
    path.write_text(json.dumps(fixture), encoding="utf-8")
    result = _run(tmp_path, "--format", "json")
    assert result.code == 1
    (case,) = result.json()["cases"]
    (undecided,) = [g for g in case["grades"] if g["check_id"] == "judge_gate"]
    assert undecided["detail"].startswith("no check decides this case: its 2 checks are judge checks")


def test_a_gate_loaded_without_a_shown_name_names_its_folder(tmp_path: Path) -> None:
    from zeroclaw_eval.grading.judges.gate import load_gate

    folder = tmp_path / "none"
    reason = load_gate("calibrated", folder).diagnostic_reason(JUDGE, digest(RUBRIC))
    assert reason is not None
    assert f'{folder}", which does not exist' in reason


def test_a_calibration_that_is_a_device_stops_the_run(tmp_path: Path) -> None:
    _config(tmp_path)
    path = _calibration(tmp_path)
    path.unlink()
    path.symlink_to("/dev/null")  # read, it would be empty: refused as no file at all
    _fixture(tmp_path, "yes")
    result = _run(tmp_path)
    assert result.code == 2
    assert "not a file: give a calibration file as a file" in _flat(result.stderr)


def test_each_dimension_is_gated_by_the_calibration_of_its_own_judge(tmp_path: Path) -> None:
    # Two dimensions (one with a "]" in its name), answered by two judge models; only the
    # second's model is calibrated, on the second dimension's question.
    _config(tmp_path)
    path = _fixture(tmp_path, "no")
    fixture = json.loads(path.read_text(encoding="utf-8"))
    names = ["tone]x", "length"]
    asked = [f"{RUBRIC}\n\nJudge this dimension only: {name}" for name in names]
    fixture["expects"]["judge"] = [
        {
            "rubric": RUBRIC,
            "dimensions": names,
            "verdicts": [
                {
                    "text_sha256": digest("apple"),
                    "rubric_sha256": digest(question),
                    "model": model,
                    "verdict": verdict,
                    "dimension": name,
                }
                for name, question, model, verdict in zip(
                    names, asked, ["other-judge", JUDGE], ["no", "yes"], strict=True
                )
            ],
        }
    ]
    path.write_text(json.dumps(fixture), encoding="utf-8")
    _calibration(tmp_path, rubric=asked[1])
    result = _run(tmp_path, "--format", "json")
    assert result.code == 0, result.stdout
    (case,) = result.json()["cases"]
    judged = {g["check_id"]: g for g in case["grades"] if g["check_id"].startswith("judge[")}
    assert (
        judged["judge[0].tone]x"]["diagnostic"] is True
    )  # its judge is not calibrated: its no decides nothing
    assert "other-judge" in judged["judge[0].tone]x"]["detail"]
    assert judged["judge[0].length"]["diagnostic"] is False
    # The calibrated judge's no on its dimension decides the case.
    fixture["expects"]["judge"][0]["verdicts"][1]["verdict"] = "no"
    path.write_text(json.dumps(fixture), encoding="utf-8")
    assert _run(tmp_path).code == 1


def test_a_gate_of_another_mode_is_refused() -> None:
    from zeroclaw_eval.grading.judges.gate import JudgeGate

    said = "judge_gate must be one of calibrated, always, never, not 'sometimes'"
    with pytest.raises(ValueError, match=f"^{re.escape(said)}$"):
        JudgeGate("sometimes")


def test_a_calibration_file_too_large_to_be_one_stops_the_run(tmp_path: Path) -> None:
    _config(tmp_path)
    path = _calibration(tmp_path)
    path.write_text(" " * (1024 * 1024 + 1), encoding="utf-8")
    _fixture(tmp_path, "yes")
    result = _run(tmp_path)
    assert result.code == 2
    assert _flat(result.stderr).endswith(
        "over the 1,048,576-byte limit for a calibration file; write it again with `zeroclaw eval calibrate"
        " finalize`"
    )


def test_a_calibration_folder_that_cannot_be_read_stops_the_run(tmp_path: Path) -> None:
    _fixture(tmp_path, "yes")
    (tmp_path / "loop").symlink_to("loop")  # a folder no one can list, even root
    _config(tmp_path, 'calibration_dir = "loop"\n')
    result = _run(tmp_path)
    assert result.code == 2
    said = _flat(result.stderr)
    assert f"cannot read the calibration folder {tmp_path / 'loop'}: " in said
    assert "Errno" not in said  # the system's words for the error, not the exception's repr
