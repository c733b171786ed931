"""A fixture's `xfail` mark, as pytest users know it: a case expected to fail is reported
as such and does not fail the gate; its pass fails it unless the mark says `"strict":
false`. Every output shows the mark, and the `--fail-on new-failures` ratchet lets a
team land a case for a known bug."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from tests.support.builders import FAILING, PASSING, line_of, write_fixture
from tests.support.invoke import Result, invoke
from zeroclaw_eval.report.saved import read_report as load_report
from zeroclaw_eval.reporters.pull_request import pull_request_comment

SUITE = "evals/regression"
BUG = "refunds over 100 are refused: example.com/issues/7"


def _marked(base: dict[str, Any], **mark: Any) -> dict[str, Any]:
    return {**base, "xfail": {"reason": BUG, **mark}}


def _suite(tmp_path: Path, **fixtures: dict[str, Any]) -> Path:
    for name, content in fixtures.items():
        write_fixture(tmp_path / SUITE, f"{name}.json", content)
    return tmp_path


def _run(folder: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return invoke("eval", "run", "--suite", SUITE, *args, cwd=folder, env=env)


def _mark_line(folder: Path, name: str) -> int:
    return line_of((folder / SUITE / f"{name}.json").read_text(encoding="utf-8"), '"xfail"')


def test_a_case_that_fails_as_its_mark_expects_passes_the_gate_and_says_why(tmp_path: Path) -> None:
    folder = _suite(tmp_path, known=_marked(FAILING), fine=PASSING)
    result = _run(folder)
    assert result.code == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("x known") and "expected to fail" in line for line in lines), result.stdout
    where = f"    {SUITE}/known.json:{_mark_line(folder, 'known')}:3: xfail: {BUG}"  # line:column
    assert where in lines
    assert "not passed:" not in result.stdout  # the recap lists what fails the gate
    assert lines[-1].startswith("PASSED: 2 cases (1 passed, 0 failed, 1 xfailed) in ")


def test_a_case_marked_xfail_that_passes_fails_the_gate_at_its_mark(tmp_path: Path) -> None:
    folder = _suite(tmp_path, fixed=_marked(PASSING), fine=PASSING)
    result = _run(folder)
    assert result.code == 1, result.stdout + result.stderr
    line = _mark_line(folder, "fixed")
    assert f"XPASSED  {SUITE}/fixed.json:{line}:3  passed, but its xfail mark is strict" in result.stdout
    assert "remove the mark if it is fixed" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("FAILED: 2 cases (1 passed, 0 failed, 1 xpassed) in ")


def test_a_mark_that_is_not_strict_reports_the_pass_without_failing(tmp_path: Path) -> None:
    folder = _suite(tmp_path, fixed=_marked(PASSING, strict=False))
    result = _run(folder)
    assert result.code == 0, result.stdout + result.stderr
    assert "passed though expected to fail (not strict)" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("PASSED: 1 case (0 passed, 0 failed, 1 xpassed) in ")


def test_a_broken_fixture_is_rejected_whatever_its_mark_says(tmp_path: Path) -> None:
    broken = _marked({**FAILING, "expects": {"response_contains": []}})
    result = _run(_suite(tmp_path, broken=broken))
    assert result.code == 1
    assert result.stdout.splitlines()[-1].startswith("FAILED: 1 case (0 passed, 0 failed, 1 rejected) in ")


def test_a_mark_without_a_reason_is_refused_at_admission(tmp_path: Path) -> None:
    result = _run(_suite(tmp_path, unsaid={**FAILING, "xfail": {"strict": False}}))
    assert result.code == 1
    assert "/xfail/reason" in result.stdout


def test_the_json_report_keeps_the_mark_and_counts_each_outcome(tmp_path: Path) -> None:
    folder = _suite(tmp_path, known=_marked(FAILING), fixed=_marked(PASSING, strict=False), fine=PASSING)
    result = _run(folder, "--format", "json")
    assert result.code == 0, result.stderr
    report = result.json()
    assert report["counts"] == {
        "passed": 1,
        "failed": 0,
        "error": 0,
        "rejected": 0,
        "xfailed": 1,
        "xpassed": 1,
        "total": 3,
    }
    known = next(case for case in report["cases"] if case["name"] == "known.json")
    assert known["status"] == "failed"  # what happened; the mark says what was expected
    assert known["xfail"]["reason"] == BUG
    assert known["xfail"]["strict"] is True
    assert known["xfail"]["field"]["pointer"] == "/xfail"
    assert known["xfail"]["field"]["line"] == _mark_line(folder, "known")
    fine = next(case for case in report["cases"] if case["name"] == "fine.json")
    assert fine["xfail"] is None


def test_a_saved_report_reads_back_with_its_marks_and_renders_the_same(tmp_path: Path) -> None:
    folder = _suite(tmp_path, known=_marked(FAILING), fixed=_marked(PASSING))
    first = _run(folder, "--report", "json=run.json")
    assert first.code == 1
    loaded = load_report(folder / "run.json")
    assert [case.outcome for case in loaded.cases] == ["xpassed", "xfailed"]
    rendered = invoke("eval", "render", "run.json", cwd=folder)
    assert rendered.code == 0, rendered.stderr  # rendering succeeded: the run's own code was 1
    assert rendered.stdout.splitlines()[-1].split(" in ")[0] == first.stdout.splitlines()[-1].split(" in ")[0]


def test_junit_writes_an_expected_failure_as_skipped_and_a_strict_pass_as_a_failure(tmp_path: Path) -> None:
    folder = _suite(
        tmp_path, known=_marked(FAILING), fixed=_marked(PASSING), loose=_marked(PASSING, strict=False)
    )
    result = _run(folder, "--format", "junit")
    assert result.code == 1
    suite = ElementTree.fromstring(result.stdout).find("testsuite")
    assert suite is not None
    assert (suite.get("skipped"), suite.get("failures"), suite.get("errors")) == ("1", "1", "0")
    cases = {case.get("file", "").rsplit("/", 1)[-1]: case for case in suite.iter("testcase")}
    skipped = cases["known.json"].find("skipped")
    assert skipped is not None
    assert skipped.get("type") == "xfail"
    assert skipped.get("message") == f"expected to fail: {BUG}"
    assert cases["known.json"].find("failure") is None  # its failed check counts no failure
    assert cases["known.json"].get("line") == str(_mark_line(folder, "known"))
    failure = cases["fixed.json"].find("failure")
    assert failure is not None
    assert failure.get("type") == "xpass"
    assert cases["fixed.json"].get("line") == str(_mark_line(folder, "fixed"))
    assert list(cases["loose.json"]) == []  # passed, and its mark is not strict: a pass


def test_github_annotates_the_strict_pass_as_an_error_and_the_expected_failure_as_a_notice(
    tmp_path: Path,
) -> None:
    folder = _suite(
        tmp_path, known=_marked(FAILING), fixed=_marked(PASSING), loose=_marked(PASSING, strict=False)
    )
    summary = tmp_path / "summary.md"
    env = {"GITHUB_WORKSPACE": str(folder), "GITHUB_STEP_SUMMARY": str(summary)}
    result = _run(folder, "--format", "github", env=env)
    assert result.code == 1
    commands = result.stdout.splitlines()
    errors = [line for line in commands if line.startswith("::error ")]
    assert len(errors) == 1, commands  # the expected failure's failed check is no error
    assert f"file={SUITE}/fixed.json,line={_mark_line(folder, 'fixed')}," in errors[0]
    assert "passed, but its strict xfail mark expects it to fail" in errors[0]
    notices = [line for line in commands if line.startswith("::notice ")]
    assert len(notices) == 1
    assert f"file={SUITE}/known.json,line={_mark_line(folder, 'known')}," in notices[0]
    assert notices[0].endswith(f"::expected to fail: {BUG}")
    warnings = [line for line in commands if line.startswith("::warning ")]
    assert len(warnings) == 1
    assert f"{SUITE}/loose.json" in warnings[0]
    table = summary.read_text(encoding="utf-8")
    assert "| cases | passed | failed | run errors | rejected | xfailed | xpassed |" in table
    assert "| 3 | 0 | 0 | 0 | 0 | 1 | 2 |" in table


def test_the_html_page_labels_each_outcome(tmp_path: Path) -> None:
    folder = _suite(tmp_path, known=_marked(FAILING), fixed=_marked(PASSING))
    result = _run(folder, "--report", "html=report.html")
    assert result.code == 1
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert 'data-status="xfailed"' in page
    assert 'data-status="xpassed"' in page
    assert f"expected to fail: {BUG}" in page
    assert "It passed under a strict mark: the gate fails." in page


def test_maxfail_does_not_stop_at_an_expected_failure(tmp_path: Path) -> None:
    folder = _suite(tmp_path, a_known=_marked(FAILING), b_fine=PASSING, c_broken=FAILING, d_fine=PASSING)
    result = _run(folder, "-x", "--format", "json")
    assert result.code == 1
    report = result.json()
    assert [case["name"] for case in report["cases"]] == ["a_known.json", "b_fine.json", "c_broken.json"]


@pytest.fixture
def before(tmp_path: Path) -> Path:
    """A suite whose `refund` case passed in the saved `base.json`."""
    folder = _suite(tmp_path, refund=PASSING)
    assert _run(folder, "--report", "json=base.json").code == 0
    return folder


def test_the_ratchet_lets_a_known_bug_land_as_a_marked_case(before: Path) -> None:
    # The bug breaks `refund`, and the change adds a case for a second one: both marked.
    _suite(before, refund=_marked(FAILING), added=_marked(FAILING))
    result = _run(before, "--baseline", "base.json", "--fail-on", "new-failures")
    assert result.code == 0, result.stdout
    # Unmarked, the same change is two new failures.
    _suite(before, refund=FAILING, added=FAILING)
    assert _run(before, "--baseline", "base.json", "--fail-on", "new-failures").code == 1


def test_the_ratchet_fails_a_strict_mark_that_passed(before: Path) -> None:
    _suite(before, refund=_marked(PASSING))
    result = _run(before, "--baseline", "base.json", "--fail-on", "new-failures")
    assert result.code == 1, result.stdout
    _suite(before, refund=_marked(PASSING, strict=False))
    assert _run(before, "--baseline", "base.json", "--fail-on", "new-failures").code == 0


def test_the_pull_request_comment_lists_expected_failures_apart(before: Path) -> None:
    _suite(before, refund=_marked(FAILING), fixed=_marked(PASSING))
    assert _run(before, "--report", "json=head.json").code == 1
    comment = pull_request_comment(load_report(before / "base.json"), load_report(before / "head.json"))
    title = next(line for line in comment.splitlines() if line.startswith("## "))
    assert "1 new failure in" in title  # the strict pass, not the marked bug
    assert "### Expected to fail (xfail) (1)" in comment
    new = comment[comment.index("### New failures") : comment.index("### Expected to fail")]
    assert f"{SUITE}/fixed.json` (xpassed)" in new
    assert "refund.json" not in new
    assert "strict `xfail` mark" in new
    assert "| expected to fail (xfail) | 0 | 1 |" in comment


def test_vacuity_still_asks_a_marked_case_to_fail_an_empty_run(tmp_path: Path) -> None:
    vacuous = _marked({**PASSING, "expects": {"max_tool_calls": 5}})
    folder = _suite(tmp_path, vacuous=vacuous)
    result = invoke("eval", "vacuity", "--suite", SUITE, cwd=folder)
    assert result.code == 1, result.stdout
    assert "vacuous.json" in result.stdout


def test_the_fixture_schema_describes_the_mark() -> None:
    from zeroclaw_eval.cases.model import LlmTrace

    schema = LlmTrace.model_json_schema()
    assert "xfail" in schema["properties"]
    published = json.loads(
        (Path(__file__).resolve().parents[3] / "schema" / "llmtrace.schema.json").read_text(encoding="utf-8")
    )
    assert "xfail" in published["properties"]
