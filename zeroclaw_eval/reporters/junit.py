"""The `junit` format: JUnit XML through the junit-xml package.

One `<testsuite>` per suite, one `<testcase>` per fixture, one `<failure>` per failed
check, `<error>` for a run error or a rejected fixture. `file`/`line` on each testcase
point at the first failing field (mikepenz/action-junit-report and
EnricoMi/publish-unit-test-result-action read them). junit-xml has been unmaintained
since 2020 and neither escapes illegal characters reliably nor pretty-prints safely
(see CI-FORMATS.md), so text is made XML-safe here and the output is not pretty-printed.
"""

from __future__ import annotations

import json
from typing import Any

from junit_xml import TestCase, TestSuite, to_xml_report_string

from zeroclaw_eval.location import FieldRef
from zeroclaw_eval.report import CaseReport, SuiteReport
from zeroclaw_eval.reporters.safety import neutralize_markup, one_line, xml_safe


def _at(case: CaseReport, field: FieldRef) -> str:
    where = f"{case.path}:{field.line}:{field.col}" if field.line is not None else case.path
    return f"{where} ({field.pointer or '/'})"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def first_failing_line(case: CaseReport) -> int | None:
    """The line of the first field a failing case points at (None for a passing case)."""
    fields = [p.field for p in case.problems]
    if case.error is not None:
        fields.append(case.error.field)
    fields.extend(g.field for g in case.failed_grades)
    lines = [f.line for f in fields if f.line is not None]
    return lines[0] if lines else None


def _testcase(case: CaseReport, classname: str) -> TestCase:
    transcript = ""
    if case.record is not None and not case.passed:
        turns = [f"turn {t.index + 1}: {t.user_input}\n  -> {t.response}" for t in case.record.turns]
        transcript = "\n".join(turns)
    testcase = TestCase(
        name=xml_safe(case.model_name or case.name),
        classname=xml_safe(classname),
        elapsed_sec=case.duration_ms / 1000,
        file=xml_safe(case.path),
        line=first_failing_line(case),
        stdout=xml_safe(transcript) or None,
        allow_multiple_subelements=True,
    )
    for problem in case.problems:
        message = one_line(f"rejected: {problem.field.pointer or '/'}: {problem.message}")
        body = f"{message}\n\nat {_at(case, problem.field)}"
        testcase.add_error_info(xml_safe(message), xml_safe(body), "rejected")
    if case.error is not None:
        message = one_line(f"run error: {case.error.message}")
        body = f"{message}\n\nat {_at(case, case.error.field)}"
        testcase.add_error_info(xml_safe(message), xml_safe(body), "run_error")
    for grade in case.failed_grades:
        message = one_line(f"{grade.check_id}: {grade.detail}")
        body = (
            f"{message}\n\nat {_at(case, grade.field)}\n\n"
            f"expected:\n{_json(grade.expected)}\n\nfound:\n{_json(grade.actual)}"
        )
        testcase.add_failure_info(xml_safe(message), xml_safe(body), grade.category)
    return testcase


def render(report: SuiteReport, *, color: bool = False) -> str:
    """The report as one JUnit `<testsuites>` document."""
    classname = report.suite.strip("./").replace("/", ".") or "suite"
    suite = TestSuite(
        name=xml_safe(report.suite),
        test_cases=[_testcase(case, classname) for case in report.cases],
        properties={
            "mode": report.mode,
            "suite": xml_safe(report.suite),
            "tool_version": report.tool_version,
        },
    )
    xml = to_xml_report_string([suite], prettyprint=False)
    return neutralize_markup('<?xml version="1.0" encoding="utf-8"?>\n' + xml + "\n")
