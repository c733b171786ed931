"""The HTML page in a real browser: Debian's Chromium, driven headless by Playwright.

Skips locally when no Chromium (or Playwright) is installed; under CI (`CI` set) a
missing browser fails instead, because CI must run this test (.ci/run installs it).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.reporters.html.folding import UNFOLDING
from tests.support.reports import every_status_report
from zeroclaw_eval.report.model import DETAILS_ALL, SuiteReport
from zeroclaw_eval.reporters import write_output
from zeroclaw_eval.reporters.html.page import REPORTER as render

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def unavailable(reason: str) -> None:
    """Skip locally; fail under CI, which must run the browser test."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the browser test (.ci/run installs Chromium and playwright)")
    pytest.skip(reason)


def chromium_executable() -> str:
    # Debian names it chromium; other systems (GitHub's Ubuntu runners) have Chrome.
    candidates = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
    found = next(filter(None, map(shutil.which, candidates)), None) or "/usr/bin/chromium"
    if not os.access(found, os.X_OK):
        unavailable(f"no Chromium executable found (looked for {', '.join(candidates)} on PATH)")
    return found


def wait_until_open(page: Any, case_id: str) -> None:
    """Wait for the case `case_id` to open. Not by `page.wait_for_function`: Playwright runs
    its text through the page's own `eval`, which the page's policy (no 'unsafe-eval') may
    refuse; such a wait failed with an EvalError, every time when its test ran alone."""
    from playwright.sync_api import expect

    expect(page.locator(f"#{case_id}")).to_have_js_property("open", True)


@pytest.fixture(scope="module")
def browser() -> Any:
    """A headless system Chromium for the whole module."""
    executable = chromium_executable()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def test_page_works_in_chromium_and_runs_no_model_script(browser: Any, tmp_path: Path) -> None:
    report = every_status_report()
    page_file = tmp_path / "report.html"
    write_output(render(report), str(page_file))

    page = browser.new_page(viewport={"width": 1200, "height": 900})
    console: list[tuple[str, str]] = []
    errors: list[str] = []
    dialogs: list[str] = []
    requests: list[str] = []
    page.on("console", lambda message: console.append((message.type, message.text)))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto(page_file.as_uri())
    page.wait_for_load_state("load")

    failing_checks = page.locator(".failing-check")
    expected = sum(len(case.failed_grades) for case in report.cases)
    assert failing_checks.count() == expected == 3
    for index in range(expected):
        assert failing_checks.nth(index).is_visible()
    assert page.locator(".check.problem").is_visible()
    assert page.locator(".check.run-error").is_visible()

    # The passing case starts closed, its body in a template: not in the document.
    passing = page.locator('details.case[data-status="passed"]')
    assert passing.evaluate("element => element.open") is False
    assert passing.locator(".body").count() == 0

    # The hostile text is shown as text.
    assert "</script><script>alert(1)</script>" in (
        page.locator("#case-1 .detail").first.text_content() or ""
    )

    page.click("#expand-all")
    opened = page.eval_on_selector_all("details.case", "items => items.map(item => item.open)")
    assert opened == [True, True, True, True]
    assert passing.locator(".body").is_visible()

    # Following a link to a source line opens the case that holds it (our script ran under the CSP).
    page.click("#collapse-all")
    assert page.eval_on_selector_all("details.case", "items => items.map(item => item.open)") == [False] * 4
    line = report.cases[1].failed_grades[0].field.line
    page.evaluate(f"window.location.hash = 'case-1-L{line}'")
    wait_until_open(page, "case-1")
    assert page.locator(f"#case-1-L{line}").is_visible()

    screenshot = tmp_path / "report.png"
    page.screenshot(path=str(screenshot), full_page=True)
    page.close()

    assert screenshot.stat().st_size > 0
    assert screenshot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert errors == []
    assert dialogs == []
    assert [text for kind, text in console if kind == "error"] == []
    # Chromium words CSP blocks as "Refused to ..." or "... violates the ... Content Security Policy".
    blocked = [text for _, text in console if "Refused to" in text or "Content Security Policy" in text]
    assert blocked == []
    assert {url.split(":", 1)[0] for url in requests} == {"file"}


def test_the_baseline_section_and_trend_chart_show_and_link_in_chromium(browser: Any, tmp_path: Path) -> None:
    from zeroclaw_eval.report.baseline import Baseline, HistoryPoint

    report = every_status_report()
    changes = ["still_passing", "new_failure", "still_failing", "new"]
    for case, change in zip(report.cases, changes, strict=True):
        case.change = change
    report.baseline = Baseline("reports/previous.json", "sha256:" + "0" * 64, "0.1.0")
    report.history = [HistoryPoint(1, 4), HistoryPoint(3, 4)]
    page_file = tmp_path / "report.html"
    write_output(render(report), str(page_file))

    page = browser.new_page(viewport={"width": 1200, "height": 900})
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.goto(page_file.as_uri())
    page.wait_for_load_state("load")
    assert page.locator("#baseline").is_visible()
    box = page.locator("svg.trend").bounding_box()
    assert box is not None
    assert box["width"] > 100
    assert box["height"] > 40
    assert page.locator("svg.trend circle").count() == 3

    # A change links to its case, which opens even when collapsed (the page script runs).
    page.click("#collapse-all")
    page.click('#baseline a[href="#case-1"]')
    wait_until_open(page, "case-1")
    page.close()
    assert [text for text in console if "Refused to" in text or "Content Security Policy" in text] == []


def _closed_cases_page(tmp_path: Path, count: int) -> tuple[Path, SuiteReport]:
    """A page of `count` passing cases (model text that tries to end their comment and
    template and to run, a fixture source each), then the failing, errored and rejected
    ones: the passing cases come folded in runs, their bodies in templates."""
    report = replace(every_status_report(), details=DETAILS_ALL)  # passing cases whole
    passing = report.cases[0]
    passing.id = UNFOLDING
    assert passing.record is not None
    passing.record.turns[0].response = UNFOLDING
    passing.source = '{\n  "model_name": "passing-model"\n}\n'
    copies = [replace(passing, name=f"p{n}.json", path=f"evals/p{n}.json") for n in range(count)]
    report.cases[:1] = copies
    page_file = tmp_path / "closed.html"
    write_output(render(report), str(page_file))
    return page_file, report


def _watched(page: Any) -> list[str]:
    """What went wrong on `page`: its errors, dialogs, and what its policy refused."""
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"error: {error}"))
    page.on("dialog", lambda dialog: (problems.append(f"dialog: {dialog.message}"), dialog.dismiss()))
    page.on(
        "console",
        lambda message: (
            problems.append(message.text)
            if message.type == "error" or "Content Security Policy" in message.text
            else None
        ),
    )
    return problems


def test_a_closed_case_gets_its_body_when_opened_and_model_text_stays_text(
    browser: Any, tmp_path: Path
) -> None:
    page_file, _ = _closed_cases_page(tmp_path, 3)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems = _watched(page)
    page.goto(page_file.as_uri())
    page.wait_for_load_state("load")
    case = page.locator("#case-1")
    case.wait_for(state="attached")  # its run is on screen: unfolded at once
    assert case.evaluate("item => item.open") is False
    assert case.locator(".body").count() == 0
    assert case.evaluate(
        "item => item.querySelector(':scope > template').content.querySelector('.body') !== null"
    )

    page.click("#case-1 > summary")
    wait_until_open(page, "case-1")
    assert case.locator(".body").is_visible()
    assert case.locator(":scope > template").count() == 0  # moved in, not copied
    assert UNFOLDING in (case.locator(".body").text_content() or "")
    assert UNFOLDING in (case.locator(".case-id").text_content() or "")
    assert page.evaluate("document.scripts.length") == 1
    assert page.locator("img").count() == 0
    page.close()
    assert problems == []


def test_a_link_into_a_folded_or_closed_case_opens_it_at_the_line(browser: Any, tmp_path: Path) -> None:
    page_file, _ = _closed_cases_page(tmp_path, 600)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems = _watched(page)
    # Followed as the page loads, the link is to a case in a run far below, still folded.
    page.goto(page_file.as_uri() + "#case-550-L2")
    wait_until_open(page, "case-550")
    assert page.locator("#case-550-L2").is_visible()
    assert page.evaluate("document.querySelector('#case-550-L2').closest('details.source').open")

    # A closed case that is in the document keeps its rows in its template until opened.
    page.click("#collapse-all")
    assert page.locator("#case-3").evaluate("item => !item.open && !item.querySelector('.body')")
    page.evaluate("window.location.hash = 'case-3-L2'")
    wait_until_open(page, "case-3")
    assert page.locator("#case-3-L2").is_visible()

    # With failures only, the link shows its passing case (and the run that holds it) alone.
    page.click("#failures-only")
    page.evaluate("window.location.hash = 'case-20'")
    wait_until_open(page, "case-20")
    assert page.locator("#case-20 > summary").is_visible()
    assert not page.locator("#case-21 > summary").is_visible()
    page.close()
    assert problems == []


#: How many cases are in the document, open, with their bodies.
_ALL_OPEN = """() => Array.from(document.querySelectorAll("details.case"))
    .filter(item => item.open && item.querySelector(":scope > .body")).length"""


def test_failures_only_and_expand_all_reach_the_folded_cases(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    page_file, report = _closed_cases_page(tmp_path, 1000)
    total = len(report.cases)
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems = _watched(page)
    page.goto(page_file.as_uri(), wait_until="domcontentloaded")
    # Straight after the click, before the runs far below have been unfolded after the load.
    hidden = page.evaluate(
        """() => {
          document.getElementById("failures-only").click();
          const cases = Array.from(document.querySelectorAll("details.case"));
          const passing = cases.filter(item => item.dataset.status === "passed");
          return {
            runs: Array.from(document.querySelectorAll("div.cases")).every(run => run.hidden),
            passing: passing.every(item => item.hidden),
            failing: cases.filter(item => !passing.includes(item)).some(item => item.hidden),
          };
        }"""
    )
    assert hidden == {"runs": True, "passing": True, "failing": False}
    expect(page.locator("details.case")).to_have_count(total)  # every run unfolded after the load
    # A run unfolded after the click hides its passing cases itself.
    assert page.evaluate(
        "() => Array.from(document.querySelectorAll('details.case[data-status=passed]')).every(i => i.hidden)"
    )
    assert page.locator("details.case:not([hidden])").count() == 3
    page.click("#failures-only")
    assert page.locator("details.case:not([hidden])").count() == total
    page.close()

    page = browser.new_page(viewport={"width": 1200, "height": 900})
    more_problems = _watched(page)
    page.goto(page_file.as_uri(), wait_until="domcontentloaded")
    assert (
        page.evaluate(f"() => {{ document.getElementById('expand-all').click(); return ({_ALL_OPEN})(); }}")
        == total
    )
    page.close()
    assert problems == more_problems == []
