"""How `zeroclaw eval mutate` shows its verdict: a table, JSON, GitHub annotations.

Mutant descriptions quote fixture text (arguments, results, answers), so every line
goes through the same guards as the run's reports: control characters are made
visible and no line can start a workflow command.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from zeroclaw_eval.collect.suite import display_path
from zeroclaw_eval.errors import ExitCode
from zeroclaw_eval.mutate.report import FixtureMutation, MutantOutcome, MutationReport
from zeroclaw_eval.report.words import NOTHING_RAN, plural
from zeroclaw_eval.reporters.github import annotation, capped
from zeroclaw_eval.reporters.paint import passed_mark, verdict_line
from zeroclaw_eval.reporters.registry import Reporter
from zeroclaw_eval.reporters.safety import encodable, log_line, neutralize_json

#: The shape of the JSON verdict; raised whenever a field changes meaning or goes away.
FORMAT_VERSION = 1

_HINT = (
    "A survivor is a regression its case would certify. Strengthen the case with the"
    " suggested check (proven to pass the real run and fail the mutant), or explain why"
    " the change cannot matter."
)


def _score(report: MutationReport) -> str:
    score = report.score
    shown = "n/a" if score is None else f"{score:.1f}%"
    return f"mutation score {shown} ({report.killed} of {plural(report.total, 'mutant')} killed)"


def _survivor_lines(outcome: MutantOutcome) -> Iterator[str]:
    yield f"    survived {log_line(outcome.name)}: {log_line(outcome.before)} -> {log_line(outcome.after)}"
    if outcome.suggestion:
        yield f"      kill it: {log_line(outcome.suggestion)}"
    else:
        yield "      no single check tells it from the real run: explain it, or test the behaviour otherwise"


def _fixture_lines(fixture: FixtureMutation, color: bool) -> Iterator[str]:
    name = log_line(fixture.name)
    if fixture.problem:
        yield f"{passed_mark(False, color)} {name}  not mutated: {log_line(fixture.problem)}"
        return
    mark = passed_mark(not fixture.survivors, color)
    yield f"{mark} {name}  {fixture.killed}/{len(fixture.outcomes)} killed"
    for outcome in fixture.survivors:
        yield from _survivor_lines(outcome)
    for unmade in fixture.unmade:
        yield f"    not made (the system refused it): {log_line(unmade)}"


def render_table(report: MutationReport, *, color: bool = False) -> str:
    """The console text: each fixture's kills and survivors, the score, the verdict
    (its marks and verdict in colour when `color`)."""
    lines = [f"zeroclaw eval mutate: {log_line(report.suite)}", ""]
    for fixture in report.fixtures:
        lines.extend(_fixture_lines(fixture, color))
    for rejected in report.rejected:
        lines.append(f"{passed_mark(False, color)} {log_line(rejected.name)}  (rejected)")
        path = display_path(rejected.path)
        lines.extend(f"    {log_line(problem.describe(path))}" for problem in rejected.problems)
    lines.append("")
    if not report.fixtures and not report.rejected:
        lines.append(verdict_line(f"FAILED: no fixtures found ({NOTHING_RAN})", False, color))
        return "\n".join(lines) + "\n"
    lines.append(f"{_score(report)} in {report.duration_ms / 1000:.2f}s")
    failures = report.failures()
    if failures:
        lines.append(verdict_line("FAILED:", False, color))
        lines.extend(f"  {log_line(reason)}" for reason in failures)
        if any(fixture.survivors for fixture in report.fixtures):
            lines.append(_HINT)
    else:
        lines.append(verdict_line("PASSED", True, color))
    return "\n".join(lines) + "\n"


def render_json(report: MutationReport) -> str:
    """The verdict as JSON (`format_version` says its shape)."""
    document: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "suite": report.suite,
        "score": report.score,
        "killed": report.killed,
        "total": report.total,
        "min_score": report.min_score,
        "passed": report.exit_code() == ExitCode.OK,
        "failures": report.failures(),
        "duration_ms": round(report.duration_ms, 3),
        "fixtures": [_fixture_json(fixture) for fixture in report.fixtures],
        "rejected": [
            {
                "name": rejected.name,
                "path": display_path(rejected.path),
                "problems": [problem.describe(display_path(rejected.path)) for problem in rejected.problems],
            }
            for rejected in report.rejected
        ],
    }
    text = json.dumps(document, ensure_ascii=False, indent=2)
    return neutralize_json(text) + "\n"  # written through write_output, which escapes lone surrogates


def _fixture_json(fixture: FixtureMutation) -> dict[str, Any]:
    return {
        "name": fixture.name,
        "path": display_path(fixture.path),
        "model_name": fixture.model_name,
        "expects": {"line": fixture.expects.line, "col": fixture.expects.col},
        "killed": fixture.killed,
        "total": len(fixture.outcomes),
        "problem": fixture.problem,
        "unseen_operators": fixture.unseen_operators,
        "unmade": list(fixture.unmade),
        "mutants": [
            {
                "name": o.name,
                "operator": o.operator,
                "position": o.position,
                "before": o.before,
                "after": o.after,
                "killed": o.killed,
                "killed_by": list(o.killed_by),
                "suggestion": o.suggestion,
                "suggested_check": o.check,
            }
            for o in fixture.outcomes
        ],
    }


def render_annotations(report: MutationReport) -> str:
    """A warning at each fixture's `expects` for each survivor; an error for a fixture
    the gate refuses (not mutated, or an operator none of whose mutants it kills). Each
    kind is capped as GitHub caps them, with a notice counting the rest."""
    errors, warnings = [], []
    per_rule = report.min_score is None
    for fixture in report.fixtures:
        path = display_path(fixture.path)
        if fixture.problem:
            errors.append(annotation(path, fixture.expects, f"{fixture.name}: not mutated", fixture.problem))
            continue
        if per_rule and fixture.unseen_operators:
            message = f"no mutant killed by operator {', '.join(fixture.unseen_operators)}"
            errors.append(
                annotation(path, fixture.expects, f"{fixture.name}: regressions it cannot see", message)
            )
        for outcome in fixture.survivors:
            message = f"{outcome.before} -> {outcome.after}"
            if outcome.suggestion:
                message += f"; kill it: {outcome.suggestion}"
            title = f"{fixture.name}: surviving mutant {outcome.name}"
            warnings.append(annotation(path, fixture.expects, title, message, level="warning"))
    text = capped(errors, what="refused fixture(s)") + capped(warnings, what="survivor(s)", level="warning")
    return encodable(text)


#: The mutation verdict's formats: the table, the JSON verdict, GitHub annotations.
FORMATS: dict[str, Reporter[MutationReport]] = {
    "table": Reporter.whole("table", render_table, for_log=True),
    "json": Reporter.whole("json", render_json),
    "github": Reporter.whole("github", render_annotations),
}
