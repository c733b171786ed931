"""The `junit` reporter, read back with xml.etree and junitparser (an independent reader)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml, TestCase

from tests.support.builders import line_col
from tests.support.ci_log import HOSTILE, LONE_SURROGATE, XML_ILLEGAL, command_lines
from tests.support.reports import every_status_report, run_every_status_suite, written_fixture_text
from zeroclaw_eval.boundary.record import RunRecord, TurnRecord
from zeroclaw_eval.cases.location import FieldRef, FixtureProblem
from zeroclaw_eval.grading.result import RESPONSE, GradeResult
from zeroclaw_eval.report.model import CaseError, CaseReport, SuiteReport
from zeroclaw_eval.reporters.junit import REPORTER as render


def read(xml: str) -> tuple[ET.Element, JUnitXml]:
    """The document parsed by both readers (each raises on ill-formed XML)."""
    return ET.fromstring(xml.encode("utf-8")), JUnitXml.fromstring(xml.encode("utf-8"))


def the_suite(junit: JUnitXml) -> list[TestCase]:
    suites = list(junit)
    assert len(suites) == 1
    return list(suites[0])


def case_named(root: ET.Element, name: str) -> ET.Element:
    found = [tc for tc in root.iter("testcase") if tc.get("name") == name]
    assert len(found) == 1, [tc.get("name") for tc in root.iter("testcase")]
    return found[0]


def all_text(element: ET.Element) -> str:
    """Every attribute value and text node under `element`, decoded."""
    parts: list[str] = []
    for node in element.iter():
        parts.extend(node.attrib.values())
        parts.append(node.text or "")
        parts.append(node.tail or "")
    return "\n".join(parts)


def grade(check_id: str, passed: bool, detail: str = "detail", line: int | None = None) -> GradeResult:
    ref = FieldRef(f"/expects/{check_id}", line, 5 if line else None, line, 9 if line else None)
    return GradeResult(check_id, RESPONSE, passed, detail, ref, "want", "got")


def test_suite_counts_tests_failures_and_errors() -> None:
    report = every_status_report()
    report.cases[2].grades = []  # an errored case without partial grades
    root, junit = read(render(report))
    for element in (root, root.find("testsuite")):
        assert element is not None
        assert (element.get("tests"), element.get("failures"), element.get("errors")) == ("4", "1", "2")
    suite = next(iter(junit))
    assert (suite.tests, suite.failures, suite.errors, suite.skipped) == (4, 1, 2, 0)
    outcomes = [(tc.is_passed, tc.is_failure, tc.is_error) for tc in suite]
    assert outcomes == [
        (True, False, False),
        (False, True, False),
        (False, False, True),
        (False, False, True),
    ]


def test_an_errored_case_with_partial_grades_is_counted_once() -> None:
    # The errored case still carries the checks graded on its partial run. It is one
    # test in error, not also a failure: tests = passed + failures + errors + skipped.
    report = every_status_report()
    counts = report.counts()
    root, _ = read(render(report))
    suite = root.find("testsuite")
    assert suite is not None
    tests, failures, errors = (int(suite.get(key, "-1")) for key in ("tests", "failures", "errors"))
    assert tests == counts["total"] == 4
    assert failures == counts["failed"] == 1
    assert errors == counts["error"] + counts["rejected"] == 2
    assert counts["passed"] + failures + errors == tests


def test_one_testcase_per_fixture_with_name_classname_file_line_and_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = run_every_status_suite(tmp_path, monkeypatch)
    root, junit = read(render(report))
    testcases = the_suite(junit)
    assert [tc.name for tc in testcases] == ["a-passing", "b-failing", "c-error", "d-rejected"]
    assert {tc.classname for tc in testcases} == {"evals.regression"}
    expected_line = {
        "a-passing": None,
        "b-failing": line_col(written_fixture_text(tmp_path, "b_failing.json"), '"needle-one"')[0],
        "c-error": line_col(written_fixture_text(tmp_path, "c_error.json"), '"steps"')[0],
        "d-rejected": line_col(written_fixture_text(tmp_path, "d_rejected.json"), '"response_contians"')[0],
    }
    for case, name in zip(report.cases, expected_line, strict=True):
        element = case_named(root, name)
        assert element.get("file") == f"evals/regression/{case.name}"
        line = element.get("line")
        assert (int(line) if line is not None else None) == expected_line[name]
    for case, testcase in zip(report.cases[:3], testcases[:3], strict=True):
        assert testcase.time == pytest.approx(case.duration_ms / 1000, abs=1e-6)


def test_line_is_the_first_failing_field_in_fixture_order() -> None:
    case = CaseReport(
        "x.json", "x.json", "x", [grade("a", True), grade("b", False, line=7), grade("c", False, line=3)]
    )
    root, _ = read(render(SuiteReport("s", "replay", [case])))
    assert case_named(root, "x").get("line") == "7"


def test_one_failure_per_failed_check_with_a_one_line_message_and_the_details(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = run_every_status_suite(tmp_path, monkeypatch)
    _, junit = read(render(report))
    failing = report.cases[1]
    testcase = the_suite(junit)[1]
    failures = [r for r in testcase.result if isinstance(r, Failure)]
    assert len(failures) == len(failing.failed_grades) == 2
    for failure, graded in zip(failures, failing.failed_grades, strict=True):
        assert failure.type == graded.category
        assert failure.message.startswith(f"{graded.check_id}: expected ")
        assert "\n" not in failure.message
        assert "\r" not in failure.message
        body = failure.text
        assert body.startswith(failure.message + "\n")
        line, col = graded.field.line, graded.field.col
        assert f"at evals/regression/b_failing.json:{line}:{col} ({graded.field.pointer})" in body
        assert "expected:\n" + json.dumps(graded.expected, ensure_ascii=False, indent=2) in body
        assert "found:\n" in body
    assert not [r for r in testcase.result if isinstance(r, Error)]


def test_failure_message_is_check_id_and_detail_on_one_line() -> None:
    case = CaseReport(
        "x.json", "x.json", "x", [grade("response_contains[0]", False, "line one\nline two\r\nthree")]
    )
    _, junit = read(render(SuiteReport("s", "replay", [case])))
    (failure,) = the_suite(junit)[0].result
    assert isinstance(failure, Failure)
    assert failure.message == "response_contains[0]: line one line two three"


def test_run_errors_and_rejected_fixtures_are_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = run_every_status_suite(tmp_path, monkeypatch)
    _, junit = read(render(report))
    testcases = the_suite(junit)
    errored = [r for r in testcases[2].result if isinstance(r, Error)]
    assert [e.type for e in errored] == ["run_error"]
    run_error = report.cases[2].error
    assert run_error is not None
    assert errored[0].message == f"run error: {run_error.message}"
    assert errored[0].text.startswith(errored[0].message + "\n")
    rejected = testcases[3].result
    assert [type(r) for r in rejected] == [Error]
    assert rejected[0].type == "rejected"
    problem = report.cases[3].problems[0]
    assert rejected[0].message == f"rejected: /expects/response_contians: {problem.message}"
    assert f"d_rejected.json:{problem.field.line}:{problem.field.col}" in rejected[0].text


def test_suite_properties_name_mode_suite_and_tool_version() -> None:
    _, junit = read(render(every_status_report()))
    suite = next(iter(junit))
    assert suite.name == "evals/regression"
    assert {p.name: p.value for p in suite.properties()} == {
        "mode": "replay",
        "suite": "evals/regression",
        "tool_version": "9.9.9",
    }


def test_hostile_and_illegal_text_never_breaks_the_xml() -> None:
    xml = render(every_status_report(HOSTILE + LONE_SURROGATE))
    root, junit = read(xml)
    assert [tc.name for tc in the_suite(junit)] == [
        "passing-model",
        "failing-model",
        "erroring-model",
        "rejected-model",
    ]
    assert "\r" not in xml
    assert "\r" not in all_text(root)
    raw = set(XML_ILLEGAL + LONE_SURROGATE)
    assert not raw & set(all_text(root))


def test_illegal_characters_from_a_model_are_kept_visible() -> None:
    root, _ = read(render(every_status_report(HOSTILE + LONE_SURROGATE)))
    transcript = case_named(root, "failing-model").findtext("system-out") or ""
    for char in XML_ILLEGAL + LONE_SURROGATE:
        assert f"#x{ord(char):02X}" in transcript, f"U+{ord(char):04X}"
    assert "nel[\x85]" in transcript


def test_illegal_characters_in_a_run_error_are_kept_visible() -> None:
    message = f"the agent raised ValueError: bad[{XML_ILLEGAL}]"
    case = CaseReport("x.json", "x.json", "x", error=CaseError(message, FieldRef("/turns/0", 2, 3, 2, 9)))
    root, _ = read(render(SuiteReport("s", "replay", [case])))
    error = case_named(root, "x").find("error")
    assert error is not None
    shown = (error.get("message") or "") + (error.text or "")
    lost = [f"U+{ord(c):04X}" for c in XML_ILLEGAL if f"#x{ord(c):02X}" not in shown]
    assert lost == []


def test_hostile_names_and_messages_are_kept_as_text() -> None:
    name = "n<&>\"'\x00\ufffe"
    problem = FixtureProblem(FieldRef("/x", 1, 1, 1, 2), "bad ]]> <![CDATA[ & </error>")
    case = CaseReport("x.json", 'evals/a"b<c>.json', name, problems=[problem])
    root, junit = read(render(SuiteReport('s"<>&', "replay", [case])))
    testcase = the_suite(junit)[0]
    assert testcase.name == "n<&>\"'#x00#xFFFE"
    assert case_named(root, testcase.name).get("file") == 'evals/a"b<c>.json'
    (error,) = testcase.result
    assert "bad ]]> <![CDATA[ & </error>" in error.message
    assert "bad ]]> <![CDATA[ & </error>" in error.text


def test_tabs_line_breaks_and_other_scripts_in_attributes_read_back_as_they_were() -> None:
    # The XML is written here, not by a library: an attribute's raw tab or line break would
    # read back as a space, so each is written as a character reference.
    name = "a\tb\nc 東京 é ✓"
    case = CaseReport("x.json", "dir\tx/é.json", name, id="T\t1\n2")
    root, junit = read(render(SuiteReport("s\n2", "replay", [case])))
    testcase = case_named(root, name)
    assert testcase.get("file") == "dir\tx/é.json"
    assert the_suite(junit)[0].name == name
    assert [(p.get("name"), p.get("value")) for p in testcase.iter("property")] == [("id", "T\t1\n2")]
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("name") == "s\n2"


def test_no_line_can_start_a_workflow_command_yet_the_text_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for report in (
        run_every_status_suite(tmp_path, monkeypatch),
        every_status_report(HOSTILE + LONE_SURROGATE),
    ):
        xml = render(report)
        assert command_lines(xml) == []
        assert "##[" not in xml
        root, _ = read(xml)
        decoded = all_text(root)
        assert "\n::stop-commands::abc\n" in decoded
        assert "\n  ::add-mask::secret\n" in decoded
        assert "::error file=x.py,line=1::forged" in decoded
        assert "##[error]x" in decoded


def test_lone_carriage_returns_become_line_feeds_in_the_transcript() -> None:
    root, _ = read(render(every_status_report()))
    transcript = case_named(root, "failing-model").findtext("system-out") or ""
    assert "cr\n::error file=cr.py,line=2::lone-cr-forged\n\u00a0::error" in transcript


def test_passing_case_has_no_result_and_no_transcript() -> None:
    case = CaseReport(
        "ok.json", "ok.json", "ok", [grade("a", True)], record=RunRecord(turns=[TurnRecord(0, "hi", "hello")])
    )
    _, junit = read(render(SuiteReport("s", "replay", [case])))
    (testcase,) = the_suite(junit)
    assert testcase.is_passed
    assert testcase.system_out is None


@pytest.mark.parametrize(
    ("suite", "classname"),
    [
        ("evals/regression", "evals.regression"),
        ("../shared/upstream-fixtures", "shared.upstream-fixtures"),
        (".", "suite"),
        ("/abs/suite", "abs.suite"),
    ],
)
def test_classname_has_no_empty_or_dot_parts(suite: str, classname: str) -> None:
    path = "a.json" if suite == "." else f"{suite}/a.json"
    report = SuiteReport(suite, "replay", [CaseReport("a.json", path, "a", grades=[])])
    xml = JUnitXml.fromstring(render(report).encode())
    assert [tc.classname for tc in next(iter(xml))] == [classname]


def test_a_run_errors_body_holds_where_the_agent_raised() -> None:
    xml = JUnitXml.fromstring(render(every_status_report()).encode("utf-8"))
    errored = next(case for case in next(iter(xml)) if case.name == "erroring-model")
    (error,) = errored.result
    assert 'File "/home/zeroclaw_user/agent.py", line 12, in run_turn' in error.text
    assert "Traceback" not in error.message


def test_a_suite_given_as_dot_is_named_by_its_folder() -> None:
    report = SuiteReport(
        ".", "replay", [CaseReport("a.json", "a.json", "a", grades=[])], root="/home/zeroclaw_user/regression"
    )
    assert [tc.classname for tc in next(iter(JUnitXml.fromstring(render(report).encode())))] == ["regression"]


def test_a_case_id_is_a_testcase_property() -> None:
    report = every_status_report()
    report.cases[0].id = "TRACK-7"
    root = ET.fromstring(render(report).encode("utf-8"))
    tracked, *others = root.iter("testcase")
    assert [(p.get("name"), p.get("value")) for p in tracked.iter("property")] == [("id", "TRACK-7")]
    assert all(not list(other.iter("property")) for other in others)


def test_each_case_is_classed_by_its_own_folder_when_a_run_names_several() -> None:
    cases = [
        CaseReport("a.json", "evals/regression/a.json", "a", grades=[]),
        CaseReport("b.json", "evals/smoke/b.json", "b", grades=[]),
    ]
    report = SuiteReport("evals/regression/a.json evals/smoke", "replay", cases)
    assert [tc.classname for tc in next(iter(JUnitXml.fromstring(render(report).encode())))] == [
        "evals.regression",
        "evals.smoke",
    ]


def test_a_text_over_ten_megabytes_is_cut_with_a_note_so_lxml_and_junitparser_read_it() -> None:
    from lxml import etree

    huge = "é" * 6_000_000  # 12 MB of UTF-8, in the transcript and in a failure's body
    xml = render(every_status_report(huge)).encode("utf-8")
    root = etree.fromstring(xml)  # lxml's default limit: a text node of at most 10 MB
    failing = JUnitXml.fromstring(xml)
    assert len(list(next(iter(failing)))) == 4
    texts = [node.text or "" for node in root.iter("failure", "error", "system-out")]
    assert max(len(text) for text in texts) <= 1_001_000
    assert any("characters cut: JUnit readers refuse a text over 10 MB" in text for text in texts)
