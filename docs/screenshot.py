"""Make the HTML report screenshot the documentation shows (`nox -s docs_screenshot`).

Runs a small suite with one failing case through `zeroclaw eval run --report html=…`,
opens the page in Chromium (the system's, driven by Playwright, which never downloads a
browser of its own here) and writes `docs/_static/report.png`. So the picture is the page
this version renders, not a mock-up; commit the new file after a change to the page.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

DOCS = Path(__file__).resolve().parent
OUT = DOCS / "_static" / "report.png"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _case(name: str, answer: str, needle: str) -> dict[str, object]:
    call = {"id": "c1", "name": "echo", "arguments": {"message": f"order 42: {needle}"}}
    return {
        "model_name": name,
        "turns": [
            {
                "user_input": "Where is order 42?",
                "steps": [
                    {"response": {"type": "tool_calls", "tool_calls": [call]}},
                    {"response": {"type": "text", "content": answer}},
                ],
            }
        ],
        "expects": {
            "tool_results_contain": [{"tool": "echo", "needle": "shipped"}],
            "response_contains": ["has shipped"],
        },
    }


def main() -> int:
    browser = next(filter(None, map(shutil.which, BROWSERS)), None)
    if browser is None:
        print("no Chromium or Chrome on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        suite = Path(folder) / "evals"
        suite.mkdir()
        cases = {
            "order_shipped": _case("order-shipped", "Order 42 has shipped.", "shipped"),
            "order_in_transit": _case("order-in-transit", "Order 42 is on its way.", "in transit"),
        }
        for name, case in cases.items():
            (suite / f"{name}.json").write_text(json.dumps(case, indent=2) + "\n", encoding="utf-8")
        page = Path(folder) / "report.html"
        command = [sys.executable, "-m", "zeroclaw_eval", "eval", "run", "--suite", str(suite)]
        subprocess.run([*command, "--report", f"html={page}"], cwd=folder, check=False, capture_output=True)
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=browser)
            view = chromium.new_page(viewport={"width": 1100, "height": 900})
            view.goto(page.as_uri())
            view.screenshot(path=str(OUT), full_page=False)
            chromium.close()
    print(f"Wrote {OUT.relative_to(DOCS.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
