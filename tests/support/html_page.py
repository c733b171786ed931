"""The HTML report as a browser's tokenizer reads it: its start tags, scripts and text."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Tag:
    """One start tag of the page."""

    name: str
    attrs: dict[str, str | None]


@dataclass
class Page(HTMLParser):
    """The page as a browser's tokenizer sees it: start tags, scripts, text."""

    tags: list[Tag] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    in_script: bool = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(Tag(tag, dict(attrs)))
        self.in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script:
            self.scripts.append(data)
        self.text.append(data)

    def find(self, name: str, **attrs: str) -> list[Tag]:
        return [t for t in self.tags if t.name == name and all(t.attrs.get(k) == v for k, v in attrs.items())]


def parse(page: str) -> Page:
    parsed = Page()
    parsed.feed(page)
    parsed.close()
    return parsed
