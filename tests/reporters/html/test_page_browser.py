"""The HTML page in a real browser: Debian's Chromium, driven headless by Playwright.

Skips locally when no Chromium (or Playwright) is installed; under CI (`CI` set) a
missing browser fails instead, because CI must run this test (.ci/run installs it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.reports import every_status_report
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

    passing = page.locator('details.case[data-status="passed"]')
    assert passing.evaluate("element => element.open") is False
    assert not passing.locator(".body").is_visible()

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
