"""The `table` format: one line per case, each failure beneath it, a summary line."""

from __future__ import annotations

from zeroclaw_eval.report.model import ERROR, FAILED, PASSED, REJECTED, CaseReport, SuiteReport

#: Each case status's mark and colour (progress lines use the same marks).
MARKS = {PASSED: ("✓", "green"), FAILED: ("✗", "red"), ERROR: ("!", "yellow"), REJECTED: ("✗", "red")}
_ANSI = {"green": "32", "red": "31", "yellow": "33", "dim": "2", "bold": "1"}


def _paint(text: str, colour: str, color: bool) -> str:
    return f"\x1b[{_ANSI[colour]}m{text}\x1b[0m" if color else text


def _case_lines(case: CaseReport, color: bool, verbose: bool) -> list[str]:
    mark, colour = MARKS[case.status]
    label = f"  {_paint(case.model_name, 'dim', color)}" if case.model_name else ""
    checks = f"{len(case.grades)} check{'s' if len(case.grades) != 1 else ''}"
    status = {REJECTED: "rejected", ERROR: "run error"}.get(case.status, checks)
    lines = [f"{_paint(mark, colour, color)} {case.name}{label}  ({status})"]
    for problem in case.problems:
        lines.append(f"    {problem.describe(case.path)}")
    if case.error is not None:
        lines.append(f"    {case.error.field.where(case.path)}: run error: {case.error.message}")
        if case.error.traceback and verbose:
            lines.extend(f"      {line}" for line in case.error.traceback.splitlines())
        elif case.error.traceback:
            lines.append("      (-v shows where the agent raised)")
        if case.grades:
            passed = len(case.grades) - len(case.failed_grades)
            lines.append(f"    graded on the partial run: {passed} of {len(case.grades)} checks passed")
    for grade in case.failed_grades:
        cross = _paint("✗", "red", color)
        lines.append(f"    {cross} {grade.check_id} [{grade.category}]  {grade.field.where(case.path)}")
        lines.append(f"      {grade.detail}")
    return lines


def render(report: SuiteReport, *, color: bool = False, verbose: bool = False) -> str:
    """The console table for `report`; `verbose` adds the agent's traceback to a run error."""
    lines = [f"zeroclaw eval: {report.suite} ({report.mode}, {len(report.cases)} cases)", ""]
    for case in report.cases:
        lines.extend(_case_lines(case, color, verbose))
    counts = report.counts()
    verdict = "PASSED" if report.exit_code() == 0 else "FAILED"
    parts = [f"{counts['passed']} passed", f"{counts['failed']} failed"]
    if counts[ERROR]:
        parts.append(f"{counts[ERROR]} errors")
    if counts[REJECTED]:
        parts.append(f"{counts[REJECTED]} rejected")
    summary = f"{verdict}: {len(report.cases)} cases ({', '.join(parts)}) in {report.duration_ms / 1000:.2f}s"
    if not report.cases:
        summary = f"FAILED: no fixtures found in {report.suite} (a gate that ran nothing certifies nothing)"
    lines.extend(["", _paint(summary, "green" if verdict == "PASSED" else "red", color)])
    return "\n".join(lines) + "\n"
