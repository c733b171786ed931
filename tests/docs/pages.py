"""The documentation's pages as the tests read them: each fenced block of a page, what
kind of example it is, and the project a page builds from its file blocks.

A block whose MyST `code-block` has a `:caption:` that is a relative path is a *file*:
the page's examples run in a folder holding all of its files (`zeroclaw.toml`, a
fixture, the project's module). Every other block stands alone: a Python block is a
whole program, a `console` block a transcript of commands and what they print.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: The Markdown a reader sees: the README and every page of the site.
SOURCES = [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)]

_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")


@dataclass
class Block:
    """One fenced block of a page."""

    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    caption: str | None = None
    #: For `replace`: the character offsets of the block's body in the page.
    span: tuple[int, int] = (0, 0)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def file(self) -> PurePosixPath | None:
        """The project file this block is, if its caption names one."""
        names_a_path = self.caption is not None and " " not in self.caption and "." in self.caption
        if self.caption is None or not names_a_path:
            return None
        path = PurePosixPath(self.caption)
        assert not path.is_absolute(), f"{self.where}: {self.caption}"
        assert ".." not in path.parts, f"{self.where}: {self.caption}"
        return path


@dataclass
class Page:
    path: Path
    text: str
    blocks: list[Block] = field(default_factory=list)

    @property
    def files(self) -> list[Block]:
        return [b for b in self.blocks if b.file is not None]

    def of(self, *languages: str) -> list[Block]:
        return [b for b in self.blocks if b.language in languages and b.file is None]


def read(path: Path) -> Page:
    """A page and its fenced blocks (a fence closes on the same fence, as CommonMark's)."""
    text = path.read_text(encoding="utf-8")
    page = Page(path, text)
    lines = text.splitlines(keepends=True)
    offset, index = 0, 0
    starts = []
    for line in lines:
        starts.append(offset)
        offset += len(line)
    starts.append(offset)
    while index < len(lines):
        opened = _FENCE.match(lines[index].rstrip("\n"))
        if not opened:
            index += 1
            continue
        fence, info = opened["fence"], opened["info"].strip()
        first = index
        index += 1
        caption = None
        directive = re.match(r"^\{code-block\}\s*(\S*)", info)
        language = directive[1] if directive else (info.split() or [""])[0]
        if directive:  # its options, then a blank line, then the body
            while index < len(lines) and (option := _OPTION.match(lines[index].strip())):
                if option["key"] == "caption":
                    caption = option["value"]
                index += 1
            if index < len(lines) and not lines[index].strip():
                index += 1
        body_start = index
        while index < len(lines) and lines[index].rstrip("\n").rstrip() != fence:
            index += 1
        body = "".join(lines[body_start:index])
        page.blocks.append(
            Block(path, first + 1, language, body, caption, (starts[body_start], starts[index]))
        )
        index += 1
    return page


def pages() -> list[Page]:
    return [read(path) for path in SOURCES]
