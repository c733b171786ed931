"""Keeping untrusted text (model responses, tool output) harmless in every output.

Two hazards. XML 1.0 cannot hold some characters at all, and a consumer that meets one
rejects the whole file. And the GitHub Actions runner executes any log line whose first
non-blank characters are `::` plus a command, and `##[...]` anywhere in a line
(actions/runner `ActionCommand.cs`; CVE-2020-15228), so a report printed to a CI log
must never let a response start a line with `::` or contain `##[`.
"""

from __future__ import annotations

import re
import secrets

# Everything XML 1.0 forbids, plus the "discouraged" C1 controls and DEL that some
# parsers (and junit-xml) drop silently.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")
# The runner trims leading whitespace with .NET's TrimStart(), which also removes Unicode
# spaces such as U+00A0, so any whitespace may stand before the `::`.
_LINE_START_COMMAND = re.compile(r"^(\s*):", re.MULTILINE)


def xml_safe(text: str) -> str:
    """`text` with line ends normalised and every character XML cannot hold made visible
    as `#xNN` (as pytest does), so nothing is silently dropped."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _NOT_XML.sub(lambda m: f"#x{ord(m.group()):02X}", text)


def one_line(text: str, limit: int = 1000) -> str:
    """`text` on one line, cut after `limit` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def neutralize_markup(text: str) -> str:
    """Defuse workflow commands in finished XML or HTML by writing one character of each
    as a character reference: the document means exactly the same, but no line of it
    starts with `::` and no `##[` appears."""
    # The runner also ends a line at a lone carriage return. XML and HTML parsers read a
    # CR LF or a lone CR as LF anyway, so making them LF keeps the meaning.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _LINE_START_COMMAND.sub(r"\1&#58;", text)
    return text.replace("##[", "#&#35;[")


def neutralize_json(text: str) -> str:
    """The same for finished JSON: `##[` can only occur inside strings, where `\\u0023`
    is the same character; JSON strings cannot hold a raw newline, so no line of the
    output can start with untrusted `::`."""
    return text.replace("##[", "#\\u0023[")


def stop_commands(text: str) -> str:
    """Wrap a raw block for a CI log so the runner executes nothing inside it.

    GitHub's recommended guard: `::stop-commands::TOKEN` ... `::TOKEN::`, with a fresh
    unguessable token each time, so the text cannot resume processing itself.
    """
    token = secrets.token_hex(16)
    body = text if text.endswith("\n") else text + "\n"
    return f"::stop-commands::{token}\n{body}::{token}::\n"
