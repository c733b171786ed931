"""The `html` format: one self-contained page (inline CSS and JS, no network).

The page around the cases is a jinja2 template, a package data file
(`reporters/html/templates/`) read through `importlib.resources`, with autoescaping on for
everything; each case is written by `case`, which escapes the same way. The page's
Content-Security-Policy allows only its own script (by hash), so model text can neither
inject markup nor run code. A file output is written a case at a time (a run of at most
`RUN_CASES` folded cases at a time, `_cases`), never held whole.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator
from functools import lru_cache
from importlib.resources import files
from typing import Any

from zeroclaw_eval.errors import ExitCode
from zeroclaw_eval.report.baseline import LABELS, changed_cases, describe_changes
from zeroclaw_eval.report.compact import compact_case, written_compact
from zeroclaw_eval.report.cost import dollars
from zeroclaw_eval.report.model import SuiteReport
from zeroclaw_eval.report.words import RUN_ERROR_MEANING, diagnostic_words, suite_rate_words
from zeroclaw_eval.reporters.html.case import case_html, starts_open
from zeroclaw_eval.reporters.html.trend import trend
from zeroclaw_eval.reporters.registry import Reporter
from zeroclaw_eval.reporters.safety import MarkupNeutralizer


@lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FunctionLoader(_template_source),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _template_source(name: str) -> str:
    return (files("zeroclaw_eval.reporters.html") / "templates" / name).read_text(encoding="utf-8")


def _baseline_view(report: SuiteReport) -> dict[str, Any] | None:
    """The "changes since baseline" section: the baseline, the counts, each case that
    changed (linked to its place in the page unless it was removed)."""
    baseline = report.baseline
    if baseline is None:
        return None
    return {
        "baseline": baseline,
        "summary": describe_changes((case.change for case in report.cases), baseline.removed),
        "rows": changed_cases(report.cases, baseline.removed),
    }


def _script() -> str:
    # Read as is, not rendered: the script is static and must match its CSP hash.
    return _template_source("report.js")


_SCRIPT_SLOT = "/*zeroclaw-eval: the page script*/"
_CASES_SLOT = "<!--zeroclaw-eval: the cases-->"


def pieces(report: SuiteReport) -> Iterator[str]:
    """The whole output, in pieces: the page's head, each case, the end. A lone
    surrogate is left for the writer to escape (`encoded`), which saves a pass over a
    page of tens of megabytes."""
    script = _script()
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    shell = (
        _environment()
        .get_template("report.html.j2")
        .render(
            report=report,
            counts=report.counts(),
            run_error_meaning=RUN_ERROR_MEANING,
            diagnostic=diagnostic_words(report.diagnostic_checks()),
            repeat_rate=_repeat_rate(report),
            cost=dollars(cost) if (cost := report.cost_usd()) is not None else None,
            judge_cost=dollars(judging) if (judging := report.judge_cost_usd()) is not None else None,
            totals=report.category_totals(),
            verdict="passed" if report.exit_code() == ExitCode.OK else "failed",
            cases=_CASES_SLOT,
            baseline=_baseline_view(report),
            trend=trend(report),
            labels=LABELS,
            script=_SCRIPT_SLOT,
            script_hash=f"sha256-{digest}",
        )
    )
    # Model text (a suite name, a baseline's paths) comes only before the cases, so the
    # last slot of each kind is the template's own, whatever that text repeats.
    head, slot, rest = shell.rpartition(_CASES_SLOT)
    middle, script_slot, tail = rest.rpartition(_SCRIPT_SLOT)
    assert slot, "the template has no cases slot"
    assert script_slot, "the template has no script slot"
    # Workflow commands are defused in the document, whose text may be a model's; the
    # script goes in untouched, so that it still matches its CSP hash.
    neutral = MarkupNeutralizer()
    yield neutral.feed(head)
    for markup in _cases(report):
        yield neutral.feed(markup)
    yield neutral.feed(middle) + neutral.flush()
    yield script
    yield neutral.feed(tail) + neutral.flush()


#: The most cases, and about the most characters, one folded run holds: what the page
#: script parses in one task when it unfolds the run (a few milliseconds).
RUN_CASES, RUN_CHARS = 100, 100_000
#: What would end an HTML comment early (`-->`, `--!>`). Escaped text holds no `>`, and no
#: tag of the cases ends in `--`; a case that did anyway is written unfolded.
_COMMENT_END = re.compile(r"--!?>")


def _cases(report: SuiteReport) -> Iterator[str]:
    """Each case's markup, the cases that start closed folded in runs.

    A run of consecutive closed cases (passing, xfailed) is written as an HTML comment in
    a `div.cases`, which the page script unfolds (parses) when the run nears the screen,
    when a link or "expand all" needs it, and, a run a task, after the page has loaded.
    The browser's parser skips a comment at a fraction of the cost of the same markup:
    10,000 cases as elements, even with their bodies in templates, took 2 to 3 s to load
    in Chromium on a 2-core machine, about 1 s of it parsing the cases' summaries alone;
    folded, well under a second. Each run carries the numbers of its first and last case
    (which case a link `#case-N` needs) and how many it holds (its height until unfolded).
    """
    run: list[str] = []
    first = chars = 0

    def folded() -> str:
        last = first + len(run) - 1
        return (
            f'  <div class="cases folded" data-first="{first}" data-last="{last}"'
            f' style="--cases: {len(run)}"><!--\n' + "".join(run) + "  --></div>\n"
        )

    for index, case in enumerate(report.cases):
        # A passing case as the JSON report beside the page writes it (`--details`), even
        # in a run that kept it whole for another output (`-v`).
        shown = compact_case(case) if written_compact(case, report.details) else case
        markup = case_html(index, shown)
        if not starts_open(shown) and not ("--" in markup and _COMMENT_END.search(markup)):
            if not run:
                first = index
            run.append(markup)
            chars += len(markup)
            if len(run) < RUN_CASES and chars < RUN_CHARS:
                continue
            markup = ""
        if run:
            yield folded()
            run, chars = [], 0
        if markup:
            yield markup
    if run:
        yield folded()


# A passing case shows what `--details` keeps of it: by default (`failing`) its checks
# unworded and no run, the page `render` makes from the run's JSON report; with `all`
# every word and the whole run. Every passing case's timeline made a page
# of about 4.6 KB a case (46 MB at 10,000 cases) and kept every record in memory.


def _repeat_rate(report: SuiteReport) -> str | None:
    """The suite's pass rate over repeated runs, in words (None without a repeated case)."""
    rate = report.repeat_rate()
    if rate is None:
        return None
    words = suite_rate_words(rate.mean, rate.low, rate.high, rate.clusters, rate.cases)
    return words[:1].upper() + words[1:]


REPORTER = Reporter.streaming("html", pieces, passing_details=False)
