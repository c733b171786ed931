"""Untrusted text in GitHub-flavoured Markdown (the step summaries): literal, never markup.

GitHub renders a step summary as GFM, which turns `[text](url)` into a link, `![](url)`
into an image (a tracking pixel) and also *autolinks bare text*: `https://…`, `www.…` and
`user@host` become links with no markup at all, so backslash-escaping punctuation is not
enough. Every untrusted piece is therefore an inline code span (literal: no link, no
markup, no autolink) or a fenced block, and text in raw HTML (`<summary>`) is
HTML-escaped. Control characters and lone surrogates are made visible first.
"""

from __future__ import annotations

import html

from zeroclaw_eval.reporters.safety import encodable, visible


def code(text: str, *, cell: bool = True) -> str:
    """Text as an inline code span on one line (literal, links and all), delimited by
    more backticks than any run inside it. In a table cell (`cell`) GFM still needs `|`
    escaped; anywhere else the backslash would show, so it is not."""
    flat = visible(" ".join(text.split()), multiline=False)
    if cell:
        flat = flat.replace("|", "\\|")
    ticks = "`" * (_longest_backtick_run(flat) + 1)
    pad = " " if not flat or flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def html_text(text: str) -> str:
    """Text inside a raw HTML element (GFM leaves Markdown there unparsed): one line,
    HTML-escaped."""
    return html.escape(visible(" ".join(text.split()), multiline=False), quote=True)


def fenced(text: str) -> str:
    """A fenced code block that no backtick run inside `text` can close."""
    text = visible(text.replace("\r\n", "\n").replace("\r", "\n"))
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    return f"{fence}text\n{text}\n{fence}\n"


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest


def within(
    head: list[str],
    body: list[str],
    limit: int,
    *,
    cut: str = "Summary cut to stay under GitHub's 1 MiB limit",
) -> str:
    """Join `head` and as much of `body` as fits in `limit` UTF-8 bytes, saying what was
    cut (`cut`, then how many parts were left out); a lone surrogate left anywhere is
    written as a visible escape, so the result always encodes.

    The result is never over `limit`, whatever the head holds: the head is cut too, last,
    when even it does not fit (a step summary file that earlier steps nearly filled
    leaves little room, and GitHub refuses a file over its limit whole, every step's
    summary with it). Parts are kept whole, in order, so no code span or table row is cut
    in half (half a code span would let the untrusted text after it render as Markdown);
    the note saying what was cut is left out too when there is no room even for it."""
    parts = [encodable(part) for part in head] + [encodable(part) for part in body]
    sizes = [len(part.encode("utf-8")) for part in parts]
    if sum(sizes) <= limit:
        return "".join(parts)
    note_room = 200
    kept: list[str] = []
    used = 0
    for index, (part, size) in enumerate(zip(parts, sizes, strict=True)):
        if used + size + note_room > limit:
            note = f"\n\n_{cut}: {len(parts) - index} part(s) left out._\n"
            if used + len(note.encode("utf-8")) <= limit:
                kept.append(note)
            break
        kept.append(part)
        used += size
    return "".join(kept)
