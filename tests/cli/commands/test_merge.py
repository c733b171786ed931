"""`zeroclaw eval run --shard K/N` and `zeroclaw eval merge`: shards of one suite merge
into the report of the whole, and anything else is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import FAILING, PASSING, write_fixture
from tests.support.invoke import Runner


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """Nine fixtures of different sizes: passing, failing, one rejected."""
    folder = tmp_path / "evals" / "regression"
    for number in range(7):
        padding = "x" * (number * 300)
        write_fixture(folder, f"case_{number}.json", {**PASSING, "model_name": f"case-{number}{padding}"})
    write_fixture(folder, "failing.json", FAILING)
    write_fixture(folder, "typo.json", {**PASSING, "expects": {"tool_used": ["echo"]}})
    return tmp_path


def shards(cli: Runner, suite: Path, count: int) -> list[str]:
    names = []
    for index in range(1, count + 1):
        name = f"shard-{index}.json"
        command = (
            "eval",
            "run",
            "--shard",
            f"{index}/{count}",
            "--report",
            f"json={name}",
            "--details",
            "all",
        )
        result = cli(*command, cwd=suite)
        assert result.code in (0, 1), result.stderr
        names.append(name)
    return names


def essence(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What must not change between a whole run and merged shards: each case's path and
    status, and each check's verdict."""
    return [
        (case["path"], case["status"], [(g["check_id"], g["passed"]) for g in case["grades"]])
        for case in report["cases"]
    ]


def test_merged_shards_equal_the_unsharded_run(cli: Runner, suite: Path) -> None:
    whole = cli("eval", "run", "--report", "json=whole.json", "--details", "all", cwd=suite)
    names = shards(cli, suite, 4)
    ran = [json.loads((suite / name).read_text(encoding="utf-8")) for name in names]
    assert sorted(c["path"] for r in ran for c in r["cases"]) == sorted(  # each case in one shard
        c["path"] for c in json.loads((suite / "whole.json").read_text(encoding="utf-8"))["cases"]
    )
    assert all(r["cases"] for r in ran)  # the split is balanced: no shard idles
    assert {r["shard"]["suite_digest"] for r in ran} == {ran[0]["shard"]["suite_digest"]}
    merged = cli("eval", "merge", *names, "--format", "json", cwd=suite)
    expected = json.loads((suite / "whole.json").read_text(encoding="utf-8"))
    assert merged.code == whole.code == 1
    data = merged.json()
    assert essence(data) == essence(expected)
    assert data["counts"] == expected["counts"]
    assert data["shard"] is None  # the merged report is of the whole suite


def test_merge_writes_every_output_once(cli: Runner, suite: Path) -> None:
    names = shards(cli, suite, 2)
    result = cli(
        "eval", "merge", *names, "--report", "junit=out/eval.xml", "--report", "html=out/eval.html", cwd=suite
    )
    assert result.code == 1
    assert "9 cases" in result.stdout
    assert (suite / "out" / "eval.xml").read_text(encoding="utf-8").count("<testcase ") == 9
    assert (suite / "out" / "eval.html").exists()


def test_a_missing_shard_is_refused(cli: Runner, suite: Path) -> None:
    names = shards(cli, suite, 4)
    result = cli("eval", "merge", names[0], names[1], names[3], cwd=suite)
    assert result.code == 2
    assert "shard(s) 3 of 4 missing" in result.stderr


def test_a_shard_given_twice_is_refused(cli: Runner, suite: Path) -> None:
    names = shards(cli, suite, 2)
    (suite / "copy.json").write_bytes((suite / names[0]).read_bytes())
    result = cli("eval", "merge", names[0], "copy.json", names[1], cwd=suite)
    assert result.code == 2
    assert "shard 1/2 is given twice: shard-1.json and copy.json" in result.stderr


def test_shards_of_different_suites_are_refused(cli: Runner, suite: Path) -> None:
    first = shards(cli, suite, 2)[0]
    write_fixture(suite / "evals" / "regression", "added.json", PASSING)
    second = cli("eval", "run", "--shard", "2/2", "--report", "json=other.json", cwd=suite)
    assert second.code in (0, 1)
    result = cli("eval", "merge", first, "other.json", cwd=suite)
    assert result.code == 2
    assert "ran different suites" in result.stderr


def test_a_whole_report_or_a_foreign_file_is_refused(cli: Runner, suite: Path) -> None:
    cli("eval", "run", "--report", "json=whole.json", cwd=suite)
    result = cli("eval", "merge", "whole.json", cwd=suite)
    assert result.code == 2
    assert "whole.json is not a shard report" in result.stderr
    (suite / "notes.json").write_text("[1, 2]", encoding="utf-8")
    result = cli("eval", "merge", "notes.json", cwd=suite)
    assert result.code == 2
    assert "notes.json is not a zeroclaw-eval JSON report" in result.stderr


@pytest.mark.parametrize("spec", ["0/2", "3/2", "two"])
def test_a_bad_shard_spec_is_a_usage_error(cli: Runner, suite: Path, spec: str) -> None:
    result = cli("eval", "run", "--shard", spec, cwd=suite)
    assert result.code == 2
    assert "--shard" in result.stderr


def test_merged_shards_are_compared_with_a_baseline_of_the_whole_suite(cli: Runner, suite: Path) -> None:
    cli("eval", "run", "--report", "json=whole.json", cwd=suite)
    names = shards(cli, suite, 3)
    # Compared alone, a shard would call every other shard's case removed; merged, nothing changed.
    result = cli(
        "eval",
        "merge",
        *names,
        "--baseline",
        "whole.json",
        "--fail-on",
        "new-failures",
        "--format",
        "json",
        cwd=suite,
    )
    assert result.code == 1  # the rejected fixture still fails the gate
    data = result.json()
    assert data["baseline"]["removed"] == []
    assert {case["change"] for case in data["cases"]} == {"still_passing", "still_failing"}


def edited_copy(suite: Path, name: str, change: Any) -> str:
    data = json.loads((suite / name).read_text(encoding="utf-8"))
    change(data)
    copy = f"edited-{name}"
    (suite / copy).write_text(json.dumps(data), encoding="utf-8")
    return copy


def _drop_case(report: dict[str, Any]) -> None:
    """Lose a case, its counts edited to match."""
    case = report["cases"].pop()
    report["counts"][case["status"]] -= 1
    report["counts"]["total"] -= 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(mode="live"), "ran in live mode, shard-1.json in replay mode"),
        (lambda d: d.update(tool_version="0.0.1"), "was written by zeroclaw-eval 0.0.1"),
        (_drop_case, "the shards account for 8 of the suite's 9 fixtures"),
        # An edit that forgets the counts is caught by the report's own reading.
        (lambda d: d["cases"].pop(), "at counts: are {'passed': 4"),
    ],
)
def test_shards_that_do_not_fit_together_are_refused(
    cli: Runner, suite: Path, change: Any, message: str
) -> None:
    first, second = shards(cli, suite, 2)
    result = cli("eval", "merge", first, edited_copy(suite, second, change), cwd=suite)
    assert result.code == 2
    assert message in result.stderr


def test_a_shard_that_drew_no_fixture_passes_and_the_merge_still_holds_every_case(
    cli: Runner, tmp_path: Path
) -> None:
    write_fixture(tmp_path / "suite", "only.json", PASSING)
    names, said = [], []
    for index in (1, 2, 3):
        result = cli(
            "eval", "run", "suite", "--shard", f"{index}/3", "--report", f"json=s{index}.json", cwd=tmp_path
        )
        names.append(f"s{index}.json")
        assert result.code == 0, result.stdout
        said.append(result.stdout.strip().splitlines()[-1])
    assert sum("drew none of the suite's fixtures" in line for line in said) == 2
    merged = cli("eval", "merge", *names, "--format", "json", cwd=tmp_path)
    assert merged.code == 0
    assert merged.json()["counts"]["total"] == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(duration_ms=None), "at duration_ms: Input should be a valid number"),
        (lambda d: d["cases"][0].update(path=None), "at cases[0].path: Input should be a valid string"),
        (lambda d: d["shard"].update(index=[]), "at shard.index: Input should be a valid integer"),
        (lambda d: d["cases"][0]["grades"][0].update(category=[]), "at cases[0].grades[0].category"),
        (lambda d: d.update(surprise=1), "at surprise: Extra inputs are not permitted"),
    ],
)
def test_a_crafted_shard_report_is_refused_naming_the_field(
    cli: Runner, suite: Path, change: Any, message: str
) -> None:
    first, second = shards(cli, suite, 2)
    result = cli("eval", "merge", first, edited_copy(suite, second, change), cwd=suite)
    assert result.code == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_case_copied_into_another_shard_in_place_of_a_failing_one_is_refused(
    cli: Runner, suite: Path
) -> None:
    first, second = shards(cli, suite, 2)
    reports = [json.loads((suite / name).read_text(encoding="utf-8")) for name in (first, second)]
    owner = next(r for r in reports if any(c["status"] == "failed" for c in r["cases"]))
    other = next(r for r in reports if r is not owner)
    passing = next(c for c in other["cases"] if c["status"] == "passed")

    def swap(report: dict[str, Any]) -> None:
        index = next(i for i, c in enumerate(report["cases"]) if c["status"] == "failed")
        report["cases"][index] = passing
        report["counts"]["failed"] -= 1
        report["counts"]["passed"] += 1

    name = first if owner is reports[0] else second
    untouched = second if name == first else first
    result = cli("eval", "merge", untouched, edited_copy(suite, name, swap), cwd=suite)
    assert result.code == 2
    assert f"{passing['path']} is a case of both" in result.stderr


def test_a_failing_case_rewritten_as_not_run_does_not_pass_the_merge(cli: Runner, suite: Path) -> None:
    first, second = shards(cli, suite, 2)

    def hide(report: dict[str, Any]) -> None:
        for index, case in enumerate(report["cases"]):
            if case["status"] != "passed":
                report["counts"][case["status"]] -= 1
                report["counts"]["total"] -= 1
                report["not_run"] += 1
                del report["cases"][index]
                return

    edited = [edited_copy(suite, name, hide) for name in (first, second)]
    result = cli("eval", "merge", *edited, "--format", "json", cwd=suite)
    assert result.code == 1, result.stderr  # cases that never ran certify nothing
    assert result.json()["not_run"] >= 1


def _skewed(cli: Runner, folder: Path) -> dict[str, float]:
    """A suite of 30 like-sized fixtures whose earlier report (`earlier.json`) says six of
    them took 10 s each and the rest 0.1 s: six that a split by size puts in one shard.
    The durations, by path."""
    suite = folder / "evals" / "regression"
    for number in range(30):
        write_fixture(suite, f"case_{number:02}.json", {**PASSING, "model_name": f"case-{number:02}"})
    args = ("--report", "json=earlier.json")
    assert cli("eval", "run", "--shard", "1/3", "--report", "json=first.json", cwd=folder).code == 0
    slow = [
        case["path"] for case in json.loads((folder / "first.json").read_text(encoding="utf-8"))["cases"]
    ][:6]
    assert cli("eval", "run", *args, cwd=folder).code == 0
    data = json.loads((folder / "earlier.json").read_text(encoding="utf-8"))
    for case in data["cases"]:
        case["duration_ms"] = 10_000.0 if case["path"] in slow else 100.0
    (folder / "earlier.json").write_text(json.dumps(data), encoding="utf-8")
    return {case["path"]: case["duration_ms"] for case in data["cases"]}


def _loads(cli: Runner, folder: Path, durations: dict[str, float], *balance: str) -> list[float]:
    """Each of three shards' time by the earlier report; the shards merge whole."""
    loads, names = [], []
    for index in (1, 2, 3):
        name = f"shard-{index}.json"
        result = cli("eval", "run", "--shard", f"{index}/3", *balance, "--report", f"json={name}", cwd=folder)
        assert result.code == 0, result.stderr
        cases = json.loads((folder / name).read_text(encoding="utf-8"))["cases"]
        loads.append(sum(durations[case["path"]] for case in cases))
        names.append(name)
    assert cli("eval", "merge", *names, "--format", "json", cwd=folder).code == 0
    return loads


def test_balanced_shards_take_alike_long_by_an_earlier_reports_durations(cli: Runner, tmp_path: Path) -> None:
    durations = _skewed(cli, tmp_path)
    balanced = _loads(cli, tmp_path, durations, "--balance", "earlier.json")
    assert max(balanced) <= 1.3 * min(balanced), balanced
    # By size alone (all alike), the six slow cases fall where the hash puts them.
    by_size = _loads(cli, tmp_path, durations)
    assert max(by_size) > 1.3 * min(by_size), by_size


def test_a_case_the_earlier_report_lacks_is_weighed_by_its_size(cli: Runner, tmp_path: Path) -> None:
    durations = _skewed(cli, tmp_path)
    write_fixture(tmp_path / "evals" / "regression", "case_new.json", {**PASSING, "model_name": "new"})
    seen = []
    for index in (1, 2, 3):
        name = f"shard-{index}.json"
        args = (
            "eval",
            "run",
            "--shard",
            f"{index}/3",
            "--balance",
            "earlier.json",
            "--report",
            f"json={name}",
        )
        assert cli(*args, cwd=tmp_path).code == 0
        seen += [case["path"] for case in json.loads((tmp_path / name).read_text(encoding="utf-8"))["cases"]]
    assert sorted(seen) == sorted([*durations, "evals/regression/case_new.json"])  # each once


def test_balance_without_a_shard_is_a_usage_error(cli: Runner, tmp_path: Path) -> None:
    _skewed(cli, tmp_path)
    result = cli("eval", "run", "--balance", "earlier.json", cwd=tmp_path)
    assert result.code == 2
    assert "--balance weighs the shards of --shard K/N; give --shard too" in result.stderr
