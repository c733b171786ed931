"""The vacuity check (`zeroclaw eval vacuity`) for GitHub Actions: annotations at the
checks of each vacuous fixture and at each rejected fixture's problems, and a Markdown
step summary, escaped, ranked and capped exactly as `run`'s (`reporters.github`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from zeroclaw_eval.cases.location import FieldRef
from zeroclaw_eval.errors import ExitCode
from zeroclaw_eval.grading.vacuity import VacuityReport
from zeroclaw_eval.reporters.github import (
    SUMMARY_LIMIT,
    annotation,
    capped,
    escape_data,
    repository_path,
    round_robin,
)
from zeroclaw_eval.reporters.markdown import code, within
from zeroclaw_eval.reporters.safety import encodable, visible


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
        [
            VacuityFinding(
                case.path, case.name, c.check_id, c.field, f"passes against an empty run: {c.detail}"
            )
            for c in case.checks
        ]
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
        f"## zeroclaw eval vacuity {verdict}: {code(str(report.suite))}\n\n",
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
