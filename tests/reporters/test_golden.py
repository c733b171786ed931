"""The table, JUnit, GitHub annotation and step-summary outputs of one fixed suite, held
as golden files: any change to what a reporter writes shows up as a diff here.

Refresh the golden files after an intended change (then read the diff before committing):

    .venv/bin/python -m pytest tests/reporters/test_golden.py --update-golden
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.reporters.html.folding import unfolded
from zeroclaw_eval.report.codec import report_from_dict
from zeroclaw_eval.report.model import DETAILS_FAILING, RepeatStats, SuiteReport
from zeroclaw_eval.report.words import RUN_ERROR_MEANING
from zeroclaw_eval.reporters.github import step_summary
from zeroclaw_eval.reporters.pull_request import DETAIL_LIMIT, Links, pull_request_comment
from zeroclaw_eval.reporters.registry import get_reporter
from zeroclaw_eval.reporters.safety import shorten
from zeroclaw_eval.runner import run_suite

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture(scope="module")
def report() -> SuiteReport:
    """The golden suite run from the golden folder, with the times and version fixed."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(GOLDEN)
        patch.setenv("GITHUB_WORKSPACE", str(GOLDEN))
        run = run_suite(Path("suite"))
    run.duration_ms = 42.0
    run.tool_version = "0.0.0-golden"
    for number, case in enumerate(run.cases, 1):
        case.duration_ms = float(number)
        if case.record is not None:
            case.record.duration_ms = float(number)
    assert [case.status for case in run.cases] == ["passed", "failed", "error", "rejected"]
    return run


def _annotations(report: SuiteReport) -> str:
    return get_reporter("github")(report)


OUTPUTS: dict[str, Callable[[SuiteReport], str]] = {
    "table.txt": get_reporter("table"),
    "junit.xml": get_reporter("junit"),
    "github.txt": _annotations,
    "summary.md": step_summary,
}


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_output_matches_its_golden_file(
    name: str, report: SuiteReport, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", str(GOLDEN))  # annotation paths are relative to it
    text = OUTPUTS[name](report)
    golden = GOLDEN / name
    if request.config.getoption("--update-golden"):
        with golden.open("w", encoding="utf-8", newline="") as stream:
            stream.write(text)
    with golden.open(encoding="utf-8", newline="") as stream:
        expected = stream.read()
    assert expected == text, (
        f"{name} differs from its golden file; if the change is intended, refresh it with"
        " `python -m pytest tests/reporters/test_golden.py --update-golden` and read the diff"
    )


def _baseline_of(head: SuiteReport) -> SuiteReport:
    """A base run of the golden suite that every kind of change separates from it: the
    failing case passed (a new failure now), the passing one failed (fixed now), the
    run error errored then too (still failing), the rejected fixture was not there (new),
    a case since removed was, and the passing case made other calls at another cost."""
    base = copy.deepcopy(head)
    passing, failing, errored, _rejected = base.cases
    failing.grades = [dataclasses.replace(grade, passed=True) for grade in failing.grades]
    passing.grades = [dataclasses.replace(passing.grades[0], passed=False), *passing.grades[1:]]
    assert passing.record is not None
    passing.record.steps[0].input_tokens += 120
    passing.record.calls = passing.record.calls[:-1]
    removed = dataclasses.replace(copy.deepcopy(errored), name="e_removed.json", path="suite/e_removed.json")
    base.cases = [passing, failing, errored, removed]
    base.duration_ms = 40.0
    return base


def test_the_pull_request_comment_matches_its_golden_file(
    report: SuiteReport, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", str(GOLDEN))
    links = Links(
        blob="https://github.com/zeroclaw_user/agent/blob/0123abc", artifact="https://example.com/run/7"
    )
    text = pull_request_comment(_baseline_of(report), report, links=links)
    golden = GOLDEN / "pull_request.md"
    if request.config.getoption("--update-golden"):
        golden.write_text(text, encoding="utf-8", newline="")
    assert golden.read_text(encoding="utf-8") == text, (
        "pull_request.md differs from its golden file; refresh it with"
        " `python -m pytest tests/reporters/test_golden.py --update-golden` and read the diff"
    )
    # What a reviewer must see first comes first.
    assert text.index("### New failures") < text.index("### Fixed") < text.index("Still failing")


def test_the_comment_shows_flaky_cases(report: SuiteReport) -> None:
    head = copy.deepcopy(report)
    head.cases[0].repeats = RepeatStats(5, 3, {}, None, {})
    text = pull_request_comment(report, head)
    assert "### Flaky (passed some of their runs) (1)" in text
    assert "- `suite/a_passing_echo.json`: passed 3 of 5 runs" in text


def test_the_comment_stays_under_githubs_limit_cutting_lists_never_the_counts(report: SuiteReport) -> None:
    head = copy.deepcopy(report)
    head.cases = [dataclasses.replace(head.cases[1], path=f"suite/case_{n:05}.json") for n in range(3000)]
    base = copy.deepcopy(head)
    for case in base.cases:
        case.grades = [dataclasses.replace(grade, passed=True) for grade in case.grades]
    text = pull_request_comment(base, head)
    assert len(text) <= 65_536
    assert "3000 new failures" in text
    assert "| cases | 3,000 | 3,000 | = |" in text  # the head is never cut
    assert "left out" in text  # the lists are, and it says so


def test_the_comment_matches_a_renamed_case_by_its_id_as_the_changes_do(report: SuiteReport) -> None:
    head = copy.deepcopy(report)
    head.cases[0].id = "TICKET-7"
    base = copy.deepcopy(head)
    renamed = base.cases[0]
    renamed.path = "suite/renamed_echo.json"
    assert renamed.record is not None
    renamed.record.calls = []
    text = pull_request_comment(base, head)
    assert "### Removed cases" not in text  # the renamed case is the same case
    assert "| `suite/a_passing_echo.json` | `(none)` | `echo` |" in text


def test_the_comment_reads_compact_reports_as_it_reads_whole_ones(report: SuiteReport) -> None:
    # By default a saved report keeps passing cases compact: their tools and tokens are all
    # the comment reads of them, so it is the same comment, tool-call and token changes too.
    def saved(run: SuiteReport) -> SuiteReport:
        return report_from_dict(
            json.loads(get_reporter("json")(dataclasses.replace(run, details=DETAILS_FAILING)))
        )

    base = _baseline_of(report)
    compact_base, compact_head = saved(base), saved(report)
    assert any(case.summary is not None for case in compact_base.cases + compact_head.cases)
    text = pull_request_comment(compact_base, compact_head)
    assert text == pull_request_comment(base, report)
    assert "### Tool calls changed" in text
    assert "### Token changes" in text


class _Words(HTMLParser):
    """The words an HTML page shows, one block element a line: its script, style and
    fixture source left out (the source is the fixture itself, golden already)."""

    BLOCKS = frozenset({"div", "li", "h1", "h2", "h3", "pre", "summary", "tr", "p", "details", "ul", "ol"})

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = [""]
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # Inside a hidden element every tag nests one deeper (the page has no void tag there).
        if self._hidden or tag in ("script", "style") or ("class", "source") in attrs:
            self._hidden += 1
        elif tag in self.BLOCKS:
            self.lines.append("")

    def handle_endtag(self, tag: str) -> None:
        if self._hidden:
            self._hidden -= 1
        elif tag in self.BLOCKS:
            self.lines.append("")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # <meta>, <br>: nothing to show, nothing to close

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.lines[-1] += data

    def text(self) -> str:
        shown = (" ".join(line.split()) for line in self.lines)
        return "\n".join(line for line in shown if line) + "\n"


def page_words(page: str) -> str:
    """The words of `page` once its script has unfolded the folded runs of cases."""
    words = _Words()
    words.feed(unfolded(page))
    return words.text()


def test_the_html_pages_words_match_their_golden_file(
    report: SuiteReport, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_WORKSPACE", str(GOLDEN))
    text = page_words(get_reporter("html")(report))
    golden = GOLDEN / "html.txt"
    if request.config.getoption("--update-golden"):
        golden.write_text(text, encoding="utf-8", newline="")
    assert golden.read_text(encoding="utf-8") == text, (
        "html.txt differs from its golden file; refresh it with"
        " `python -m pytest tests/reporters/test_golden.py --update-golden` and read the diff"
    )


def test_the_comment_and_the_page_word_each_failure_as_the_console_does(report: SuiteReport) -> None:
    # One vocabulary: each failing check's words in the console are the comment's and the
    # page's (an empty answer, a tool never called and the calls made, a trajectory's calls
    # with their outcomes), and a run error is explained where run errors are counted.
    console = get_reporter("table")(report)
    comment = pull_request_comment(_baseline_of(report), report)
    page = page_words(get_reporter("html")(report))
    details = [grade.detail for case in report.cases for grade in case.failed_grades]
    assert any("the final response is empty" in d for d in details)
    assert any("list_dir was never called; calls made: file_write, file_read" in d for d in details)
    assert any('[1] file_read({"path":"out/missing.txt"}) error' in d for d in details)
    for detail in details:
        assert detail in console
        assert shorten(detail, DETAIL_LIMIT) in comment  # a comment bounds each line's length
        assert " ".join(detail.split()) in page
    for output in (console, comment, page, step_summary(report)):
        assert " ".join(RUN_ERROR_MEANING.split()) in " ".join(output.split())
    # The failed call the fixture asks for is shown as expected, not as a cause.
    assert "failed, as the fixture expects" in console
    assert "as the fixture expects" in page
