"""The pull-request comment: what a change did to the suite, against the branch it merges
into (`zeroclaw eval compare BASE.json HEAD.json`).

One Markdown comment, in the order a reviewer reads it: the verdict and the counts
(base, head and the difference, tokens and time included), then the new failures first
(each failing check, what it expected and what it found, linked to the fixture line its
annotation points at), the cases fixed, new and removed, those still failing, the flaky
ones (`--repeat`), the cases whose tool calls changed, and the largest token and time
changes. Everything a fixture, a model or an agent wrote is an inline code span or an
HTML-escaped text (`markdown`), so no link, image or mention can be smuggled in. The
comment opens with a hidden marker, by which the Action finds it again and updates it
instead of posting another; it stays under GitHub's limit for a comment body (65,536
characters), cutting the case lists, never the head.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote

from zeroclaw_eval.report.baseline import (
    FIXED,
    NEW,
    STILL_FAILING,
    RemovedCase,
    compare,
    matched,
)
from zeroclaw_eval.report.cost import dollars
from zeroclaw_eval.report.model import (
    ERROR,
    FAILED,
    FLAKY,
    PASSED,
    REJECTED,
    XFAILED,
    XPASSED,
    CaseReport,
    SuiteReport,
)
from zeroclaw_eval.report.pairing import paired_against
from zeroclaw_eval.report.statistics import DEFAULT_ALPHA, fisher_worse
from zeroclaw_eval.report.words import RUN_ERROR_MEANING, diagnostic_words, interval_words, paired_words
from zeroclaw_eval.reporters.github import annotation_path
from zeroclaw_eval.reporters.markdown import code, html_text, within
from zeroclaw_eval.reporters.registry import Reporter
from zeroclaw_eval.reporters.safety import shorten

#: GitHub refuses a comment body over 65,536 characters; `within` counts UTF-8 bytes,
#: which are never fewer.
COMMENT_LIMIT = 65_536
#: The key of the hidden marker when none is given: one comment per key and pull request.
DEFAULT_KEY = "zeroclaw-eval"
#: Characters of a failed check's words (what it expected and found) a comment quotes.
DETAIL_LIMIT = 300
#: Cases listed in the token and time table (the largest changes).
TOP_CHANGES = 10
#: Characters of a `--note` shown: the head of the comment is never cut.
NOTE_LIMIT = 1000
#: Characters a marker's key may have (`zeroclaw eval compare --key`).
KEY_LIMIT = 100


def marker(key: str) -> str:
    """The hidden line a comment is found again by (an HTML comment GitHub does not show)."""
    return f"<!-- zeroclaw-eval comment: {html_text(key)} -->"


@dataclass(frozen=True)
class Links:
    """Where the comment links: fixture lines (`blob`: a repository's
    `https://github.com/OWNER/REPO/blob/SHA`) and the HTML report's artifact."""

    blob: str | None = None
    artifact: str | None = None


def pull_request_comment(
    base: SuiteReport | None,
    head: SuiteReport,
    *,
    key: str = DEFAULT_KEY,
    note: str | None = None,
    links: Links = Links(),
    limit: int = COMMENT_LIMIT,
) -> str:
    """The comment comparing `head` with `base` (None: no baseline; `note` says why, or
    anything else the reader should know first, such as a stale baseline)."""
    # The base's case of each head case (by index), matched as the changes are: by path,
    # else by a fixture id.
    before = (
        {i: base.cases[j] for i, j in matched(head.cases, base.cases).items()} if base is not None else {}
    )
    changes: list[str | None] = [None] * len(head.cases)
    removed: list[RemovedCase] = []
    if base is not None:
        compared, removed = compare(head.cases, base.cases)
        changes = list(compared)
    changed = list(zip(head.cases, changes, strict=True))
    new_failures = [c for c, change in changed if c.new_failure(change)]
    head_lines = [marker(key), "\n", _title(head, base, new_failures), "\n\n"]
    if note:
        head_lines.append(f"> {code(shorten(note, NOTE_LIMIT), cell=False)}\n\n")
    if base is None and not note:
        head_lines.append("> No baseline report: this run is shown alone.\n\n")
    if base is not None and _incomplete(head):
        head_lines.append(
            "> The run stopped before it ran every case: the cases it did not run are listed as"
            " removed, and nothing here certifies them.\n\n"
        )
    if base is not None and base.suite != head.suite:
        other = code(shorten(base.suite, 200), cell=False)
        head_lines.append(f"> The baseline is a run of another suite, {other}.\n\n")
    head_lines.extend(_counts(base, head))
    if links.artifact:  # in the head, which is never cut: most needed when the rest is
        head_lines.append(
            f"The HTML report with every case: [zeroclaw-eval report]({_url(links.artifact)})\n\n"
        )
    body: list[str] = []
    body.extend(_failures_section("New failures", new_failures, head, links))
    fixed = [c for c, change in changed if change == FIXED]
    # A case that passes now only because a failing judge check no longer decides (its
    # calibration removed, say) is no fix of the agent: said beside its name.
    loosened = " (a judge check that fails is now diagnostic)"
    body.extend(
        _names_section(
            "Fixed", [c.path for c in fixed], notes=[loosened if c.diagnostic_failures else "" for c in fixed]
        )
    )
    added = [c for c, change in changed if change == NEW and base is not None and c.passed]
    body.extend(_list_section("New cases", added))
    body.extend(
        _names_section("Removed cases", [case.path for case in removed], [case.status for case in removed])
    )
    still = [
        c
        for c, change in changed
        if c.outcome != XFAILED and (change == STILL_FAILING or (base is None and not c.passed))
    ]
    body.extend(_failures_section("Still failing", still, head, links, folded=base is not None))
    expected = [c for c in head.cases if c.outcome == XFAILED]
    body.extend(_list_section("Expected to fail (xfail)", expected))
    body.extend(_flaky_section(head))
    body.extend(_moved_section(head, before))
    body.extend(_diagnostic_section(head, links))
    body.extend(_tool_call_section(head, before))
    body.extend(_cost_section(head, before))
    return within(head_lines, body, limit, cut="Cut to stay under GitHub's limit for a comment")


def _title(head: SuiteReport, base: SuiteReport | None, new_failures: list[CaseReport]) -> str:
    counts = head.counts()
    if not counts["total"]:
        return f"## ❌ zeroclaw eval: no cases ran in {code(shorten(head.suite, 200))}"
    blocking = sum(case.blocks_gate for case in head.cases)
    if base is None:
        verdict = "all cases passed" if not blocking else f"{blocking} not passing"
        if counts[XFAILED]:
            verdict += f" ({counts[XFAILED]} expected to fail)"
    elif new_failures:
        verdict = f"{len(new_failures)} new failure{'s' * (len(new_failures) != 1)}"
    else:
        verdict = "no new failures"
    incomplete = _incomplete(head)
    if incomplete:  # whatever ran, the gate certified nothing: the run's own exit says so
        verdict = f"{incomplete}; {verdict} among the cases that ran"
    mark = "✅" if not blocking and not incomplete else "❌"
    return f"## {mark} zeroclaw eval: {verdict} in {code(shorten(head.suite, 200))}"


def _incomplete(head: SuiteReport) -> str:
    """How the run stopped short, in words ("" when it ran every case): interrupted by a
    signal, or with cases it never ran (`-x`, `--maxfail`)."""
    said = []
    if head.interrupted is not None:
        said.append(f"interrupted by {head.interrupted}")
    if head.not_run:
        said.append(f"{head.not_run} case{'s' * (head.not_run != 1)} not run")
    return ", ".join(said)


def _tokens(report: SuiteReport) -> tuple[int, int]:
    used = [tokens for case in report.cases if (tokens := case.tokens) is not None]
    return sum(i for i, _ in used), sum(o for _, o in used)


def _counts(base: SuiteReport | None, head: SuiteReport) -> list[str]:
    now = head.counts()
    then = base.counts() if base is not None else None
    rows = [(label, key) for label, key in (("cases", "total"), ("passed", PASSED), ("failed", FAILED))]
    rows += [("run errors", ERROR), ("rejected", REJECTED)]
    if any(case.xfail is not None for report in (base, head) if report for case in report.cases):
        rows += [("expected to fail (xfail)", XFAILED), ("passed though xfail", XPASSED)]
    lines = ["| | base | head | change |\n|---|---:|---:|---:|\n"]
    for label, key in rows:
        lines.append(_row(label, then[key] if then is not None else None, now[key]))
    head_in, head_out = _tokens(head)
    base_in, base_out = _tokens(base) if base is not None else (None, None)
    lines.append(_row("input tokens", base_in, head_in))
    lines.append(_row("output tokens", base_out, head_out))
    head_cost, base_cost = head.cost_usd(), base.cost_usd() if base is not None else None
    if head_cost is not None or base_cost is not None:  # live runs with a priced provider
        lines.append(_cost_row("cost (USD)", base_cost, head_cost))
    head_judging, base_judging = head.judge_cost_usd(), base.judge_cost_usd() if base is not None else None
    if head_judging is not None or base_judging is not None:
        lines.append(_cost_row("judges' cost (USD)", base_judging, head_judging))
    seconds = _seconds(base.duration_ms) if base is not None else None
    lines.append(_row("duration (s)", seconds, _seconds(head.duration_ms)))
    lines.append("\n")
    if base is not None:
        # Whether the change is more than chance, by the one test the gate uses
        # (`--fail-on significant-regression`), at its default level.
        paired = paired_against(head.cases, base.cases)
        words = paired_words(paired.worse, paired.better, paired.p_value, DEFAULT_ALPHA)
        lines.append(f"{words[:1].upper()}{words[1:]}.\n\n")
    if now[ERROR]:
        lines.append(f"{RUN_ERROR_MEANING}\n\n")
    said = diagnostic_words(head.diagnostic_checks())
    if said is not None:
        lines.append(f"{said[:1].upper()}{said[1:]}.\n\n")
    return lines


def _seconds(ms: float) -> float:
    return round(ms / 1000, 1)


def _row(label: str, then: float | None, now: float) -> str:
    if then is None:
        return f"| {label} | | {_number(now)} | |\n"
    return f"| {label} | {_number(then)} | {_number(now)} | {_delta(then, now)} |\n"


def _number(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,.1f}"


def _delta(then: float, now: float) -> str:
    difference = now - then
    if not difference:
        return "="
    sign = "+" if difference > 0 else "-"
    shown = _number(abs(difference)) if isinstance(difference, int) else f"{abs(difference):,.1f}"
    percent = f" ({difference / then:+.0%})" if then else ""
    return f"{sign}{shown}{percent}"


def _cost_row(label: str, then: float | None, now: float | None) -> str:
    """A cost row, as `_row` writes a count's: each side in dollars (blank where not
    priced), and the change where both are."""
    base, head = (dollars(value) if value is not None else "" for value in (then, now))
    if then is None or now is None:
        return f"| {label} | {base} | {head} | |\n".replace("|  |", "| |")
    if then == now:
        return f"| {label} | {base} | {head} | = |\n"
    sign = "+" if now > then else "-"
    percent = f" ({(now - then) / then:+.0%})" if then else ""
    return f"| {label} | {base} | {head} | {sign}{dollars(abs(now - then))}{percent} |\n"


def _where(case: CaseReport, head: SuiteReport, line: int | None, links: Links) -> str:
    """The fixture (and line) a failure points at: a link to it when the blob URL is known."""
    path = annotation_path(head, case) or case.path
    shown = code(f"{path}:{line}" if line else path, cell=False)
    if links.blob is None or annotation_path(head, case) is None:
        return shown
    anchor = f"#L{line}" if line else ""
    return f"[{shown}]({_url(links.blob)}/{quote(path)}{anchor})"


def _url(url: str) -> str:
    """A URL the operator gave, as a Markdown link target: nothing in it may close the
    link or start another (whitespace, brackets, angle brackets are percent-encoded)."""
    return quote(url, safe=":/?#&=%+,;@!$*'~.-_")


def _failure_lines(case: CaseReport, head: SuiteReport, links: Links) -> Iterator[str]:
    """Each field the case fails at: a rejection's problems and a run error by their
    message, each failed check by what it expected and what it found, as the console
    says it."""
    failures = case.failures()
    for failure in failures[: len(failures) - len(case.failed_grades)]:
        where = _where(case, head, failure.field.line, links)
        message = code(shorten(failure.message, 300), cell=False)
        yield f"  - {code(failure.check, cell=False)} at {where}: {message}\n"
    for grade in case.failed_grades:
        # In the console's words (the grade's detail): "the final response is empty",
        # "refund was never called; calls made: lookup_order", where the bare expected and
        # actual values said `  ` and `null`.
        where = _where(case, head, grade.field.line, links)
        detail = code(shorten(grade.detail, DETAIL_LIMIT), cell=False)
        yield f"  - {code(grade.check_id, cell=False)} at {where}: {detail}\n"


def _failures_section(
    title: str, cases: list[CaseReport], head: SuiteReport, links: Links, *, folded: bool = False
) -> list[str]:
    if not cases:
        return []
    lines = [
        f"<details><summary>{title} ({len(cases)})</summary>\n\n"
        if folded
        else f"### {title} ({len(cases)})\n\n"
    ]
    for case in cases:
        lines.append(f"- {code(case.path, cell=False)} ({case.outcome})\n")
        if case.outcome == XPASSED and case.xfail is not None:
            where = _where(case, head, case.xfail.field.line, links)
            lines.append(f"  - it passed, but its strict `xfail` mark at {where} expects it to fail\n")
        lines.extend(_failure_lines(case, head, links))
    lines.append("\n</details>\n\n" if folded else "\n")
    # Folded, the section is one part: cut whole or kept whole, never left open.
    return ["".join(lines)] if folded else lines


def _diagnostic_section(head: SuiteReport, links: Links) -> list[str]:
    """The diagnostic checks that failed, folded: shown, deciding nothing."""
    cases = [case for case in head.cases if case.diagnostic_failures]
    if not cases:
        return []
    lines = [
        f"<details><summary>Diagnostic checks that failed, deciding nothing ({len(cases)})</summary>\n\n"
    ]
    for case in cases:
        lines.append(f"- {code(case.path, cell=False)} ({case.outcome})\n")
        for grade in case.diagnostic_failures:
            where = _where(case, head, grade.field.line, links)
            detail = code(shorten(grade.detail, DETAIL_LIMIT), cell=False)
            lines.append(f"  - {code(grade.check_id, cell=False)} at {where}: {detail}\n")
    lines.append("\n</details>\n\n")
    return ["".join(lines)]  # one part: cut whole or kept whole


def _list_section(title: str, cases: list[CaseReport]) -> list[str]:
    return _names_section(title, [case.path for case in cases])


def _names_section(
    title: str, names: list[str], was: list[str] | None = None, notes: list[str] | None = None
) -> list[str]:
    if not names:
        return []
    if notes is None:
        notes = [f" (was {status})" for status in was] if was is not None else [""] * len(names)
    items = (f"- {code(name, cell=False)}{note}\n" for name, note in zip(names, notes, strict=True))
    return [f"### {title} ({len(names)})\n\n", *items, "\n"]


def _flaky_section(head: SuiteReport) -> list[str]:
    flaky = [case for case in head.cases if case.repeats is not None and case.repeats.stability == FLAKY]
    if not flaky:
        return []
    lines = [f"### Flaky (passed some of their runs) ({len(flaky)})\n\n"]
    for case in flaky:
        assert case.repeats is not None
        runs = case.repeats
        lines.append(
            f"- {code(case.path, cell=False)}: passed {runs.passed} of {runs.runs} runs"
            f" ({interval_words(*runs.interval)})\n"
        )
    lines.append("\n")
    return lines


def _moved_section(head: SuiteReport, before: dict[int, CaseReport]) -> list[str]:
    """Each case repeated on both sides whose pass rate moved, with its own test (Fisher's
    exact, one-sided, at the gate's default level): a fall of 9/10 to 3/10 is no noise,
    one of 9/10 to 8/10 may well be."""
    lines = []
    for index, case in enumerate(head.cases):
        base = before.get(index)
        now, then = case.repeats, base.repeats if base is not None else None
        if now is None or then is None or now.pass_rate == then.pass_rate:
            continue
        moved = f"{then.passed}/{then.runs} to {now.passed}/{now.runs} runs passing"
        if now.pass_rate < then.pass_rate:
            p = fisher_worse(then.passed, then.runs, now.passed, now.runs)
            verdict = (
                f"significant (one-sided p = {p:.2g})" if p < DEFAULT_ALPHA else f"within noise (p = {p:.2g})"
            )
        else:
            verdict = "better"
        lines.append(f"- {code(case.path, cell=False)}: {moved}, {verdict}\n")
    if not lines:
        return []
    return [f"### Pass rates that moved ({len(lines)})\n\n", *lines, "\n"]


def _calls(case: CaseReport | None) -> list[str] | None:
    return None if case is None else case.tool_call_names


def _tool_call_section(head: SuiteReport, before: dict[int, CaseReport]) -> list[str]:
    rows = []
    for index, case in enumerate(head.cases):
        then, now = _calls(before.get(index)), _calls(case)
        if then is not None and now is not None and then != now:
            shown = [code(", ".join(calls) or "(none)") for calls in (then, now)]
            rows.append(f"| {code(case.path)} | {shown[0]} | {shown[1]} |\n")
    if not rows:
        return []
    return [
        f"### Tool calls changed ({len(rows)})\n\n",
        "| case | base | head |\n|---|---|---|\n",
        *rows,
        "\n",
    ]


def _cost_section(head: SuiteReport, before: dict[int, CaseReport]) -> list[str]:
    found = []
    for index, case in enumerate(head.cases):
        then = before.get(index)
        if then is None:
            continue
        used_then, used_now = then.tokens, case.tokens
        if used_then is None or used_now is None:
            continue
        tokens_then, tokens_now = sum(used_then), sum(used_now)
        if tokens_then != tokens_now:
            found.append((abs(tokens_now - tokens_then), case.path, tokens_then, tokens_now, then, case))
    if not found:
        return []
    found.sort(key=lambda row: (-row[0], row[1]))
    lines = [
        f"### Token changes (the {min(len(found), TOP_CHANGES)} largest of {len(found)})\n\n",
        "| case | tokens base | tokens head | change | duration base → head (ms) |\n",
        "|---|---:|---:|---:|---:|\n",
    ]
    for _, path, then_tokens, now_tokens, then, case in found[:TOP_CHANGES]:
        durations = f"{then.duration_ms:,.0f} → {case.duration_ms:,.0f}"
        change = _delta(then_tokens, now_tokens)
        lines.append(f"| {code(path)} | {then_tokens:,} | {now_tokens:,} | {change} | {durations} |\n")
    lines.append("\n")
    return lines


@dataclass(frozen=True)
class Comparison:
    """What a pull-request comment reports: the head's run against the base's (None: no
    baseline), the marker it is found again by, a note for the reader, its links."""

    base: SuiteReport | None
    head: SuiteReport
    key: str = DEFAULT_KEY
    note: str | None = None
    links: Links = Links()


def _comment(comparison: Comparison) -> str:
    return pull_request_comment(
        comparison.base, comparison.head, key=comparison.key, note=comparison.note, links=comparison.links
    )


#: The pull-request comment, a report of a `Comparison` (Markdown, under GitHub's limit).
COMMENT: Reporter[Comparison] = Reporter.whole("markdown", _comment)
