"""One case of the HTML page as markup, every value from the report escaped by `text`.

The page around the cases comes from the jinja2 template (`page`); the cases are
written here with plain string building instead, because they are nearly all of a large
page and jinja2 spends about half a millisecond on each (seconds for 10,000 cases, most
of them passing), where this takes a tenth of that. The markup is the template's, byte
for byte; `tests/reporters/html/test_page.py` holds it to the page's escaping guarantees.
"""

from __future__ import annotations

from zeroclaw_eval._support.json.text import pretty_json
from zeroclaw_eval.cases.location import FieldRef
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.baseline import LABELS, SHOWN
from zeroclaw_eval.report.model import PASSED, STABILITY_LABELS, XFAILED, XPASSED, CaseReport, RepeatStats
from zeroclaw_eval.report.words import interval_words
from zeroclaw_eval.reporters.html.diff import diff_view
from zeroclaw_eval.reporters.safety import referenced


def text(value: object) -> str:
    """`value` as HTML text or a quoted attribute value: jinja2's autoescape (markupsafe's
    rule: `&`, `<`, `>`, `'` and `"` as references), so the cases read like the rest."""
    if type(value) is int:  # token counts, line numbers: nothing to escape
        return str(value)
    return referenced(value if isinstance(value, str) else str(value), _HTML_REFERENCES)


_HTML_REFERENCES = (("&", "&amp;"), (">", "&gt;"), ("<", "&lt;"), ("'", "&#39;"), ('"', "&#34;"))


def lines_to_mark(case: CaseReport, lines: int) -> dict[int, str]:
    """The source lines (1 to `lines`) a failing field spans. A saved report may say any
    span (`render` reads files), so it is clamped to the source: a field "ending" at
    line 10**9 marks what there is, never a billion entries."""
    marks: dict[int, str] = {}
    for ref in (failure.field for failure in case.failures()):
        if ref.line is not None:
            for line in range(max(ref.line, 1), min(ref.end_line or ref.line, lines) + 1):
                marks[line] = "failing"
    return marks


def starts_open(case: CaseReport) -> bool:
    """Whether the page shows `case` open: all but a pass or an expected failure (the
    outcomes "failures only" hides), whose bodies wait in templates (`case_html`)."""
    return case.outcome not in (PASSED, XFAILED)


def case_html(index: int, case: CaseReport) -> str:
    """The `<details>` element of `case`, the `index`th of the page."""
    anchor = f"case-{index}"
    status = case.outcome  # one of six fixed words
    opened = " open" if starts_open(case) else ""
    path = text(case.path)
    out = [
        f'  <details class="case" id="{anchor}" data-status="{status}"{opened}>\n    <summary>\n'
        f'      <span class="status">{status}</span>\n      <span class="name">{path}</span>\n'
    ]
    if case.model_name:
        out.append(f'<span class="model">{text(case.model_name)}</span>')
    if case.id:
        out.append(f'<span class="model case-id">[{text(case.id)}]</span>')
    if case.change in SHOWN:
        out.append(f'<span class="change change-{text(case.change)}">{text(LABELS[case.change])}</span>')
    checks = len(case.grades)
    runs = case.repeats
    repeated = f" · {text(runs.passed)}/{text(runs.runs)} runs passed" if runs else ""
    # A case that starts closed keeps its body in an inert <template>: parsed, but neither
    # in the document nor styled nor laid out until the page script moves it into the
    # case the first time it opens (10,000 bodies cost seconds of a page's load).
    body = '<div class="body">' if opened else '<template><div class="body">'
    out.append(
        f'      <span class="meta">{checks} check{"" if checks == 1 else "s"} · {case.duration_ms:.1f} ms'
        f"{repeated}</span>\n    </summary>\n    {body}\n"
    )
    if runs:
        _repeats(out, runs, case.status == PASSED)
    mark = case.xfail
    if mark is not None and status in (XFAILED, XPASSED):
        gate = " It passed under a strict mark: the gate fails." if status == XPASSED and mark.strict else ""
        out.append(
            '      <div class="check xfail">\n'
            f'        <span class="where">{_link(anchor, path, mark.field)}</span>'
            f" expected to fail: {text(mark.reason)}{gate}\n      </div>\n"
        )
    if case.problems:
        out.append("      <h3>Rejected at admission</h3>\n")
    for problem in case.problems:
        ref = problem.field
        out.append(
            '      <div class="check problem">\n'
            f'        <span class="where">{_link(anchor, path, ref)}</span>\n'
            f'        <span class="id">{text(ref.pointer or "/")}</span>: {text(problem.message)}\n'
            "      </div>\n"
        )
    error = case.error
    if error:
        ref = error.field
        out.append(
            f'      <h3>Run error</h3>\n      <div class="check run-error">\n'
            f'        <span class="where">{_link(anchor, path, ref)}</span>\n'
            f"        {text(error.message)}\n"
        )
        if error.traceback:
            out.append(f'<pre class="traceback">{text(error.traceback)}</pre>')
        if case.grades:
            out.append('<div class="meta">The checks below were graded on the partial run.</div>')
        out.append("      </div>\n")
    for heading, failing in (
        ("Failing checks", case.failed_grades),
        ("Diagnostic checks that failed (reported, deciding nothing)", case.diagnostic_failures),
    ):
        if failing:
            out.append(f"      <h3>{heading}</h3>\n")
        for grade in failing:
            _failing_check(out, anchor, path, grade)
    if case.grades:
        out.append('      <h3>All checks</h3>\n      <ul class="plain">\n')
        out.extend(
            f'        <li class="{_state(grade)}">{"✓" if grade.passed else "~" if grade.diagnostic else "✗"}'
            f' <span class="name">{text(grade.check_id)}</span>{" (diagnostic)" if grade.diagnostic else ""}'
            f' <span class="meta">{text(grade.detail)}</span></li>\n'
            for grade in case.grades
        )
        out.append("      </ul>\n")
    if case.record is not None and case.record.turns:
        out.append('      <h3>Run</h3>\n      <ol class="timeline">\n')
        _timeline(out, case)
        out.append("      </ol>\n")
    if case.source:
        _source(out, case, anchor, opened)
    out.append("    </div>\n  </details>\n" if opened else "    </div></template>\n  </details>\n")
    return "".join(out)


def _failing_check(out: list[str], anchor: str, path: str, grade: GradeResult) -> None:
    """A failed check: where, why, and what was expected beside what was found."""
    ref, diff = grade.field, diff_view(grade)
    out.append(
        '      <div class="check failing-check">\n'
        f'        <div><span class="id">{text(grade.check_id)}</span>'
        f' <span class="meta">[{text(grade.category)}]</span>\n'
        f'          <span class="where">{_link(anchor, path, ref)}</span></div>\n'
        f'        <div class="detail">{text(grade.detail)}</div>\n        <div class="side">\n'
        '          <div><div class="label">expected</div>'
        f'<pre class="expected">{text(diff.expected)}</pre></div>\n'
        '          <div><div class="label">found</div>'
        f'<pre class="found">{text(diff.found)}</pre></div>\n'
        "        </div>\n"
    )
    if diff.segments:
        out.append(
            '        <div class="label">difference'
            ' (<del>expected only</del> <ins>found only</ins>)</div>\n        <pre class="diff">'
        )
        out.extend(
            f"<{op}>{text(part)}</{op}>" if op in ("del", "ins") else text(part) for op, part in diff.segments
        )
        out.append("</pre>\n")
    out.append("      </div>\n")


def _state(grade: GradeResult) -> str:
    """A check's class in the list of all checks: ok, bad, or diag (failed, deciding nothing)."""
    return "ok" if grade.passed else "diag" if grade.diagnostic else "bad"


def _link(anchor: str, path: str, ref: FieldRef) -> str:
    """A link to the source row of field `ref` (`path` is escaped already)."""
    return f'<a href="#{anchor}-L{text(ref.line)}">{path}:{text(ref.line)}:{text(ref.col)}</a>'


def _repeats(out: list[str], runs: RepeatStats, passed: bool) -> None:
    out.append(
        f'      <h3>Runs</h3>\n      <div class="check repeats">\n'
        f'        <span class="stability {runs.stability}">{STABILITY_LABELS[runs.stability]}</span> ·\n'
        f"        {text(runs.passed)} of {text(runs.runs)} runs passed ({runs.pass_rate * 100:.0f} %,"
        f" {text(interval_words(*runs.interval))}) ·\n"
        f"        pass@{text(runs.runs)}"
        f" {'yes' if runs.pass_at_k else 'no'} · pass^{text(runs.runs)} {'yes' if runs.pass_all else 'no'}\n"
    )
    if runs.min_pass_rate is not None:
        out.append(f" · must reach {runs.min_pass_rate * 100:.0f} %")
    flaky = runs.flaky_checks
    if flaky:
        out.append(
            '        <div class="label">flaky checks (passed in some runs, failed in others)</div>\n'
            '        <ul class="flaky">'
        )
        out.extend(
            f'<li><span class="id">{text(check)}</span> passed in {text(runs.check_passes[check])}'
            f" of {text(runs.runs)} runs</li>"
            for check in flaky
        )
        out.append("</ul>\n")
    if runs.suspect:
        out.append(f'        <div class="bad">{text(runs.suspect)}</div>\n')
    which = "a passing run" if passed else "the first failing run"
    out.append(f'        <div class="meta">The checks below are those of {which}.</div>\n      </div>\n')


def _timeline(out: list[str], case: CaseReport) -> None:
    """Each turn of the run: the user's input, each model step with the calls it
    requested (and their dispatch), calls the agent made on its own, the answer."""
    record = case.record
    if record is None:
        return
    expected = case.tool_failures_expected
    for turn in record.turns:
        calls = [call for call in record.calls if call.turn == turn.index]
        out.append(
            "        <li>\n"
            f'          <div class="event"><span class="who">turn {turn.index + 1} · user</span>'
            f"{text(turn.user_input)}</div>\n"
        )
        for step in record.steps:
            if step.turn != turn.index:
                continue
            sent = ""
            # A report of format 2 did not record what was sent: say nothing rather than "nothing".
            if step.sent_roles:
                offered = ", ".join(map(str, step.offered_tools)) if step.offered_tools else "no tool"
                system = (
                    ""
                    if step.system_prompt is None
                    else f'<pre class="system">{text(step.system_prompt)}</pre>'
                )
                sent = (
                    '          <div class="event sent"><span class="who">agent → model</span>'
                    f'<span class="meta">sent {text(", ".join(map(str, step.sent_roles)))}'
                    f" · offered {text(offered)}</span>\n{system}          </div>\n"
                )
            content = "" if step.content is None else f"<pre>{text(step.content)}</pre>"
            out.append(
                f'{sent}          <div class="event"><span class="who">model</span>'
                f'<span class="meta">{text(step.input_tokens)} in'
                f" / {text(step.output_tokens)} out tokens</span>\n{content}          </div>\n"
            )
            for request in step.tool_calls:
                dispatch = None
                for call in calls:
                    if call.call_id == request["id"]:
                        dispatch = call
                        calls.remove(call)
                        break
                dispatched = (
                    '<span class="meta">not dispatched</span>'
                    if dispatch is None
                    else _outcome(dispatch.success, expected)
                    + f"            <pre>{text(dispatch.result)}</pre>\n"
                )
                out.append(
                    f'          <div class="event"><span class="who">→ {text(request["name"])}</span>'
                    f'<span class="meta">call {text(request["id"])}</span>\n'
                    f"            <pre>{text(request['arguments'])}</pre>\n{dispatched}          </div>\n"
                )
        out.extend(
            f'          <div class="event"><span class="who">→ {text(call.name)}'
            " (dispatched by the agent on its own)</span>\n"
            f"            <pre>{text(pretty_json(call.arguments))}</pre>\n"
            f"{_outcome(call.success, expected)}            <pre>{text(call.result)}</pre>\n"
            "          </div>\n"
            for call in calls
        )
        answer = (
            f"<pre>{text(turn.response)}</pre>"
            if turn.response is not None
            else '<span class="meta">none (the turn did not finish)</span>'
        )
        out.append(
            f'          <div class="event"><span class="who">answer</span>{answer}</div>\n        </li>\n'
        )


def _outcome(success: bool, expected: bool) -> str:
    """How a dispatch ended, in the timeline: a result, a failure, or a failure the
    fixture asks for (no cause of the case's failing, so not marked as one)."""
    if success:
        return '            <span class="who ok">← result</span>\n'
    if expected:
        return '            <span class="who">← failed, as the fixture expects</span>\n'
    return '            <span class="who bad">← failed</span>\n'


def _source(out: list[str], case: CaseReport, anchor: str, opened: str) -> None:
    """The fixture source, its failing lines marked (each row an anchor a link can target)."""
    # Split on LF only, as positions count lines (str.splitlines also splits at U+2028 and
    # friends, which would shift every line after one).
    lines = (case.source or "").split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines:
        return
    marks = lines_to_mark(case, len(lines))
    out.append(
        f'      <details class="source"{opened}>\n        <summary>Fixture source</summary>\n'
        '        <table class="source">\n'
    )
    for number, line in enumerate(lines, 1):
        mark = marks.get(number)
        marked = f' class="{mark}"' if mark else ""
        row = f'<tr id="{anchor}-L{number}"{marked}><td class="n">{number}</td><td>{text(line)}</td></tr>'
        out.append(f"          {row}\n")
    out.append("        </table>\n      </details>\n")
