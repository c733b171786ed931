"""What every output must hold whatever the model said: checks the fuzz tests share.

The GitHub Actions log is read with `tests.support.ci_log` (a model of the runner written apart
from the package); JUnit is parsed with lxml, the HTML page with the standard library's
tokenizer (as a browser's) and with lxml.html.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import lxml.etree
import lxml.html

from tests.fuzz.hostile import MARKER
from tests.support.ci_log import command_lines, executed_commands, parse_command

#: The commands the github reporter emits on purpose.
ANNOTATIONS = ("::error ", "::notice ")


def check_annotations(text: str) -> None:
    """Only the reporter's own annotations: one a line, each with a title; hostile text
    inside them can neither end the line nor start another command."""
    commands = command_lines(text)
    for line in commands:
        assert line.startswith(ANNOTATIONS), f"a command the reporter did not write: {line[:200]!r}"
        parsed = parse_command(line)
        assert parsed is not None, line[:200]
        assert "title" in parsed.properties, line[:200]
    assert len(commands) <= 11, f"{len(commands)} annotations (at most 10 errors and a notice)"
    assert not [c for c in executed_commands(text) if c.name not in ("error", "notice")]


def check_log(text: str) -> None:
    """A report printed to a CI log: the runner executes nothing but the stop-commands
    fence the CLI put around it, and the fence is closed by its own token at the end."""
    executed = executed_commands(text)
    assert [c.name for c in executed] == ["stop-commands"], [c.name for c in executed][:5]
    token = executed[0].message
    assert len(token) >= 16, "a guessable fence"
    assert token not in text.split("\n", 1)[1][: -len(token) - 5], "the fence token inside the fence"
    assert text.endswith(f"::{token}::\n"), text[-200:]


def check_file(text: str) -> None:
    """JSON, JUnit, HTML: no line of the file can start a workflow command."""
    assert command_lines(text) == [], command_lines(text)[:3]
    assert "##[" not in text


def check_no_terminal_escapes(text: str) -> None:
    """Output without colour holds no escape sequence a terminal would act on."""
    for escape in ("\x1b", "\x9b"):
        assert escape not in text, f"a raw {escape!r} reaches the terminal"


def check_junit(data: bytes) -> None:
    """Well-formed XML that lxml reads, with no element made from model text."""
    root = lxml.etree.fromstring(data)
    assert root.tag in ("testsuites", "testsuite"), root.tag
    tags = {element.tag for element in root.iter() if isinstance(element.tag, str)}
    assert not [t for t in tags if MARKER in t], tags


class _Tags(HTMLParser):
    """Start tags and script bodies, as a browser's tokenizer reads the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def check_html(page: str) -> None:
    """The page's own script and no live markup from model text: no injected element,
    no event handler, no `javascript:` link, with either parser."""
    parser = _Tags()
    parser.feed(page)
    parser.close()
    scripts = [attrs for tag, attrs in parser.tags if tag == "script"]
    assert scripts == [{}], scripts
    assert not any(MARKER in body for body in parser.scripts)
    for tag, attrs in parser.tags:
        assert MARKER not in tag, tag
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert MARKER not in name, (tag, name)
            assert not (value or "").strip().lower().startswith("javascript:"), (tag, name, value)
    document = lxml.html.document_fromstring(page.encode("utf-8", errors="backslashreplace"))
    assert len(document.xpath("//script")) == 1
    for element in document.iter():
        if isinstance(element.tag, str):
            assert MARKER not in element.tag, element.tag
            assert not [a for a in element.attrib if a.startswith("on") or MARKER in a], element.attrib


#: `--report` for every file format, each into `out.FORMAT` of the working directory.
EVERY_FILE_OUTPUT = tuple(
    arg for fmt in ("json", "junit", "html", "github") for arg in ("--report", f"{fmt}=out.{fmt}")
)


def under_actions(folder: Path, summary: Path) -> dict[str, str]:
    """The environment of a step under GitHub Actions, its workspace `folder`."""
    return {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_WORKSPACE": str(folder)}


def check_outputs(folder: Path) -> None:
    """The files `EVERY_FILE_OUTPUT` wrote into `folder`, each against its format's promise."""
    for fmt in ("json", "junit", "html"):
        check_file((folder / f"out.{fmt}").read_bytes().decode("utf-8"))
    check_junit((folder / "out.junit").read_bytes())
    check_html((folder / "out.html").read_bytes().decode("utf-8"))
    check_annotations((folder / "out.github").read_bytes().decode("utf-8"))
