"""`zeroclaw eval run --resume REPORT` and `--rerun-failed REPORT` (`report.resume`): a run
takes up an earlier report of its suite, runs only what it lacks, and writes one report
of the whole; a report of anything else is refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import FAILING, PASSING, write_fixture
from tests.support.invoke import Runner

SUITE = "evals/regression"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Six cases, the third failing."""
    for number in range(6):
        write_fixture(tmp_path / SUITE, f"case_{number}.json", FAILING if number == 2 else PASSING)
    return tmp_path


def _report(folder: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / name).read_text(encoding="utf-8"))
    return data


def _essence(report: dict[str, Any]) -> str:
    """What a resumed run must share with an uninterrupted one, as a digest: each case's
    path and status, each check's verdict, and the counts."""
    cases = [
        (case["path"], case["status"], [(g["check_id"], g["passed"]) for g in case["grades"]])
        for case in report["cases"]
    ]
    return hashlib.sha256(json.dumps([cases, report["counts"]]).encode()).hexdigest()


def test_a_run_cut_short_resumes_into_the_report_of_an_uninterrupted_run(cli: Runner, project: Path) -> None:
    whole = cli("eval", "run", "--details", "all", "--report", "json=whole.json", cwd=project)
    assert whole.code == 1
    cut = cli(
        "eval",
        "run",
        "--maxfail",
        "1",
        "--jobs",
        "1",
        "--details",
        "all",
        "--report",
        "json=cut.json",
        cwd=project,
    )
    assert cut.code == 1
    partial = _report(project, "cut.json")
    assert (len(partial["cases"]), partial["not_run"]) == (3, 3)
    args = ("eval", "run", "--resume", "cut.json", "--details", "all", "--report", "json=resumed.json")
    resumed = cli(*args, cwd=project)
    assert resumed.code == 1
    assert "--resume: kept 3 cases of cut.json, ran 3" in resumed.stderr
    merged = _report(project, "resumed.json")
    assert _essence(merged) == _essence(_report(project, "whole.json"))
    assert merged["not_run"] == 0
    # The kept cases are the earlier report's, not run again.
    before = {case["path"]: case["duration_ms"] for case in partial["cases"]}
    assert {c["path"]: c["duration_ms"] for c in merged["cases"] if c["path"] in before} == before


def test_rerun_failed_runs_only_what_failed_and_keeps_the_rest(cli: Runner, project: Path) -> None:
    assert cli("eval", "run", "--details", "all", "--report", "json=first.json", cwd=project).code == 1
    first = _report(project, "first.json")
    write_fixture(project / SUITE, "case_2.json", PASSING)  # the fix
    result = cli(
        "eval",
        "run",
        "--rerun-failed",
        "first.json",
        "--details",
        "all",
        "--report",
        "json=again.json",
        cwd=project,
    )
    assert result.code == 0, result.stdout + result.stderr
    assert "--rerun-failed: kept 5 cases of first.json, ran 1" in result.stderr
    again = _report(project, "again.json")
    assert [case["status"] for case in again["cases"]] == ["passed"] * 6
    assert [case["path"] for case in again["cases"]] == [case["path"] for case in first["cases"]]
    kept = {c["path"]: c["duration_ms"] for c in first["cases"] if c["status"] == "passed"}
    assert {c["path"]: c["duration_ms"] for c in again["cases"] if c["path"] in kept} == kept


def test_rerun_failed_runs_a_case_the_report_lacks_too(cli: Runner, project: Path) -> None:
    assert cli("eval", "run", "--report", "json=first.json", cwd=project).code == 1
    write_fixture(project / SUITE, "case_9.json", FAILING)
    result = cli("eval", "run", "--rerun-failed", "first.json", "--format", "json", cwd=project)
    assert result.code == 1
    assert "kept 5 cases of first.json, ran 2" in result.stderr
    assert [case["path"][-11:] for case in result.json()["cases"]][-1] == "case_9.json"


def test_a_report_of_another_suite_is_refused_before_any_case_runs(cli: Runner, project: Path) -> None:
    assert cli("eval", "run", "--report", "json=first.json", cwd=project).code == 1
    write_fixture(project / "evals" / "other", "case_0.json", PASSING)
    result = cli("eval", "run", "--suite", "evals/other", "--resume", "first.json", cwd=project)
    assert result.code == 2
    assert (
        "--resume first.json is a report of 'evals/regression', and this run is of 'evals/other'"
        in result.stderr
    )


def test_a_report_holding_a_fixture_since_removed_is_refused(cli: Runner, project: Path) -> None:
    assert cli("eval", "run", "--report", "json=first.json", cwd=project).code == 1
    (project / SUITE / "case_4.json").unlink()
    result = cli("eval", "run", "--rerun-failed", "first.json", cwd=project)
    assert result.code == 2
    assert "holds evals/regression/case_4.json, which this suite does not have" in result.stderr


def test_a_shard_report_resumes_only_the_same_shard(cli: Runner, project: Path) -> None:
    assert cli("eval", "run", "--shard", "1/2", "--report", "json=one.json", cwd=project).code in (0, 1)
    other = cli("eval", "run", "--shard", "2/2", "--resume", "one.json", cwd=project)
    assert other.code == 2
    assert "is a report of shard 1/2; give this run the same --shard" in other.stderr
    whole = cli("eval", "run", "--resume", "one.json", cwd=project)
    assert whole.code == 2
    same = cli("eval", "run", "--shard", "1/2", "--resume", "one.json", cwd=project)
    assert same.code in (0, 1)
    assert ", ran 0" in same.stderr


def test_resume_and_rerun_failed_together_are_a_usage_error(cli: Runner, project: Path) -> None:
    assert cli("eval", "run", "--report", "json=first.json", cwd=project).code == 1
    result = cli("eval", "run", "--resume", "first.json", "--rerun-failed", "first.json", cwd=project)
    assert result.code == 2
    assert "give one" in result.stderr


def test_a_kept_case_whose_fixture_changed_since_runs_again(cli: Runner, project: Path) -> None:
    assert cli("eval", "run", "--report", "json=first.json", cwd=project).code == 1
    write_fixture(project / SUITE, "case_1.json", FAILING)  # it passed; now it cannot
    for option in ("--resume", "--rerun-failed"):
        result = cli("eval", "run", option, "first.json", "--format", "json", cwd=project)
        assert result.code == 1, result.stdout
        status = {case["path"]: case["status"] for case in result.json()["cases"]}
        assert status[f"{SUITE}/case_1.json"] == "failed"  # graded again, not kept


def test_a_report_of_other_settings_or_another_folder_is_refused(cli: Runner, project: Path) -> None:
    assert cli("eval", "run", "--report", "json=first.json", cwd=project).code == 1
    (project / "zeroclaw.toml").write_text('[eval]\nuser_input_match = "contains"\n', encoding="utf-8")
    changed = cli("eval", "run", "--resume", "first.json", cwd=project)
    assert changed.code == 2
    assert "--resume first.json was run with other settings" in changed.stderr
    (project / "zeroclaw.toml").unlink()
    other = project / "elsewhere"
    for number in range(6):
        write_fixture(other / SUITE, f"case_{number}.json", PASSING)
    moved = cli("eval", "run", "--resume", str(project / "first.json"), cwd=other)
    assert moved.code == 2
    assert f"was run in {project}, and this run in {other}" in moved.stderr


def test_a_report_holding_a_case_twice_is_refused_before_any_case_runs(cli: Runner, project: Path) -> None:
    assert cli("eval", "run", "--report", "json=first.json", cwd=project).code == 1
    data = _report(project, "first.json")
    data["cases"].append(data["cases"][0])
    data["counts"]["passed"] += 1  # counts that agree with the cases: only the twice is wrong
    data["counts"]["total"] += 1
    (project / "twice.json").write_text(json.dumps(data), encoding="utf-8")
    result = cli("eval", "run", "--resume", "twice.json", cwd=project)
    assert result.code == 2
    assert "holds evals/regression/case_0.json twice" in result.stderr


def test_a_kept_case_carries_no_change_from_an_old_baseline(cli: Runner, project: Path) -> None:
    assert cli("eval", "run", "--report", "json=base.json", cwd=project).code == 1
    assert cli("eval", "run", "--baseline", "base.json", "--report", "json=first.json", cwd=project).code == 1
    result = cli("eval", "run", "--resume", "first.json", "--format", "json", cwd=project)
    assert {case["change"] for case in result.json()["cases"]} == {None}
