"""The `judge` check: graded live by a judge model (`ReplayServer` on loopback serving
both the agent's model and the judge's), its verdict recorded by `--record` and
`--rejudge`, and graded in replay from the recorded verdict alone: passing and failing
as recorded, failing closed when no verdict matches the answer or the rubric. Every
judge check here gates (`judge_gate = "always"`): which ones do by default is
tests/cli/commands/test_judge_gate.py's."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.commands.test_run_live import API_KEY, KEY_ENV, text_case
from tests.support.builders import write_fixture
from tests.support.invoke import Result, invoke
from zeroclaw_eval.collect.suite import discover
from zeroclaw_eval.grading.judges.check import judge_prompt
from zeroclaw_eval.serve.routing import load_cases
from zeroclaw_eval.serve.server import ReplayServer

RUBRIC = "Does the answer name a fruit?"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def judged_case(pass_if: str = "yes") -> dict[str, Any]:
    case = text_case("alpha", "apple")
    case["expects"] = {"judge": [{"rubric": RUBRIC, "pass_if": pass_if}]}
    return case


def judge_script(answer: str, verdict: str, reason: str | None = None) -> dict[str, Any]:
    """What the judge model (served as the model `judge`) answers about `answer`."""
    said = reason if reason is not None else f"{answer} is{'' if verdict == 'yes' else ' not'} a fruit"
    reply = json.dumps({"verdict": verdict, "reason": said})
    return {
        "model_name": "judge",
        "turns": [
            {
                "user_input": judge_prompt(RUBRIC, answer),
                "steps": [{"response": {"type": "text", "content": reply}}],
            }
        ],
        "expects": {"response_contains": [verdict]},
    }


def configure(project: Path, url: str, judge: str = "judge") -> None:
    (project / "zeroclaw.toml").write_text(
        f"""[eval]
suite_dir = "suite"
judge_gate = "always"
live_provider = "local"
judge_provider = "{judge}"

[providers.models.local]
base_url = "{url}"
model = "served"
api_key_env = "{KEY_ENV}"

[providers.models.judge]
base_url = "{url}"
model = "judge"
api_key_env = "{KEY_ENV}"
""",
        encoding="utf-8",
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write_fixture(tmp_path / "suite", "alpha.json", judged_case())
    return tmp_path


def _served(
    project: Path,
    serve: Callable[..., ReplayServer],
    verdict: str = "yes",
    answer: str = "apple",
    reason: str | None = None,
) -> str:
    """Serve the suite (the agent's model) and the judge's script; the URL."""
    write_fixture(project / "served", "judge.json", judge_script(answer, verdict, reason))
    cases = load_cases(discover(project / "suite")) + load_cases(discover(project / "served"))
    server = serve(cases)
    configure(project, server.url)
    return server.url


def run(project: Path, *args: str) -> Result:
    return invoke("eval", "run", *args, cwd=project, env={KEY_ENV: API_KEY})


def _grade(result: Result) -> dict[str, Any]:
    (case,) = result.json()["cases"]
    (grade,) = [g for g in case["grades"] if g["check_id"] == "judge[0]"]
    return dict(grade)


def test_a_live_run_is_judged_and_record_keeps_the_verdict(
    project: Path, serve: Callable[..., ReplayServer]
) -> None:
    _served(project, serve)
    result = run(project, "--mode", "live", "--record", "recorded", "--format", "json", "--details", "all")
    assert result.code == 0, result.stdout + result.stderr
    assert "the judge (judge) answered yes" in _grade(result)["detail"]
    recorded = json.loads((project / "recorded" / "alpha.json").read_text())
    (verdict,) = recorded["expects"]["judge"][0]["verdicts"]
    assert verdict == {
        "text_sha256": _digest("apple"),
        "rubric_sha256": _digest(RUBRIC),
        "model": "judge",
        "verdict": "yes",
        "reason": "apple is a fruit",
    }
    # Replayed, offline: the recorded verdict grades it.
    (project / "zeroclaw.toml").write_text('[eval]\njudge_gate = "always"\n')  # no provider: offline
    replayed = invoke(
        "eval", "run", str(project / "recorded"), "--format", "json", "--details", "all", cwd=project
    )
    assert replayed.code == 0, replayed.stdout
    assert _grade(replayed)["passed"] is True


def test_a_live_no_fails_and_pass_if_no_passes(project: Path, serve: Callable[..., ReplayServer]) -> None:
    _served(project, serve, verdict="no")
    failing = run(project, "--mode", "live", "--format", "json", "--details", "all")
    assert failing.code == 1
    assert _grade(failing)["passed"] is False
    write_fixture(project / "suite", "alpha.json", judged_case(pass_if="no"))
    passing = run(project, "--mode", "live", "--format", "json", "--details", "all")
    assert passing.code == 0, passing.stdout


def _recorded_fixture(project: Path, answer: str, verdict: str, rubric: str = RUBRIC) -> Path:
    case = text_case("alpha", answer)
    said = {
        "text_sha256": _digest(answer),
        "rubric_sha256": _digest(rubric),
        "model": "judge",
        "verdict": verdict,
    }
    case["expects"] = {"judge": [{"rubric": RUBRIC, "verdicts": [said]}]}
    (project / "zeroclaw.toml").write_text('[eval]\njudge_gate = "always"\n', encoding="utf-8")
    return write_fixture(project / "replayed", "alpha.json", case)


def test_replay_grades_by_the_recorded_verdict(tmp_path: Path) -> None:
    assert invoke("eval", "run", str(_recorded_fixture(tmp_path, "apple", "yes")), cwd=tmp_path).code == 0
    assert invoke("eval", "run", str(_recorded_fixture(tmp_path, "apple", "no")), cwd=tmp_path).code == 1


@pytest.mark.parametrize("changed", ["answer", "rubric"])
def test_an_answer_or_rubric_with_no_verdict_fails_closed_and_says_how_to_rejudge(
    tmp_path: Path, changed: str
) -> None:
    path = _recorded_fixture(
        tmp_path, "apple", "yes", rubric=RUBRIC if changed == "answer" else "An older rubric?"
    )
    if changed == "answer":
        data = json.loads(path.read_text())
        data["turns"][0]["steps"][0]["response"]["content"] = "pear"
        path.write_text(json.dumps(data))
    result = invoke("eval", "run", str(path), "--format", "json", "--details", "all", cwd=tmp_path)
    assert result.code == 1
    grade = _grade(result)
    assert grade["passed"] is False
    assert "no verdict is recorded for this final response under this rubric" in grade["detail"]
    assert "--rejudge" in grade["detail"]


def test_rejudge_writes_the_verdicts_into_the_fixture(
    project: Path, serve: Callable[..., ReplayServer]
) -> None:
    _served(project, serve)
    before = run(project, "--format", "json", "--details", "all")  # replay: no verdict yet
    assert before.code == 1
    rejudged = run(project, "--rejudge", "--format", "json", "--details", "all")
    assert rejudged.code == 0, rejudged.stdout + rejudged.stderr
    data = json.loads((project / "suite" / "alpha.json").read_text())
    assert [v["verdict"] for v in data["expects"]["judge"][0]["verdicts"]] == ["yes"]
    after = invoke("eval", "run", "--suite", str(project / "suite"), cwd=project)  # no judge asked now
    assert after.code == 0, after.stdout


def test_a_judge_that_cannot_be_asked_fails_its_check(
    project: Path, serve: Callable[..., ReplayServer]
) -> None:
    url = _served(project, serve)
    configure(project, url, judge="missing")
    write_fixture(project / "suite", "alpha.json", {**judged_case()})
    result = run(project, "--mode", "live", "--format", "json", "--details", "all")
    assert result.code == 1
    assert "the judge could not be asked: no [providers.models.missing] table" in _grade(result)["detail"]


def test_rejudge_without_a_judge_model_is_a_usage_error(project: Path) -> None:
    (project / "zeroclaw.toml").write_text('[eval]\nsuite_dir = "suite"\njudge_gate = "always"\n')
    result = run(project, "--rejudge")
    assert result.code == 2
    assert "set [eval].judge_provider" in result.stderr


def test_vacuity_and_mutate_know_the_check(tmp_path: Path) -> None:
    path = _recorded_fixture(tmp_path, "apple", "yes")
    # An empty run has no verdict: the check fails there, so the case can fail.
    assert invoke("eval", "vacuity", "--suite", str(path.parent), cwd=tmp_path).code == 0
    # A mutated answer has no verdict either: every answer mutant is killed.
    mutated = invoke("eval", "mutate", str(path), "--format", "json", cwd=tmp_path)
    data = json.loads(mutated.stdout)
    answers = [m for f in data["fixtures"] for m in f["mutants"] if m["operator"] == "alter_response"]
    assert answers
    assert all("judge[0]" in m["killed_by"] for m in answers), answers


def test_the_judges_key_never_reaches_a_fixture_or_report(
    project: Path, serve: Callable[..., ReplayServer]
) -> None:
    _served(project, serve, reason=f"I was called with {API_KEY}")
    result = run(project, "--rejudge", "--report", "json=r.json", "--details", "all")
    assert result.code == 0, result.stdout + result.stderr
    for written in (project / "suite" / "alpha.json", project / "r.json"):
        text = written.read_text()
        assert API_KEY not in text
        assert "[REDACTED]" in text
    assert API_KEY not in result.stdout + result.stderr


def test_a_recorded_answer_that_held_a_secret_replays_with_its_verdict(
    project: Path, serve: Callable[..., ReplayServer]
) -> None:
    answer = f"apple {API_KEY}"
    write_fixture(
        project / "suite", "alpha.json", {**judged_case(), "turns": text_case("alpha", answer)["turns"]}
    )
    _served(project, serve, answer=answer)
    assert run(project, "--mode", "live", "--record", "recorded").code == 0
    recorded = (project / "recorded" / "alpha.json").read_text()
    assert API_KEY not in recorded
    (project / "zeroclaw.toml").write_text('[eval]\njudge_gate = "always"\n')  # no provider: offline
    # The fixture holds the answer scrubbed: the verdict is recorded for that text.
    assert invoke("eval", "run", str(project / "recorded"), cwd=project).code == 0


def test_a_fixture_rejudge_cannot_write_is_that_cases_error(
    project: Path, serve: Callable[..., ReplayServer]
) -> None:
    import os
    import sys

    if sys.platform == "win32" or os.geteuid() == 0:
        pytest.skip("root (or Windows) writes a read-only folder anyway")
    _served(project, serve)
    (project / "suite").chmod(0o555)
    try:
        result = run(project, "--rejudge", "--format", "json", "--details", "all")
    finally:
        (project / "suite").chmod(0o755)
    assert result.code == 1
    (case,) = result.json()["cases"]
    assert "could not be written into the fixture" in case["error"]["message"]


def test_a_judges_reason_with_a_lone_surrogate_is_recorded_as_a_fixture_admission_takes(
    project: Path, serve: Callable[..., ReplayServer]
) -> None:
    # The reason is JSON inside the judge's reply: its `\ud800` escape made a lone
    # surrogate, written into a fixture that its own replay then rejected.
    _served(project, serve, reason="apple \ud800 is a fruit")
    result = run(project, "--mode", "live", "--record", "recorded", "--format", "json", "--details", "all")
    assert result.code == 0, result.stdout + result.stderr
    recorded = json.loads((project / "recorded" / "alpha.json").read_text(encoding="utf-8"))
    assert recorded["expects"]["judge"][0]["verdicts"][0]["reason"] == "apple \ufffd is a fruit"
    (project / "zeroclaw.toml").write_text('[eval]\njudge_gate = "always"\n')  # no provider: offline
    replayed = invoke(
        "eval", "run", str(project / "recorded"), "--format", "json", "--details", "all", cwd=project
    )
    assert replayed.code == 0, replayed.stdout
    assert _grade(replayed)["passed"] is True
