"""The `github` format: workflow-command annotations at the failing fixture fields, and
the Markdown step summary.

Facts from actions/runner and actions/toolkit: at most 10 error
annotations per step become annotations, so failures are ranked and the rest counted;
property values and messages are escaped exactly as `@actions/core` does, so untrusted
text inside an annotation can never contain a raw line break and so never start a
command of its own; `col`/`endColumn` are only kept by the runner on a single line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath

from zeroclaw_eval.fixtures.location import FieldRef
from zeroclaw_eval.report.model import ERROR, PASSED, REJECTED, CaseReport, SuiteReport

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
    """Every failure, ranked: each failing case's first failure before any case's second,
    and within a round rejected fixtures, then run errors, then failed checks."""
    per_case: list[list[Finding]] = []
    for case in report.cases:
        mine = [Finding(case, f.field, f.check, f.message) for f in case.failures()]
        if mine:
            per_case.append(mine)
    severity = {REJECTED: 0, ERROR: 1}
    per_case.sort(key=lambda found: severity.get(found[0].case.status, 2))  # stable: fixture order kept
    ranked: list[Finding] = []
    depth = max((len(found) for found in per_case), default=0)
    for round_index in range(depth):
        ranked.extend(found[round_index] for found in per_case if round_index < len(found))
    return ranked


def annotation_path(report: SuiteReport, case: CaseReport) -> str | None:
    """The fixture path relative to the repository (GITHUB_WORKSPACE, else the working
    directory), in POSIX form; None when the fixture lies outside it."""
    base = os.environ.get("GITHUB_WORKSPACE") or os.getcwd()
    absolute = Path(report.root or os.getcwd()) / case.path
    try:
        relative = os.path.relpath(os.path.realpath(absolute), os.path.realpath(base))
    except ValueError:  # another drive on Windows
        return None
    posix = PurePath(relative).as_posix()
    return None if posix == ".." or posix.startswith("../") else posix


def _command(report: SuiteReport, finding: Finding) -> str:
    properties: list[tuple[str, str]] = []
    path = annotation_path(report, finding.case)
    field = finding.field
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
    properties.append(("title", finding.title))
    rendered = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    message = finding.message
    if len(message) > MESSAGE_LIMIT:
        message = message[: MESSAGE_LIMIT - 1] + "…"
    return f"::error {rendered}::{escape_data(message)}\n"


def render(report: SuiteReport, *, color: bool = False) -> str:
    """Up to ten ranked `::error` annotations, and a notice counting the rest."""
    ranked = findings(report)
    lines = [_command(report, finding) for finding in ranked[:MAX_ERRORS]]
    hidden = len(ranked) - MAX_ERRORS
    if hidden > 0:
        lines.append(
            f"::notice title=zeroclaw eval::{hidden} more failure(s) not annotated (GitHub shows at most"
            f" {MAX_ERRORS} error annotations per step); the step summary and the log list them all\n"
        )
    if not report.cases:
        lines.append(f"::error title=zeroclaw eval::no fixtures found in {escape_data(report.suite)}\n")
    return "".join(lines)


_MARKDOWN = re.compile(r"([\\`*_\[\]()!#+\-.|~{}])")


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line, every Markdown punctuation character
    backslash-escaped and HTML made literal, so untrusted text cannot become a link, an
    image (a tracking pixel) or markup."""
    flat = _MARKDOWN.sub(r"\\\1", " ".join(text.split()))
    for raw, safe in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
        flat = flat.replace(raw, safe)
    return flat


def _code(text: str) -> str:
    """Text as an inline code span in a table cell (literal, links and all), delimited by
    more backticks than any run inside it; GFM still needs `|` escaped there."""
    flat = " ".join(text.split()).replace("|", "\\|")
    ticks = "`" * (_longest_backtick_run(flat) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def _fenced(text: str) -> str:
    """A fenced code block that no backtick run inside `text` can close."""
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return f"{fence}text\n{text}\n{fence}\n"


def _summary_rows(report: SuiteReport) -> Iterator[str]:
    for finding in findings(report):
        field = finding.field
        # The same path the annotations use (relative to the repository), so a reader can
        # match a row to its annotation.
        path = annotation_path(report, finding.case) or finding.case.path
        where = f"{path}:{field.line}" if field.line else path
        cells = (_code(finding.case.name), _code(finding.check), _code(where), _cell(finding.message))
        yield "| " + " | ".join(cells) + " |\n"


def step_summary(report: SuiteReport, limit: int = SUMMARY_LIMIT) -> str:
    """The Markdown summary for `$GITHUB_STEP_SUMMARY`, at most `limit` UTF-8 bytes."""
    counts = report.counts()
    verdict = "passed" if report.exit_code() == 0 else "FAILED"
    head = [
        f"## zeroclaw eval {verdict}: {_cell(report.suite)} ({report.mode})\n\n",
        "| cases | passed | failed | errors | rejected |\n|---:|---:|---:|---:|---:|\n",
        "| " + " | ".join(str(counts[k]) for k in ("total", PASSED, "failed", ERROR, REJECTED)) + " |\n\n",
    ]
    totals = report.category_totals()
    if totals:
        head.append(
            "Checks: " + ", ".join(f"{c} {t['passed']}/{t['total']}" for c, t in totals.items()) + "\n\n"
        )
    body: list[str] = []
    rows = list(_summary_rows(report))
    if rows:
        body.append("| case | check | field | detail |\n|---|---|---|---|\n")
        body.extend(rows)
        body.append("\n")
    for case in report.cases:
        if case.passed or case.record is None or not case.record.turns:
            continue
        body.append(
            f"<details><summary>{_cell(case.name)}: final response</summary>\n\n"
            f"{_fenced(case.record.final_response)}\n</details>\n\n"
        )
    return _within(head, body, limit)


def _within(head: list[str], body: list[str], limit: int) -> str:
    """Join `head` and as much of `body` as fits in `limit` bytes, saying what was cut."""
    used = sum(len(part.encode("utf-8")) for part in head)
    if used + sum(len(part.encode("utf-8")) for part in body) <= limit:
        return "".join(head + body)
    note_room = 200
    kept: list[str] = []
    for index, part in enumerate(body):
        size = len(part.encode("utf-8"))
        if used + size + note_room > limit:
            left = len(body) - index
            kept.append(f"\n\n_Summary cut to stay under GitHub's 1 MiB limit: {left} part(s) left out._\n")
            break
        kept.append(part)
        used += size
    return "".join(head + kept)
