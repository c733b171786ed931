"""The `junit` format: JUnit XML, written a testcase at a time.

One `<testsuite>` per suite, one `<testcase>` per fixture, one `<failure>` per failed
check, `<error>` for a run error or a rejected fixture. A case marked `xfail` that did not
pass is `<skipped type="xfail">` (as pytest writes it), one that passed under a strict
mark a `<failure type="xpass">`. `file`/`line` on each testcase
point at the first failing field (mikepenz/action-junit-report and
EnricoMi/publish-unit-test-result-action read them). The elements and attributes are
those the junit-xml package writes, in its order, plus per-testcase `<properties>`; the
document is written here rather than by junit-xml, which builds an ElementTree of the
whole suite before writing any of it (most of the time and memory of a 10,000-case
report), and neither escapes illegal characters reliably (it strips C0 controls and
lets lone surrogates through as references that make the XML ill-formed) nor
pretty-prints safely. So text is made XML-safe here (`xml_safe`), escaped as
ElementTree escapes it, and not pretty-printed. Every text is also cut at
`XML_TEXT_LIMIT` characters, with a note, since lxml (and so junitparser) refuses a text
node over 10 MB; the JSON report keeps it whole.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from pathlib import PurePosixPath

from zeroclaw_eval._support.json.text import pretty_json
from zeroclaw_eval.cases.location import FieldRef
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.model import XFAILED, XPASSED, CaseReport, SuiteReport
from zeroclaw_eval.report.words import diagnostic_words
from zeroclaw_eval.reporters.registry import Reporter
from zeroclaw_eval.reporters.safety import (
    XML_TEXT_LIMIT,
    MarkupNeutralizer,
    one_line,
    referenced,
    shorten,
    xml_safe,
)

_CUT_NOTE = " [{cut} characters cut: JUnit readers refuse a text over 10 MB; the JSON report has it whole]"


def _text(text: str) -> str:
    """`text` as XML can hold it, and no longer than a JUnit reader accepts."""
    return shorten(xml_safe(text), XML_TEXT_LIMIT, _CUT_NOTE)


def _cdata(text: str) -> str:
    """Safe text as an element's content (ElementTree's escaping)."""
    return referenced(text, _CONTENT_REFERENCES)


def _attributes(pairs: list[tuple[str, str]]) -> str:
    """Attributes holding safe text; line breaks and tabs as references, so that a value
    reads back as it was (ElementTree's escaping)."""
    return "".join(f' {name}="{_attribute(value)}"' for name, value in pairs)


def _attribute(value: str) -> str:
    return referenced(value, _ATTRIBUTE_REFERENCES)


_CONTENT_REFERENCES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"))
_ATTRIBUTE_REFERENCES = (
    *_CONTENT_REFERENCES,
    ('"', "&quot;"),
    ("\r", "&#13;"),
    ("\n", "&#10;"),
    ("\t", "&#09;"),
)


def _element(tag: str, pairs: list[tuple[str, str]], content: str = "") -> str:
    """`<tag …>content</tag>`, or `<tag … />` when empty (content is markup already)."""
    return f"<{tag}{_attributes(pairs)}>{content}</{tag}>" if content else f"<{tag}{_attributes(pairs)} />"


def _properties(pairs: list[tuple[str, str]]) -> str:
    """`<properties>` of `<property name value>` pairs, each value made XML-safe."""
    items = "".join(_element("property", [("name", name), ("value", _text(value))]) for name, value in pairs)
    return f"<properties>{items}</properties>"


def _at(case: CaseReport, field: FieldRef) -> str:
    return f"{field.where(case.path)} ({field.pointer or '/'})"


def first_failing_line(case: CaseReport) -> int | None:
    """The line of the first field a failing case points at (None for a passing case)."""
    return next((f.field.line for f in case.failures() if f.field.line is not None), None)


def _errors(case: CaseReport) -> list[tuple[str, str, str]]:
    """The `<error>`s of `case` as (type, message, body): each rejection, the run error."""
    errors = []
    for problem in case.problems:
        where = f"at {_at(case, problem.field)}"
        errors.append(("rejected", *_message_and_body(f"rejected: {problem.what()}", where)))
    if case.error is not None:
        details = [f"at {_at(case, case.error.field)}"]
        if case.error.traceback:
            details.append(case.error.traceback)
        # A case counts once: an errored case's partial checks go in its error's body,
        # not in <failure> elements that would count it as failed as well.
        if case.failed_grades:
            details.append("checks graded on the partial run that failed:")
            details.extend(f"{g.check_id}: {g.detail}\n{_grade_details(case, g)}" for g in case.failed_grades)
        errors.append(("run_error", *_message_and_body(f"run error: {case.error.message}", *details)))
    return errors


def _failures(case: CaseReport) -> list[tuple[str, str, str]]:
    """The `<failure>`s of `case` as (type, message, body): one per failed check."""
    if case.error is not None:
        return []
    return [
        (_text(g.category), *_message_and_body(f"{g.check_id}: {g.detail}", _grade_details(case, g)))
        for g in case.failed_grades
    ]


def _outcome(tag: str, kind: str, message: str, body: str) -> str:
    pairs = [("type", kind or tag)]
    if message:
        pairs.append(("message", message))
    return _element(tag, pairs, _cdata(body)) if message or body else ""


def _xfail(case: CaseReport) -> str:
    """The `<skipped>` of a case that failed as its `xfail` mark expects, the `<failure>`
    of one that passed under a strict mark; "" for any other case."""
    mark, outcome = case.xfail, case.outcome
    if mark is None or outcome not in (XFAILED, XPASSED):
        return ""
    where = f"the mark at {_at(case, mark.field)}"
    if outcome == XFAILED:
        return _outcome("skipped", "xfail", *_message_and_body(f"expected to fail: {mark.reason}", where))
    if not mark.strict:
        return ""
    message = f"passed, but its strict xfail mark expects it to fail: {mark.reason}"
    return _outcome(
        "failure", "xpass", *_message_and_body(message, f"{where}: remove the mark if it is fixed")
    )


def _testcase(case: CaseReport, classname: str) -> str:
    """The `<testcase>` of `case`, classed `classname` (XML-safe already)."""
    expected = _xfail(case)  # an expected failure is its <skipped>: none of its failures counts
    # A passing case has no line, failure, error or transcript.
    failing = not case.passed and case.outcome != XFAILED
    mark = case.xfail.field.line if expected and case.xfail is not None else None
    line = first_failing_line(case) if failing else mark
    pairs = _testcase_head(case, classname, line)
    children = []
    properties = _case_properties(case)
    if properties:
        children.append(_properties(properties))
    if failing:
        children.extend(_outcome("failure", *failure) for failure in _failures(case))
        children.extend(_outcome("error", *error) for error in _errors(case))
    children.append(expected)
    if case.record is not None and failing:
        turns = [
            f"turn {t.index + 1}: {t.user_input}\n  -> "
            + (t.response if t.response is not None else "(no answer: the turn did not finish)")
            for t in case.record.turns
        ]
        transcript = _text("\n".join(turns))
        if transcript:
            children.append(f"<system-out>{_cdata(transcript)}</system-out>")
    return _element("testcase", pairs, "".join(children))


def _testcase_head(case: CaseReport, classname: str, line: int | None) -> list[tuple[str, str]]:
    """The `<testcase>`'s attributes: name, time, class, file and `line`."""
    pairs = [("name", _text(case.model_name or case.name))]
    if case.duration_ms:
        pairs.append(("time", "%f" % (case.duration_ms / 1000)))
    pairs += [("classname", classname), ("file", _text(case.path))]
    if line:
        pairs.append(("line", str(line)))
    return [(name, value) for name, value in pairs if value or name == "name"]


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


def pieces(report: SuiteReport) -> Iterator[str]:
    """The whole output, in pieces: the suite's head, each testcase, the end."""
    cases = report.cases
    skipped = sum(1 for case in cases if case.outcome == XFAILED)
    errors = sum(1 for case in cases if case.outcome != XFAILED and (case.problems or case.error is not None))
    failures = sum(
        1
        for case in cases
        if (case.outcome != XFAILED and case.error is None and case.failed_grades)
        or (case.outcome == XPASSED and case.blocks_gate)
    )
    # The sum junit-xml writes: of each testcase's time in seconds, in order.
    time = str(sum(case.duration_ms / 1000 for case in cases if case.duration_ms))
    counts = [("errors", str(errors)), ("failures", str(failures))]
    suite = [("disabled", "0"), *counts, ("name", _text(report.suite)), ("skipped", str(skipped))]
    properties = [("mode", report.mode), ("suite", report.suite), ("tool_version", report.tool_version)]
    if report.baseline is not None:
        properties.append(("zeroclaw.baseline", report.baseline.path))
        properties.append(("zeroclaw.baseline_digest", report.baseline.digest))
    diagnostic = diagnostic_words(report.diagnostic_checks())
    if diagnostic is not None:
        properties.append(("zeroclaw.diagnostic_checks", diagnostic))
    tests = ("tests", str(len(cases)))
    # junit-xml sums the suites' times again, as floats.
    everything = _attributes([("disabled", "0"), *counts, tests, ("time", str(float(time)))])
    neutral = MarkupNeutralizer()
    yield neutral.feed(
        f'<?xml version="1.0" encoding="utf-8"?>\n<testsuites{everything}>'
        f"<testsuite{_attributes([*suite, tests, ('time', time)])}>{_properties(properties)}"
    )
    classes: dict[str, str] = {}  # by folder: most cases share a few
    for case in cases:
        folder = posixpath.dirname(case.path)
        if folder not in classes:
            classes[folder] = _text(_classname(folder, report))
        yield neutral.feed(_testcase(case, classes[folder]))
    yield neutral.feed("</testsuite></testsuites>\n") + neutral.flush()


def _classname(folder: str, report: SuiteReport) -> str:
    """A case's folder (its path up to the last slash), dotted: evals/regression ->
    evals.regression; ../shared/x -> shared.x (no empty or dot parts). A run may name
    several folders or single files, so each case is classed by its own folder; one in
    the working directory itself is classed by that folder's name."""
    parts = [part for part in PurePosixPath(folder).parts if part not in ("/", ".", "..")]
    return ".".join(parts) or PurePosixPath(report.root.replace("\\", "/")).name or "suite"


def _case_properties(case: CaseReport) -> list[tuple[str, str]]:
    """Each testcase's `<properties>` (as pytest's record_property writes them): `id`
    for a fixture with an id, `zeroclaw.baseline_change` (`new_failure`, `fixed`, …)
    in a run compared with a baseline, `zeroclaw.cost_usd` for a priced live run, and a
    `zeroclaw.diagnostic` for each diagnostic check that failed (reported, deciding
    nothing: it is no `<failure>`)."""
    pairs = []
    if case.id:
        pairs.append(("id", case.id))
    if case.change:
        pairs.append(("zeroclaw.baseline_change", case.change))
    if case.cost_usd is not None:
        pairs.append(("zeroclaw.cost_usd", f"{case.cost_usd:.6f}"))
    if case.judge_cost_usd is not None:
        pairs.append(("zeroclaw.judge_cost_usd", f"{case.judge_cost_usd:.6f}"))
    for grade in case.diagnostic_failures:
        said = f"{grade.check_id} failed at {_at(case, grade.field)}, deciding nothing: {grade.detail}"
        pairs.append(("zeroclaw.diagnostic", said))
    return pairs


REPORTER = Reporter.streaming(
    "junit", pieces, passing_details=False
)  # a passing testcase is its name and time
