"""How the vacuity check (`zeroclaw eval vacuity`) shows its verdict: the console text
(each vacuous or rejected fixture, a verdict), and for GitHub Actions annotations at the
checks of each vacuous fixture and at each rejected fixture's problems, and a Markdown
step summary, escaped, ranked and capped exactly as `run`'s (`reporters.github`).

A fixture's name, model_name, path and details are untrusted: the text shows their
control characters instead of obeying them, and a name or a path (which opens a
rejection's line) stays on its one line (`log_line`), so a file named
`x\n::error::forged.json` starts no workflow command."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from zeroclaw_eval.cases.case import RejectedFixture
from zeroclaw_eval.cases.location import FieldRef
from zeroclaw_eval.collect.suite import display_path
from zeroclaw_eval.errors import ExitCode
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.grading.vacuity import VacuityReport, VacuousCase
from zeroclaw_eval.report.words import NOTHING_RAN, plural
from zeroclaw_eval.reporters.github import (
    HEAD_NAME_LIMIT,
    SUMMARY_LIMIT,
    annotation,
    capped,
    escape_data,
    repository_path,
    round_robin,
)
from zeroclaw_eval.reporters.markdown import code, within
from zeroclaw_eval.reporters.paint import passed_mark, verdict_line
from zeroclaw_eval.reporters.registry import Reporter
from zeroclaw_eval.reporters.safety import encodable, log_line, shorten, visible


@dataclass(frozen=True)
class VacuityFinding:
    """One vacuous check, or one problem of a rejected fixture."""

    path: Path
    fixture: str
    check: str
    field: FieldRef
    message: str

    @property
    def title(self) -> str:
        """The annotation title: the fixture and what is wrong with it."""
        what = "rejected" if self.check == "rejected" else f"{self.check} is vacuous"
        return f"{self.fixture}: {what}"


def vacuity_findings(report: VacuityReport) -> list[VacuityFinding]:
    """Every finding, ranked as `run` ranks failures: rejected fixtures first, and each
    fixture's first finding before any fixture's second."""
    groups = [
        [VacuityFinding(f.path, f.name, "rejected", p.field, p.what()) for p in f.problems]
        for f in report.rejected
    ]
    groups += [
        [VacuityFinding(case.path, case.name, c.check_id, c.field, _vacuously(c)) for c in case.checks]
        for case in report.vacuous
    ]
    return round_robin([group for group in groups if group])


def render(report: VacuityReport) -> str:
    """Up to ten `::error` annotations at the vacuous checks and rejected fields, and a
    notice counting the rest."""
    found = vacuity_findings(report)
    text = capped([annotation(repository_path(f.path), f.field, f.title, f.message) for f in found])
    if report.total == 0:
        suite = escape_data(visible(str(report.suite)))
        text += f"::error title=zeroclaw eval vacuity::no fixtures found in {suite}\n"
    return encodable(text)


def step_summary(report: VacuityReport, limit: int = SUMMARY_LIMIT) -> str:
    """The Markdown summary for `$GITHUB_STEP_SUMMARY`, at most `limit` UTF-8 bytes."""
    verdict = "passed" if report.exit_code() == ExitCode.OK else "FAILED"
    head = [
        # Quoted short, as `run`'s summary quotes its suite: a long name would crowd out the rest.
        f"## zeroclaw eval vacuity {verdict}: {code(shorten(str(report.suite), HEAD_NAME_LIMIT))}\n\n",
        "| fixtures | vacuous | rejected |\n|---:|---:|---:|\n",
        f"| {report.total} | {len(report.vacuous)} | {len(report.rejected)} |\n\n",
    ]
    body: list[str] = []
    found = vacuity_findings(report)
    if found:
        body.append("| fixture | check | field | detail |\n|---|---|---|---|\n")
        for f in found:
            path = repository_path(f.path) or f.path.as_posix()
            where = f"{path}:{f.field.line}" if f.field.line else path
            body.append(f"| {code(f.fixture)} | {code(f.check)} | {code(where)} | {code(f.message)} |\n")
        body.append("\n")
    return within(head, body, limit)


_HINT = (
    "A vacuous case passes whatever the agent does, so it certifies nothing: give it a check"
    " that an agent doing nothing fails (tools_used, exact_tool_calls, tool_arguments_contain,"
    " tool_results_contain, response_contains, a file the agent must write, ...)."
)


def _vacuously(check: GradeResult) -> str:
    """How `check` lets an empty run through: it passes there, or it fails there but
    decides nothing (a diagnostic judge check)."""
    if check.passed:
        return f"passes against an empty run: {check.detail}"
    return f"fails against an empty run but decides nothing: {check.detail}"


def _vacuous_lines(case: VacuousCase, color: bool) -> list[str]:
    path = display_path(case.path)
    checks = "its one check passes" if len(case.checks) == 1 else f"all {len(case.checks)} checks pass"
    if any(not check.passed for check in case.checks):
        checks = "no check that decides the case fails"
    mark = passed_mark(False, color)
    lines = [f"{mark} {_line(case.name)}  {_line(case.model_name)}  (vacuous: {checks} against an empty run)"]
    for check in case.checks:
        lines.append(f"    {_line(check.check_id)} [{check.category}]  {_line(check.field.where(path))}")
        lines.append(f"      {visible(check.detail if check.passed else _vacuously(check))}")
    return lines


def _rejected_lines(fixture: RejectedFixture, color: bool) -> list[str]:
    path = display_path(fixture.path)
    lines = [f"{passed_mark(False, color)} {_line(fixture.name)}  (rejected)"]
    for problem in fixture.problems:
        lines.append(f"    {_line(problem.describe(path))}")  # one line: it opens with the path
    return lines


#: Untrusted text on its one line (a name, a path): the one rule of `safety.log_line`,
#: which also keeps a path that opens a line (a rejection's) from starting a command.
_line = log_line


def render_table(report: VacuityReport, *, color: bool = False) -> str:
    """The console text for a vacuity report: each vacuous or rejected fixture, a summary
    (its marks and verdict in colour when `color`)."""
    suite = _line(report.suite)
    lines = [f"zeroclaw eval vacuity: {suite} ({plural(report.total, 'fixture')})", ""]
    for case in report.vacuous:
        lines.extend(_vacuous_lines(case, color))
    for fixture in report.rejected:
        lines.extend(_rejected_lines(fixture, color))
    if report.total == 0:
        lines.append(verdict_line(f"FAILED: no fixtures found in {suite} ({NOTHING_RAN})", False, color))
    elif report.exit_code() == ExitCode.OK:
        passed = f"PASSED: {plural(report.total, 'fixture')}, each failing a check against an empty run"
        lines.append(verdict_line(passed, True, color))
    else:
        parts = [f"{len(report.vacuous)} vacuous", f"{len(report.rejected)} rejected"]
        failed = f"FAILED: {', '.join(parts)} of {plural(report.total, 'fixture')}"
        lines.extend(["", verdict_line(failed, False, color)])
        if report.vacuous:
            lines.append(_HINT)
    return "\n".join(lines) + "\n"


#: The vacuity verdict's formats: the console text (meant for a log), the annotations.
FORMATS: dict[str, Reporter[VacuityReport]] = {
    "table": Reporter.whole("table", render_table, for_log=True),
    "github": Reporter.whole("github", render),
}
