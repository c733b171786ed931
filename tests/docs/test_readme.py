"""The README is the front door: short, every link it has leads somewhere (the site's
pages are checked by the strict Sphinx build), and "gate your own agent" is one click
away."""

from __future__ import annotations

import re

from tests.docs.pages import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub (and MyST) write it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_the_readme_is_a_front_door_not_a_manual() -> None:
    assert len(README.splitlines()) <= 200


def test_every_relative_link_of_the_readme_leads_to_a_file_and_heading() -> None:
    targets = [t for t in _LINK.findall(README) if not re.match(r"[a-z]+:", t)]
    assert len(targets) >= 20
    broken = []
    for target in targets:
        path, _, anchor = target.partition("#")
        file = ROOT / path
        if not file.is_file():
            broken.append(target)
        elif anchor:
            headings = re.findall(r"^#+ (.+)$", file.read_text(encoding="utf-8"), re.M)
            if anchor not in {_slug(h) for h in headings}:
                broken.append(target)
    assert broken == []


def test_gate_your_own_agent_is_one_click_from_the_readme() -> None:
    assert "](docs/getting-started/your-agent.md)" in README
    page = (ROOT / "docs/getting-started/your-agent.md").read_text(encoding="utf-8")
    assert page.startswith("# Gate your own agent")
