"""`zeroclaw eval run --baseline/--fail-on/--history` (`zeroclaw_eval.report.saved`): a
run compared with an earlier one, in every output, and the gate on regressions only."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from tests.support.builders import FAILING, PASSING, TYPO_FIXTURE, write_fixture
from tests.support.chat_model import chat_model
from tests.support.invoke import Result, invoke

SUITE = "evals/capability"


@pytest.fixture
def compared(tmp_path: Path) -> Path:
    """A folder with `previous.json`, the report of a suite run before its fixtures changed:
    `kept` still passes, `broken` passed and now fails, `mended` failed and now passes,
    `stuck` still fails, `added` is new (and fails), `dropped` is gone."""
    suite = tmp_path / SUITE
    for name, before in [("kept", PASSING), ("broken", PASSING), ("mended", FAILING), ("stuck", FAILING)]:
        write_fixture(suite, f"{name}.json", before)
    write_fixture(suite, "dropped.json", PASSING)
    first = invoke("eval", "run", "--suite", SUITE, "--report", "json=previous.json", cwd=tmp_path)
    assert first.code == 1, first.stderr
    write_fixture(suite, "broken.json", FAILING)
    write_fixture(suite, "mended.json", PASSING)
    write_fixture(suite, "added.json", FAILING)
    (suite / "dropped.json").unlink()
    return tmp_path


def run(folder: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return invoke("eval", "run", "--suite", SUITE, *args, cwd=folder, env=env)


def test_the_table_shows_what_changed_before_the_summary(compared: Path) -> None:
    result = run(compared, "--baseline", "previous.json", "-q")
    assert result.code == 1, result.stderr
    block = result.stdout[result.stdout.index("changes since baseline") :]
    assert block.splitlines() == [
        "changes since baseline previous.json (zeroclaw-eval " + _version() + "):",
        f"  new failure  {SUITE}/broken.json  (failed)",
        f"  fixed        {SUITE}/mended.json  (passed)",
        f"  new          {SUITE}/added.json  (failed)",
        f"  removed      {SUITE}/dropped.json  (was passed)",
        "  1 new failure, 1 fixed, 1 still failing, 1 new, 1 removed, 1 still passing",
        "  paired sign test: 1 case worse, 1 better: within noise (one-sided p = 0.75)",
        "",
        "FAILED: 5 cases (2 passed, 3 failed) in " + block.rsplit(" in ", 1)[1].strip(),
    ]


def test_a_run_without_a_baseline_shows_no_block(compared: Path) -> None:
    result = run(compared)
    assert "baseline" not in result.stdout


def test_the_json_report_holds_the_baseline_and_each_cases_change(compared: Path) -> None:
    result = run(compared, "--baseline", "previous.json", "--format", "json")
    data: dict[str, Any] = result.json()
    digest = hashlib.sha256((compared / "previous.json").read_bytes()).hexdigest()
    assert data["baseline"] == {
        "path": "previous.json",
        "digest": f"sha256:{digest}",
        "tool_version": _version(),
        "fail_on": "any",
        "counts": {
            "new_failure": 1,
            "fixed": 1,
            "still_failing": 1,
            "new": 1,
            "removed": 1,
            "still_passing": 1,
        },
        "removed": [
            {"name": "dropped.json", "path": f"{SUITE}/dropped.json", "id": None, "status": "passed"}
        ],
        # broken fell, mended rose; the rest did not move (added and dropped are unpaired).
        "paired": {"worse": 1, "better": 1, "p_value": 0.75, "cases": 4},
        "alpha": 0.05,
        "cost_before_usd": None,  # a replay is not priced
        "cost_after_usd": None,
        "max_cost_increase": None,
    }
    assert {case["name"]: case["change"] for case in data["cases"]} == {
        "added.json": "new",
        "broken.json": "new_failure",
        "kept.json": "still_passing",
        "mended.json": "fixed",
        "stuck.json": "still_failing",
    }


def test_each_junit_testcase_carries_its_change(compared: Path) -> None:
    result = run(compared, "--baseline", "previous.json", "--format", "junit")
    root = ElementTree.fromstring(result.stdout)
    changes = {
        case.get("file"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in root.iter("testcase")
    }
    assert changes[f"{SUITE}/broken.json"] == {"zeroclaw.baseline_change": "new_failure"}
    assert changes[f"{SUITE}/kept.json"] == {"zeroclaw.baseline_change": "still_passing"}
    suite = {p.get("name"): p.get("value") for p in root.find("testsuite/properties") or []}
    assert suite["zeroclaw.baseline"] == "previous.json"
    assert suite["zeroclaw.baseline_digest"].startswith("sha256:")


def test_the_step_summary_has_a_changes_section(compared: Path) -> None:
    summary = compared / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_WORKSPACE": str(compared)}
    run(compared, "--baseline", "previous.json", env=env)
    text = summary.read_text(encoding="utf-8")
    section = text[text.index("### Changes since baseline `previous.json`") :]
    assert "1 new failure, 1 fixed, 1 still failing, 1 new, 1 removed, 1 still passing" in section
    assert f"| new failure | `{SUITE}/broken.json` | failed |" in section
    assert f"| removed | `{SUITE}/dropped.json` | was passed |" in section
    assert section.index("Changes since baseline") < section.index("| case | check | field | detail |")


def test_fail_on_new_failures_exits_1_on_a_regression(compared: Path) -> None:
    result = run(compared, "--baseline", "previous.json", "--fail-on", "new-failures")
    assert result.code == 1
    assert "FAILED (--fail-on new-failures): 5 cases" in result.stdout


def test_fail_on_new_failures_exits_0_when_only_old_failures_remain(compared: Path) -> None:
    write_fixture(compared / SUITE, "broken.json", PASSING)  # the regression mended
    write_fixture(compared / SUITE, "added.json", PASSING)  # the case the change adds passes
    result = run(compared, "--baseline", "previous.json", "--fail-on", "new-failures", "--format", "json")
    assert result.code == 0, result.stdout
    data = result.json()
    assert data["exit_code"] == 0
    assert data["counts"]["failed"] == 1  # stuck: failing before the change too
    assert data["baseline"]["fail_on"] == "new-failures"
    assert [case["path"] for case in data["baseline"]["removed"]] == [f"{SUITE}/dropped.json"]


def test_fail_on_new_failures_is_a_ratchet_an_added_failing_case_fails_it(compared: Path) -> None:
    # The pull-request comment lists such a case under new failures: the gate agrees.
    write_fixture(compared / SUITE, "broken.json", PASSING)
    result = run(compared, "--baseline", "previous.json", "--fail-on", "new-failures", "--format", "json")
    assert result.code == 1
    assert [(c["path"], c["change"]) for c in result.json()["cases"] if c["status"] != "passed"] == [
        (f"{SUITE}/added.json", "new"),
        (f"{SUITE}/stuck.json", "still_failing"),
    ]


def test_fail_on_new_failures_still_refuses_a_rejected_fixture(compared: Path) -> None:
    write_fixture(compared / SUITE, "broken.json", PASSING)
    write_fixture(compared / SUITE, "typo.json", TYPO_FIXTURE)  # new, and broken
    result = run(compared, "--baseline", "previous.json", "--fail-on", "new-failures")
    assert result.code == 1


def test_fail_on_any_is_the_default(compared: Path) -> None:
    write_fixture(compared / SUITE, "broken.json", PASSING)
    assert run(compared, "--baseline", "previous.json").code == 1


def test_fail_on_new_failures_needs_a_baseline(compared: Path) -> None:
    result = run(compared, "--fail-on", "new-failures")
    assert result.code == 2
    assert "give --baseline REPORT.json" in result.stderr


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", "--baseline previous.json is not a JSON report"),
        ('{"format_version": 1, "cases": []}', "unsupported report format_version 1"),
        ('{"format_version": 5}', "is not a zeroclaw-eval JSON report"),
        ("[1, 2]", "is not a zeroclaw-eval JSON report"),
        (b"\xff\xfe", "is not a JSON report"),
        ("[" * 100_000, "is not a JSON report: objects and arrays are nested too deep to parse"),
        # A crafted report: before the typed reader, this was a traceback after the suite ran.
        (
            '{"format_version": 6, "tool_version": "x", "suite": "s", "root": "", "mode": "replay",'
            ' "duration_ms": 1, "counts": {"passed": 0, "failed": 0, "error": 0, "rejected": 1, "total": 1},'
            ' "cases": [{"name": "n", "path": null, "status": "rejected", "duration_ms": 0,'
            ' "problems": [], "grades": []}]}',
            "at cases[0].path: Input should be a valid string",
        ),
    ],
)
def test_a_bad_baseline_is_refused_before_any_case_runs(
    compared: Path, content: str | bytes, words: str
) -> None:
    target = compared / "previous.json"
    target.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    result = run(compared, "--baseline", "previous.json", "--report", "json=out.json")
    assert result.code == 2
    assert words in result.stderr
    assert "--report json=FILE" in result.stderr  # how to make a good one
    assert "Traceback" not in result.stderr
    assert not (compared / "out.json").exists()


def test_a_missing_baseline_is_a_usage_error(compared: Path) -> None:
    result = run(compared, "--baseline", "nowhere.json")
    assert result.code == 2
    assert "nowhere.json" in result.stderr


def test_render_reproduces_a_compared_run_byte_for_byte(compared: Path) -> None:
    args = [
        "--baseline",
        "previous.json",
        "--fail-on",
        "new-failures",
        "--report",
        "json=now.json",
        "--details",
        "all",
    ]
    for fmt in ("table", "junit", "html"):
        run(compared, *args, "--format", fmt, "-o", f"run.{fmt}")
        again = invoke("eval", "render", "now.json", "--format", fmt, "-o", f"again.{fmt}", cwd=compared)
        assert again.code == 0, again.stderr
        assert (compared / f"again.{fmt}").read_bytes() == (compared / f"run.{fmt}").read_bytes()


def test_a_report_compared_with_itself_changes_nothing(compared: Path) -> None:
    run(compared, "--report", "json=now.json")
    result = run(compared, "--baseline", "now.json", "--format", "json")
    assert result.json()["baseline"]["counts"] == {
        "new_failure": 0,
        "fixed": 0,
        "still_failing": 3,
        "new": 0,
        "removed": 0,
        "still_passing": 2,
    }


def _history(folder: Path, *lines: str) -> Path:
    path = folder / "history.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_history_is_charted_in_the_html_page(compared: Path) -> None:
    _history(
        compared, '{"time": "t", "passed": 1, "total": 4}', "", '{"passed": 3, "total": 5, "pass_rate": 0.6}'
    )
    result = run(compared, "--history", "history.jsonl", "--format", "json", "--report", "html=page.html")
    assert result.code == 1, result.stderr
    assert result.json()["history"] == [{"passed": 1, "total": 4}, {"passed": 3, "total": 5}]
    page = (compared / "page.html").read_text(encoding="utf-8")
    assert "pass rate over the last 3 runs: 25% → 40%" in page


def test_only_the_newest_runs_of_a_long_history_are_kept(compared: Path) -> None:
    _history(compared, *(json.dumps({"passed": n, "total": 100}) for n in range(50)))
    history = run(compared, "--history", "history.jsonl", "--format", "json").json()["history"]
    assert [point["passed"] for point in history] == list(range(20, 50))


@pytest.mark.parametrize(
    "line",
    [
        "not json",
        "[1, 2]",
        '{"passed": 3}',
        '{"passed": 5, "total": 4}',
        '{"passed": -1, "total": 4}',
        '{"passed": true, "total": 4}',
        '{"passed": 1.5, "total": 4}',
        '{"passed": "<script>", "total": 4}',
        "[" * 100_000,  # deeper than the parser recurses
    ],
)
def test_a_history_line_that_is_not_a_run_is_refused_at_its_line(compared: Path, line: str) -> None:
    _history(compared, '{"passed": 1, "total": 4}', line)
    result = run(compared, "--history", "history.jsonl")
    assert result.code == 2
    assert "--history " in result.stderr
    assert "history.jsonl:2:" in result.stderr
    assert 'integers "passed" and "total"' in result.stderr


def _version() -> str:
    from zeroclaw_eval._version import __version__

    return __version__


def test_the_option_offers_every_policy_the_report_knows() -> None:
    from zeroclaw_eval.cli import options
    from zeroclaw_eval.report import baseline

    assert options.FAIL_ON == baseline.FAIL_ON
    assert options.FAIL_ON[0] == baseline.FAIL_ON_ANY
    assert options.FAIL_ON[1] == baseline.FAIL_ON_NEW_FAILURES


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize(
    ("option", "module", "bound", "kind"),
    [
        ("--baseline", "zeroclaw_eval.report.saved", "MAX_REPORT_BYTES", "a saved report"),
        ("--history", "zeroclaw_eval.report.saved", "MAX_HISTORY_BYTES", "a history"),
    ],
)
def test_an_input_that_is_no_file_is_refused_unread(
    compared: Path, monkeypatch: pytest.MonkeyPatch, option: str, module: str, bound: str, kind: str
) -> None:
    # /dev/zero stands for any input without end: a saved report or a history is a file.
    monkeypatch.setattr(importlib.import_module(module), bound, 1 << 20)
    result = run(compared, option, "/dev/zero")
    assert result.code == 2
    assert f"/dev/zero: it is a character device, not a file: give {kind} as a file" in result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
@pytest.mark.parametrize("option", ["--baseline", "--history"])
def test_a_named_pipe_is_refused_at_once_not_waited_on(compared: Path, option: str) -> None:
    # Opened for reading, a pipe without a writer would block the run for ever.
    os.mkfifo(compared / "pipe")
    started = time.monotonic()
    result = run(compared, option, "pipe")
    assert time.monotonic() - started < 10
    assert result.code == 2
    assert "pipe: it is a named pipe, not a file" in result.stderr


def _forty(folder: Path, failing: range) -> Iterator[None]:
    """A live suite of 40 cases against a loopback model that fails the cases numbered in
    `failing` (their answer lacks the word the case asks for), the others pass."""
    for number in range(40):
        fixture = {
            "model_name": f"case-{number:02}",
            "turns": [{"user_input": f"Answer case {number:02}"}],
            "expects": {"response_contains": ["done"]},
        }
        write_fixture(folder / SUITE, f"case_{number:02}.json", fixture)

    def answer(request: dict[str, Any]) -> tuple[str, None]:
        asked = int(str(request["messages"][-1]["content"]).split()[-1])
        return ("not yet" if asked in failing else "done"), None

    with chat_model(answer) as url:
        (folder / "zeroclaw.toml").write_text(
            f'[eval]\nmode = "live"\nlive_provider = "fake"\nsuite_dir = "{SUITE}"\n'
            f'[providers.models.fake]\nbase_url = "{url}"\nmodel = "m"\nmax_retries = 0\n',
            encoding="utf-8",
        )
        yield


@pytest.mark.parametrize(
    ("now_failing", "code", "words"),
    [
        # 0.9 to 0.5: 16 cases fell and none rose; chance alone does that 1 time in 65,536.
        (range(20, 40), 1, "16 cases worse, 0 better: significant (one-sided p = 1.5e-05, below 0.05)"),
        # 0.9 to 0.875: one case fell, as likely as not by chance.
        (range(35, 40), 0, "1 case worse, 0 better: within noise (one-sided p = 0.5)"),
    ],
)
def test_significant_regression_gates_on_a_fall_beyond_noise_only(
    tmp_path: Path, now_failing: range, code: int, words: str
) -> None:
    with contextmanager(_forty)(tmp_path, range(36, 40)):  # 36 of 40 pass: 0.9
        assert run(tmp_path, "--report", "json=base.json").code == 1
    with contextmanager(_forty)(tmp_path, now_failing):
        result = run(tmp_path, "--baseline", "base.json", "--fail-on", "significant-regression")
        # The ratchet fails the smaller fall too: any new failure does.
        ratchet = run(tmp_path, "--baseline", "base.json", "--fail-on", "new-failures")
    assert result.code == code, result.stdout + result.stderr
    assert f"  paired sign test: {words}" in result.stdout
    assert "(--fail-on significant-regression)" in result.stdout
    assert ratchet.code == 1


def test_significant_regression_still_fails_a_new_case_that_fails_and_a_rejected_one(tmp_path: Path) -> None:
    args = ("--baseline", "base.json", "--fail-on", "significant-regression")
    with contextmanager(_forty)(tmp_path, range(36, 40)):
        assert run(tmp_path, "--report", "json=base.json").code == 1
        assert run(tmp_path, *args).code == 0  # nothing moved
        write_fixture(tmp_path / SUITE, "added.json", FAILING)
        assert run(tmp_path, *args).code == 1  # unpaired: no noise explains it
        (tmp_path / SUITE / "added.json").unlink()
        write_fixture(tmp_path / SUITE, "typo.json", TYPO_FIXTURE)
        assert run(tmp_path, *args).code == 1


def test_too_few_paired_cases_fail_significant_regression_closed(tmp_path: Path) -> None:
    # Four cases all falling is p = 1/16: no fall of four can be told from noise at 0.05,
    # so the test certifies nothing and the gate fails.
    with contextmanager(_forty)(tmp_path, range(4, 40)):
        for number in range(4, 40):
            (tmp_path / SUITE / f"case_{number:02}.json").unlink()
        assert run(tmp_path, "--report", "json=base.json").code == 0
    with contextmanager(_forty)(tmp_path, range(40)):
        for number in range(4, 40):
            (tmp_path / SUITE / f"case_{number:02}.json").unlink()
        result = run(tmp_path, "--baseline", "base.json", "--fail-on", "significant-regression")
    assert result.code == 1
    assert "4 paired cases are too few for the test at 0.05" in result.stdout


def test_significant_regression_is_refused_for_a_replay(tmp_path: Path) -> None:
    write_fixture(tmp_path / SUITE, "a.json", PASSING)
    assert run(tmp_path, "--report", "json=base.json").code == 0
    result = run(tmp_path, "--baseline", "base.json", "--fail-on", "significant-regression")
    assert result.code == 2
    assert (
        "a replay is deterministic, so every fall in it is real: use --fail-on new-failures" in result.stderr
    )


@pytest.mark.parametrize("alpha", ["0", "1", "-0.1", "1e-300", "0.9"])
def test_an_alpha_that_is_no_chance_is_a_usage_error(tmp_path: Path, alpha: str) -> None:
    write_fixture(tmp_path / SUITE, "a.json", PASSING)
    assert run(tmp_path, "--report", "json=base.json").code == 0
    result = run(tmp_path, "--baseline", "base.json", "--fail-on", "significant-regression", "--alpha", alpha)
    assert result.code == 2
    assert f"--alpha {float(alpha):g}: the chance of a false alarm, from 0.001 to 0.5" in result.stderr


def test_significant_regression_needs_a_baseline(tmp_path: Path) -> None:
    write_fixture(tmp_path / SUITE, "a.json", PASSING)
    result = run(tmp_path, "--fail-on", "significant-regression")
    assert result.code == 2
    assert "--fail-on significant-regression fails only on regressions since a baseline" in result.stderr
