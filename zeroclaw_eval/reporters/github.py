"""The `github` format: workflow-command annotations at the failing fixture fields, and
the Markdown step summary.

Facts from actions/runner and actions/toolkit: at most 10 error
annotations per step become annotations, so failures are ranked and the rest counted;
property values and messages are escaped exactly as `@actions/core` does, so untrusted
text inside an annotation can never contain a raw line break and so never start a
command of its own (its control characters are made visible first, and a lone surrogate
is written as an escape); `col`/`endColumn` are only kept by the runner on a single line.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TypeVar

from zeroclaw_eval.cases.location import FieldRef
from zeroclaw_eval.errors import ExitCode
from zeroclaw_eval.report.baseline import LABELS, changed_cases, describe_changes
from zeroclaw_eval.report.cost import dollars
from zeroclaw_eval.report.model import (
    ERROR,
    PASSED,
    REJECTED,
    STABILITY_LABELS,
    XFAILED,
    XPASSED,
    CaseReport,
    SuiteReport,
)
from zeroclaw_eval.report.words import RUN_ERROR_MEANING, diagnostic_words, suite_rate_words
from zeroclaw_eval.reporters.markdown import code, fenced, html_text, within
from zeroclaw_eval.reporters.registry import Reporter
from zeroclaw_eval.reporters.safety import encodable, shorten, visible

T = TypeVar("T")

MAX_ERRORS = 10  # annotations of one type per step (runner `_maxCountPerIssueType`)
MESSAGE_LIMIT = 4000  # the runner cuts a message at 4,096 characters
SUMMARY_LIMIT = 1024 * 1024  # a step summary over 1 MiB is refused whole


def escape_data(text: str) -> str:
    """Escape an annotation message (`escapeData` in @actions/core)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape an annotation property value (`escapeProperty` in @actions/core)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


@dataclass(frozen=True)
class Finding:
    """One failure worth an annotation."""

    case: CaseReport
    field: FieldRef
    check: str
    message: str

    @property
    def title(self) -> str:
        """The annotation title: the case (with its id, a tracker's say) and the check."""
        tracked = f" [{self.case.id}]" if self.case.id else ""
        return f"{self.case.name}{tracked}: {self.check}"


def findings(report: SuiteReport) -> list[Finding]:
    """Every failure that fails the gate, ranked: each failing case's first failure before
    any case's second, and within a round rejected fixtures, then run errors, then failed
    checks. A case that failed as its `xfail` mark expects has none (`expected`); one that
    passed under a strict mark has one, at the mark."""
    per_case: list[list[Finding]] = []
    for case in report.cases:
        if not case.blocks_gate:
            continue
        mine = [Finding(case, f.field, f.check, f.message) for f in case.failures()]
        if case.outcome == XPASSED and case.xfail is not None:
            mine = [Finding(case, case.xfail.field, "xfail", _xpassed(case.xfail.reason))]
        if mine:
            per_case.append(mine)
    severity = {REJECTED: 0, ERROR: 1}
    per_case.sort(key=lambda found: severity.get(found[0].case.status, 2))  # stable: fixture order kept
    return round_robin(per_case)


def _xpassed(reason: str) -> str:
    return f"passed, but its strict xfail mark expects it to fail ({reason}): remove the mark if it is fixed"


def expected(report: SuiteReport) -> list[str]:
    """A notice at the mark of each case that failed as its `xfail` mark expects, and a
    warning at that of each that passed under a mark that is not strict: shown, never
    gating."""
    notes = []
    for case in report.cases:
        mark = case.xfail
        if mark is None or case.blocks_gate or case.outcome not in (XFAILED, XPASSED):
            continue
        failed = case.outcome == XFAILED
        message = (
            f"expected to fail: {mark.reason}"
            if failed
            else f"passed, though expected to fail: {mark.reason}"
        )
        title = f"{case.name}{f' [{case.id}]' if case.id else ''}: xfail"
        level = "notice" if failed else "warning"
        notes.append(annotation(annotation_path(report, case), mark.field, title, message, level=level))
    return notes


def diagnostic_notes(report: SuiteReport) -> list[str]:
    """A notice at each diagnostic check that failed (`grading.judges.gate`): shown where
    it points, never gating."""
    notes = []
    for case in report.cases:
        for grade in case.diagnostic_failures:
            title = f"{case.name}{f' [{case.id}]' if case.id else ''}: {grade.check_id} (diagnostic)"
            path = annotation_path(report, case)
            notes.append(annotation(path, grade.field, title, grade.detail, level="notice"))
    return notes


def annotation_path(report: SuiteReport, case: CaseReport) -> str | None:
    """The fixture path relative to the repository (see `repository_path`)."""
    return repository_path(Path(report.root or os.getcwd()) / case.path)


def repository_path(path: Path) -> str | None:
    """`path` relative to the repository (GITHUB_WORKSPACE, else the working directory),
    in POSIX form; None when it lies outside."""
    base = os.environ.get("GITHUB_WORKSPACE") or os.getcwd()
    absolute = Path(os.getcwd()) / path
    try:
        relative = os.path.relpath(os.path.realpath(absolute), os.path.realpath(base))
    except ValueError:  # another drive on Windows
        return None
    posix = PurePath(relative).as_posix()
    return None if posix == ".." or posix.startswith("../") else posix


def annotation(path: str | None, field: FieldRef, title: str, message: str, *, level: str = "error") -> str:
    """One `::error` (or `level`: `warning`, `notice`) command at `field` of the file at
    `path` (None: no file), every value escaped and made visible, so that untrusted text
    starts no command of its own."""
    properties: list[tuple[str, str]] = []
    if path is not None:
        properties.append(("file", path))
        if field.line:
            same_line = field.end_line in (None, field.line)
            properties.append(("line", str(field.line)))
            properties.append(("endLine", str(field.end_line if field.end_line else field.line)))
            if same_line and field.col:
                properties.append(("col", str(field.col)))
                if field.end_col:
                    properties.append(("endColumn", str(field.end_col)))
    properties.append(("title", title))
    rendered = ",".join(f"{key}={escape_property(visible(value))}" for key, value in properties)
    return f"::{level} {rendered}::{escape_data(visible(shorten(message, MESSAGE_LIMIT)))}\n"


def round_robin(groups: list[list[T]]) -> list[T]:
    """Each group's first item, then each one's second, and so on: every group is
    represented before any is represented twice."""
    ranked: list[T] = []
    for round_index in range(max((len(group) for group in groups), default=0)):
        ranked.extend(group[round_index] for group in groups if round_index < len(group))
    return ranked


def capped(commands: list[str], *, what: str = "failure(s)", level: str = "error") -> str:
    """The first `MAX_ERRORS` annotations, and a notice counting the rest (`what` they
    are, of annotation `level`)."""
    lines = commands[:MAX_ERRORS]
    hidden = len(commands) - MAX_ERRORS
    if hidden > 0:
        lines.append(
            f"::notice title=zeroclaw eval::{hidden} more {what} not annotated (GitHub shows at most"
            f" {MAX_ERRORS} {level} annotations per step); the step summary and the log list them all\n"
        )
    return "".join(lines)


def render(report: SuiteReport, *, color: bool = False) -> str:
    """Up to ten ranked `::error` annotations, and a notice counting the rest."""
    commands = [
        annotation(annotation_path(report, f.case), f.field, f.title, f.message) for f in findings(report)
    ]
    text = capped(commands)
    notes = expected(report) + diagnostic_notes(report)
    if notes:  # GitHub keeps ten of each level: the notices' own cap, counted apart
        what = "expected failure(s) or diagnostic check(s)"
        text += capped(notes, what=what, level="notice or warning")
    if not report.cases and not report.empty_shard:
        text += f"::error title=zeroclaw eval::no fixtures found in {escape_data(visible(report.suite))}\n"
    return encodable(text)


def _summary_rows(report: SuiteReport) -> Iterator[str]:
    for finding in findings(report):
        field = finding.field
        # The same path the annotations use (relative to the repository), so a reader can
        # match a row to its annotation.
        path = annotation_path(report, finding.case) or finding.case.path
        where = f"{path}:{field.line}" if field.line else path
        cells = (code(finding.case.name), code(finding.check), code(where), code(finding.message))
        yield "| " + " | ".join(cells) + " |\n"


def _baseline_section(report: SuiteReport, head: list[str], body: list[str]) -> None:
    """The "changes since baseline" section: its counts join `head` (cut last), the cases that
    changed open `body`."""
    baseline = report.baseline
    if baseline is None:
        return
    changes = describe_changes((case.change for case in report.cases), baseline.removed)
    head.append(
        f"### Changes since baseline {code(shorten(baseline.path, HEAD_NAME_LIMIT))}\n\n{changes}\n\n"
    )
    rows = changed_cases(report.cases, baseline.removed)
    if rows:
        body.append("| change | case | status |\n|---|---|---|\n")
        for row in rows:
            status = row.status if row.index is not None else f"was {row.status}"
            body.append(f"| {LABELS[row.change]} | {code(row.path)} | {status} |\n")
        body.append("\n")


def _repeats_section(report: SuiteReport, head: list[str], body: list[str]) -> None:
    """Under `--repeat`: how many cases were stable passes, flaky and stable failures
    (joining `head`), and each case that was not a stable pass (opening `body`)."""
    repeated = [case for case in report.cases if case.repeats is not None]
    if not repeated:
        return
    classes = Counter(case.repeats.stability for case in repeated if case.repeats is not None)
    counts = ", ".join(f"{STABILITY_LABELS[kind]} {classes[kind]}" for kind in STABILITY_LABELS)
    head.append(f"Repeated runs: {counts}\n\n")
    rate = report.repeat_rate()
    if rate is not None:
        words = suite_rate_words(rate.mean, rate.low, rate.high, rate.clusters, rate.cases)
        head.append(f"{words[:1].upper()}{words[1:]}\n\n")
    rows = [case for case in repeated if case.repeats is not None and case.repeats.stability != "stable_pass"]
    if rows:
        body.append("| case | runs | passed | 95% interval |\n|---|---:|---:|---:|\n")
        for case in rows:
            runs = case.repeats
            assert runs is not None
            low, high = runs.interval
            kind = STABILITY_LABELS[runs.stability]
            body.append(
                f"| {code(case.path)} | {kind} | {runs.passed}/{runs.runs} | {low:.0%} to {high:.0%} |\n"
            )
        body.append("\n")


#: Characters of a name the summary's head quotes (the suite, the baseline file): the head
#: is cut only when nothing else is left to cut (`within`), so what it quotes is, or a long
#: name would crowd out the findings, or leave of a nearly full summary file nothing but
#: the note that it was cut. Everything else in the head is bounded already: the mode and
#: the check categories are closed sets, the rest are counts.
HEAD_NAME_LIMIT = 300


def step_summary(report: SuiteReport, limit: int = SUMMARY_LIMIT) -> str:
    """The Markdown summary for `$GITHUB_STEP_SUMMARY`, at most `limit` UTF-8 bytes."""
    counts = report.counts()
    verdict = "passed" if report.exit_code() == ExitCode.OK else "FAILED"
    keys = ["total", PASSED, "failed", ERROR, REJECTED]
    titles = ["cases", "passed", "failed", "run errors", "rejected"]
    if any(case.xfail is not None for case in report.cases):  # columns only a suite with marks needs
        keys += [XFAILED, XPASSED]
        titles += [XFAILED, XPASSED]
    head = [
        f"## zeroclaw eval {verdict}: {code(shorten(report.suite, HEAD_NAME_LIMIT))} ({report.mode})\n\n",
        f"| {' | '.join(titles)} |\n|{'---:|' * len(titles)}\n",
        "| " + " | ".join(str(counts[k]) for k in keys) + " |\n\n",
    ]
    if counts[ERROR]:
        head.append(f"{RUN_ERROR_MEANING}\n\n")
    diagnostic = diagnostic_words(report.diagnostic_checks())
    if diagnostic is not None:
        head.append(f"{diagnostic}\n\n")
    over = report.over_budget()
    if over is not None:
        head.append(f"**FAILED**: {code(over)}\n\n")
    cost, judging = report.cost_usd(), report.judge_cost_usd()
    if cost is not None:
        head.append(f"Cost: {dollars(cost)} (the model requests of the run, at the provider's prices)\n\n")
    if judging is not None:
        head.append(f"Judges' cost: {dollars(judging)} (apart from the agent's)\n\n")
    totals = report.category_totals()
    if totals:
        head.append(
            "Checks: " + ", ".join(f"{c} {t['passed']}/{t['total']}" for c, t in totals.items()) + "\n\n"
        )
    body: list[str] = []
    _baseline_section(report, head, body)
    _repeats_section(report, head, body)
    rows = list(_summary_rows(report))
    if rows:
        body.append("| case | check | field | detail |\n|---|---|---|---|\n")
        body.extend(rows)
        body.append("\n")
    for case in report.cases:
        if not case.blocks_gate or case.record is None or not case.record.turns:
            continue
        body.append(
            f"<details><summary>{html_text(case.name)}: final response</summary>\n\n"
            f"{fenced(case.record.final_response)}\n</details>\n\n"
        )
    return within(head, body, limit)


REPORTER = Reporter.whole("github", render, passing_details=False)  # failures only
