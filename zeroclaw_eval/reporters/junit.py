"""The `junit` format: JUnit XML through the junit-xml package.

One `<testsuite>` per suite, one `<testcase>` per fixture, one `<failure>` per failed
check, `<error>` for a run error or a rejected fixture. `file`/`line` on each testcase
point at the first failing field (mikepenz/action-junit-report and
EnricoMi/publish-unit-test-result-action read them). junit-xml has been unmaintained
since 2020 and neither escapes illegal characters reliably (it strips C0 controls and
lets lone surrogates through as references that make the XML ill-formed) nor
pretty-prints safely (minidom writes raw newlines into attributes before Python 3.13),
so text is made XML-safe here and the output is not pretty-printed. Every text is also
cut at `XML_TEXT_LIMIT` characters, with a note, since lxml (and so junitparser) refuses
a text node over 10 MB; the JSON report keeps it whole.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from xml.etree import ElementTree

from junit_xml import TestCase, TestSuite, to_xml_report_string

from zeroclaw_eval.fixtures.json_text import pretty_json
from zeroclaw_eval.fixtures.location import FieldRef
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.model import CaseReport, SuiteReport
from zeroclaw_eval.reporters.safety import XML_TEXT_LIMIT, neutralize_markup, one_line, shorten, xml_safe

_CUT_NOTE = " [{cut} characters cut: JUnit readers refuse a text over 10 MB; the JSON report has it whole]"


def _text(text: str) -> str:
    """`text` as XML can hold it, and no longer than a JUnit reader accepts."""
    return shorten(xml_safe(text), XML_TEXT_LIMIT, _CUT_NOTE)


def _at(case: CaseReport, field: FieldRef) -> str:
    return f"{field.where(case.path)} ({field.pointer or '/'})"


def first_failing_line(case: CaseReport) -> int | None:
    """The line of the first field a failing case points at (None for a passing case)."""
    return next((f.field.line for f in case.failures() if f.field.line is not None), None)


def _testcase(case: CaseReport, classname: str) -> TestCase:
    transcript = ""
    if case.record is not None and not case.passed:
        turns = [
            f"turn {t.index + 1}: {t.user_input}\n  -> "
            + (t.response if t.response is not None else "(no answer: the turn did not finish)")
            for t in case.record.turns
        ]
        transcript = "\n".join(turns)
    testcase = TestCase(
        name=_text(case.model_name or case.name),
        classname=_text(classname),
        elapsed_sec=case.duration_ms / 1000,
        file=_text(case.path),
        line=first_failing_line(case),
        stdout=_text(transcript) or None,
        allow_multiple_subelements=True,
    )
    for problem in case.problems:
        text = f"rejected: {problem.what()}"
        message, body = _message_and_body(text, f"at {_at(case, problem.field)}")
        testcase.add_error_info(message, body, "rejected")
    if case.error is not None:
        details = [f"at {_at(case, case.error.field)}"]
        if case.error.traceback:
            details.append(case.error.traceback)
        # A case counts once: an errored case's partial checks go in its error's body,
        # not in <failure> elements that would count it as failed as well.
        if case.failed_grades:
            details.append("checks graded on the partial run that failed:")
            details.extend(f"{g.check_id}: {g.detail}\n{_grade_details(case, g)}" for g in case.failed_grades)
        message, body = _message_and_body(f"run error: {case.error.message}", *details)
        testcase.add_error_info(message, body, "run_error")
        return testcase
    for grade in case.failed_grades:
        message, body = _message_and_body(f"{grade.check_id}: {grade.detail}", _grade_details(case, grade))
        testcase.add_failure_info(message, body, _text(grade.category))
    return testcase


def _message_and_body(text: str, *details: str) -> tuple[str, str]:
    """The one-line `message` attribute, and a body that starts with it, then holds the
    full text (when the message had to flatten or cut it) and the details."""
    safe = xml_safe(text)
    message = one_line(safe)
    parts = [message] if safe == message else [message, safe]
    return message, _text("\n\n".join([*parts, *(xml_safe(d) for d in details)]))


def _grade_details(case: CaseReport, grade: GradeResult) -> str:
    expected, found = pretty_json(grade.expected), pretty_json(grade.actual)
    return f"at {_at(case, grade.field)}\n\nexpected:\n{expected}\n\nfound:\n{found}"


def render(report: SuiteReport, *, color: bool = False) -> str:
    """The report as one JUnit `<testsuites>` document."""
    # evals/regression -> evals.regression; ../shared/x -> shared.x (no empty or dot parts).
    properties = {
        "mode": _text(report.mode),
        "suite": _text(report.suite),
        "tool_version": _text(report.tool_version),
    }
    if report.baseline is not None:
        properties["zeroclaw.baseline"] = _text(report.baseline.path)
        properties["zeroclaw.baseline_digest"] = report.baseline.digest
    suite = TestSuite(
        name=_text(report.suite),
        test_cases=[_testcase(case, _classname(case, report)) for case in report.cases],
        properties=properties,
    )
    xml = _with_properties(to_xml_report_string([suite], prettyprint=False), report)
    return neutralize_markup('<?xml version="1.0" encoding="utf-8"?>\n' + xml + "\n")


def _classname(case: CaseReport, report: SuiteReport) -> str:
    """The case's folder, dotted: evals/regression -> evals.regression; ../shared/x ->
    shared.x (no empty or dot parts). A run may name several folders or single files,
    so each case is classed by its own folder; one in the working directory itself is
    classed by that folder's name."""
    folder = PurePosixPath(case.path).parent
    parts = [part for part in folder.parts if part not in ("/", ".", "..")]
    return ".".join(parts) or PurePosixPath(report.root.replace("\\", "/")).name or "suite"


def _with_properties(xml: str, report: SuiteReport) -> str:
    """Each testcase gets `<properties>` (as pytest's record_property writes them), which
    junit-xml cannot write itself: `id` for a fixture with an id, and
    `zeroclaw.baseline_change` (`new_failure`, `fixed`, …) in a run compared with a baseline."""
    wanted = [_case_properties(case) for case in report.cases]
    if not any(wanted):
        return xml
    root = ElementTree.fromstring(xml)
    for testcase, pairs in zip(root.iter("testcase"), wanted, strict=True):
        if pairs:
            properties = ElementTree.Element("properties")
            for name, value in pairs:
                ElementTree.SubElement(properties, "property", {"name": name, "value": _text(value)})
            testcase.insert(0, properties)
    return ElementTree.tostring(root, encoding="unicode")


def _case_properties(case: CaseReport) -> list[tuple[str, str]]:
    pairs = []
    if case.id:
        pairs.append(("id", case.id))
    if case.change:
        pairs.append(("zeroclaw.baseline_change", case.change))
    return pairs
