"""Keeping untrusted text (model responses, tool output, fixture names) harmless in every
output.

Four hazards. XML 1.0 cannot hold some characters at all, and a consumer that meets one
rejects the whole file. The GitHub Actions runner executes any log line whose first
non-blank characters are `::` plus a command, and `##[` anywhere in a line
(actions/runner `ActionCommand.cs`; CVE-2020-15228), so a report printed to a CI log
must never let a response start a line with `::` or contain `##[`. A terminal obeys
control characters (clear the screen, set the title, hide text, plant a link), so text
shown on one has them made visible. And UTF-8 cannot encode a lone surrogate (a model's
broken text, a file name of undecodable bytes), so every output writes it as a visible
`\\udXXX` escape instead of failing to be written.

Every rule here is linear in its input: a reply of a million newlines is big, not slow.
"""

from __future__ import annotations

import re
import secrets

from zeroclaw_eval._support.json.scan import printable

# Everything XML 1.0 forbids, plus the "discouraged" C1 controls, DEL and noncharacters
# (the last two code points of every plane) that some parsers (and junit-xml) drop silently.
# Those beyond the first plane have a pattern of their own: in one class with the rest they
# make the regex engine five times slower on every text.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")
_ASTRAL_NONCHARACTER = re.compile(
    "["
    + "".join(chr(plane + 0xFFFE) + chr(plane + 0xFFFF) for plane in range(0x10000, 0x110000, 0x10000))
    + "]"
)
# The runner trims leading whitespace with .NET's TrimStart(), which also removes Unicode
# spaces such as U+00A0, so any whitespace may stand before the `::`. Line breaks are
# excluded (the runner splits lines first): `\s*` would let every line start of a run of
# newlines scan the whole run again, which is quadratic. A line is found by its line break,
# a literal the regex engine looks for quickly (`^` in MULTILINE mode is tried at every
# character), or at the start of the text.
_COMMAND_AFTER_BREAK = re.compile(r"\n[^\S\n]*:")
_COMMAND_AT_START = re.compile(r"[^\S\n]*:")
# What a terminal (or a CI log viewer) would obey rather than show: C0 and C1 controls,
# DEL, the Unicode line and paragraph separators, the bidirectional overrides, isolates
# and marks that reorder what is shown (Trojan Source), lone surrogates; and what shows
# as nothing (zero-width spaces and joiners, the word joiner and invisible operators, a
# BOM, a soft hyphen), so that two names that look alike are told apart.
_HIDDEN = "\u00ad\u061c\u180e\u200b-\u200f\u2060-\u2064\ufeff"
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff{_HIDDEN}]")
# The same, as they may stand raw in JSON text (inside strings): C0 controls are escaped
# by every JSON writer already, and a lone surrogate is `encodable`'s.
_RAW_IN_JSON = re.compile(f"[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069{_HIDDEN}]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
#: The largest text node a JUnit file holds: lxml (libxml2) refuses a text node over
#: 10,000,000 bytes without `huge_tree`, and junitparser reads with it; a million
#: characters stays under that even as 4-byte UTF-8 or escaped as `&amp;`.
XML_TEXT_LIMIT = 1_000_000


def _escape(char: str) -> str:
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def visible(text: str, *, multiline: bool = True) -> str:
    """`text` with every control character written as a Python escape (`\\x1b`,
    `\\u202e`, `\\ud800`), so a terminal shows it instead of obeying it.

    `multiline` keeps newlines and tabs (a CR LF becomes a newline; a lone CR, which
    would let text overwrite its own line, is shown); without it they are escaped too
    and the result is one line.
    """
    if multiline:
        text = text.replace("\r\n", "\n")
        return _CONTROL.sub(lambda m: m.group() if m.group() in "\n\t" else _escape(m.group()), text)
    return _CONTROL.sub(lambda m: _escape(m.group()), text)


def encodable(text: str) -> str:
    """`text` with each lone surrogate written as a visible `\\udXXX` escape: the one
    way every output writes what UTF-8 cannot encode (in a JSON string the escape is the
    same string, so a JSON report reads back unchanged). The rule is admission's, which
    shows a rejected fixture's text the same way."""
    return printable(text)


def encoded(text: str) -> bytes:
    """`encodable(text)` as UTF-8, in one pass (a lone surrogate's `\\udXXX` escape is
    what `backslashreplace` writes): how the outputs are written."""
    return text.encode("utf-8", "backslashreplace")


def log_line(text: str) -> str:
    """`text` as part of one line of a CI log or terminal: control characters and line
    breaks visible (so nothing after it can start a workflow command), `##[` defused,
    and a `::` it starts with after its blanks written `\\x3a:`.

    The last because the text may open its line: a fixture's path printed after an
    indent (`    ::error file=a::x.json:1:2: ...`, a fixture at the top of `--suite .`)
    is a workflow command, as the runner trims any whitespace before it looks for `::`.
    Mid-line it costs nothing but a `:` shown as an escape in a name that starts so."""
    line = visible(text, multiline=False).replace("##[", "#\\x23[")
    rest = line.lstrip()
    if rest.startswith("::"):
        return line[: len(line) - len(rest)] + "\\x3a" + rest[1:]
    return line


def shown_lines(text: str) -> str:
    """The one rule for a message the harness prints to a terminal or a CI log (an
    error, a warning, the pytest plugin's failure text): each line of `text` as
    `log_line` makes it (so a line that would start with `::` after its blanks, which
    the runner trims first, has that `:` written as `\\x3a`). Its own line breaks stay;
    a line break inside quoted text makes a line as harmless as any."""
    return "\n".join(log_line(line) for line in text.split("\n"))


def xml_safe(text: str) -> str:
    """`text` with line ends normalised and every character XML cannot hold made visible
    as `#xNN` (as pytest does), so nothing is silently dropped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _NOT_XML.sub(_visible_in_xml, text)
    return text if text.isascii() else _ASTRAL_NONCHARACTER.sub(_visible_in_xml, text)


def _visible_in_xml(char: re.Match[str]) -> str:
    return f"#x{ord(char.group()):02X}"


def referenced(text: str, references: tuple[tuple[str, str], ...]) -> str:
    """`text` with each character `references` names replaced by its reference, in their
    order (`&` first); each is looked for before it is replaced, which is cheaper: most
    text holds none of them."""
    for char, reference in references:
        if char in text:
            text = text.replace(char, reference)
    return text


def shorten(text: str, limit: int, note: str = "") -> str:
    """`text` cut to `limit` characters, its last an ellipsis, followed by `note` (which
    may say `{cut}`: how many characters were left out); unchanged when it fits."""
    if len(text) <= limit:
        return text
    kept = max(limit - 1, 0)
    return text[:kept] + "…" + note.format(cut=f"{len(text) - kept:,}")


def one_line(text: str, limit: int = 1000) -> str:
    """`text` on one line, cut after `limit` characters with an ellipsis."""
    return shorten(" ".join(text.split()), limit)


def neutralize_markup(text: str) -> str:
    """Defuse workflow commands in finished XML or HTML by writing one character of each
    as a character reference: the document means exactly the same, but no line of it
    starts with `::` and no `##[` appears."""
    neutral = MarkupNeutralizer()
    return neutral.feed(text) + neutral.flush()


class MarkupNeutralizer:
    """`neutralize_markup` of a document written in pieces: what `feed` returns for each
    piece in turn, then `flush`, joined, is `neutralize_markup` of the pieces joined.

    A sequence may straddle two pieces, so the characters that could start one with the
    next piece (a CR before its LF, a `#` or `##` before `[`) wait for it, and whether
    the next piece starts a line (only blanks since the last line break) is carried over.
    """

    def __init__(self) -> None:
        self._held = ""
        self._line_start = True

    def feed(self, piece: str) -> str:
        """The neutralised text of `piece`, but for what it may share with the next one."""
        text = self._held + piece
        keep = 1 if text.endswith("\r") else min(len(text) - len(text.rstrip("#")), 2)
        self._held = text[len(text) - keep :]
        return self._neutralize(text[: len(text) - keep])

    def flush(self) -> str:
        """The neutralised text held back at the end of the document."""
        text, self._held = self._held, ""
        return self._neutralize(text)

    def _neutralize(self, text: str) -> str:
        # The runner also ends a line at a lone carriage return. XML and HTML parsers read a
        # CR LF or a lone CR as LF anyway, so making them LF keeps the meaning.
        if "\r" in text:  # rare: looking is cheaper than two replacements
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        start = _COMMAND_AT_START.match(text) if self._line_start else None
        if start is not None:
            text = _defused(start) + text[start.end() :]
        text = _COMMAND_AFTER_BREAK.sub(_defused, text)
        last_break = text.rfind("\n")
        last_line = text[last_break + 1 :]
        blank = not last_line or last_line.isspace()  # the same blanks as the patterns'
        self._line_start = blank if last_break >= 0 else self._line_start and blank
        return text.replace("##[", "#&#35;[")


def _defused(command: re.Match[str]) -> str:
    """A line's blanks and `:` with the `:` as a character reference."""
    return command.group()[:-1] + "&#58;"


def neutralize_json(text: str) -> str:
    """The same for finished JSON: `##[` can only occur inside strings, where `\\u0023`
    is the same character; JSON strings cannot hold a raw newline, so no line of the
    output can start with untrusted `::`. What a terminal would obey or hide (C1
    controls, bidi overrides, zero-width characters), raw inside strings, is written as
    its `\\uXXXX` escape: the same string to every JSON reader, shown on a terminal."""
    if not text.isascii():
        text = _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.replace("##[", "#\\u0023[")


def stop_commands(text: str) -> str:
    """Wrap a raw block for a CI log so the runner executes nothing inside it.

    GitHub's recommended guard: `::stop-commands::TOKEN` ... `::TOKEN::`, with a fresh
    unguessable token each time, so the text cannot resume processing itself.
    """
    token = secrets.token_hex(16)
    body = text if text.endswith("\n") else text + "\n"
    return f"::stop-commands::{token}\n{body}::{token}::\n"
