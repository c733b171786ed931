"""Hostile text, and a model of how the GitHub Actions runner reads a log: written from
actions/runner's source (`ActionCommand.TryParseV2`, `TextReader.ReadLine`), not from
the package, so that the reporters' escaping is checked against an independent reader."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: What .NET's `string.TrimStart()` removes (`char.IsWhiteSpace`): the runner strips it
#: before looking for `::` (actions/runner `ActionCommand.TryParseV2`).
NET_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
    + "\u2028\u2029\u202f\u205f\u3000"
)
#: Every character XML 1.0 cannot hold that a model could plausibly emit (no surrogates).
XML_ILLEGAL = (
    "".join(chr(c) for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]) + "\ufffe\uffff"
)
LONE_SURROGATE = "\ud800"
HOSTILE = (
    "::error file=x.py,line=1::forged\n"
    "::stop-commands::abc\n"
    "  ::add-mask::secret\n"
    "##[error]x\n"
    "cr\r::error file=cr.py,line=2::lone-cr-forged\r\n"
    "\u00a0::error file=nbsp.py::nbsp-forged\n"
    "\u3000::warning::ideographic-forged\n"
    "literal %0A and %25 and a,b:c\n"
    "</script><script>alert(1)</script>\n"
    "<img src=x onerror=alert(1)>\n"
    f"ctl[{XML_ILLEGAL}] nel[\x85]\n"
    "ticks ```` and `` here"
)


def runner_lines(text: str) -> list[str]:
    """The lines the runner reads (`TextReader.ReadLine`: `\\r\\n`, `\\n` or a lone `\\r`)."""
    return re.split(r"\r\n|\r|\n", text)


def command_lines(text: str) -> list[str]:
    """Lines the runner would try as `::` workflow commands."""
    return [line for line in runner_lines(text) if line.lstrip(NET_WHITESPACE).startswith("::")]


_UNESCAPES = {"%25": "%", "%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ","}


def _unescape(text: str, *, prop: bool) -> str:
    keys = "%25|%0D|%0A|%3A|%2C" if prop else "%25|%0D|%0A"
    return re.sub(keys, lambda m: _UNESCAPES[m.group()], text)


@dataclass
class Command:
    """One workflow command as the runner parses it."""

    name: str
    properties: dict[str, str] = field(default_factory=dict)
    message: str = ""


def parse_command(line: str) -> Command | None:
    """A `::name k=v,k=v::message` line parsed as `TryParseV2` does, else None."""
    trimmed = line.lstrip(NET_WHITESPACE)
    if not trimmed.startswith("::"):
        return None
    end = trimmed.find("::", 2)
    if end < 0:
        return None
    name, _, listed = trimmed[2:end].partition(" ")
    properties: dict[str, str] = {}
    for entry in listed.split(","):
        if entry:
            key, _, value = entry.partition("=")
            properties[key] = _unescape(value, prop=True)
    return Command(name, properties, _unescape(trimmed[end + 2 :], prop=False))


def executed_commands(log: str) -> list[Command]:
    """Every command the runner would execute reading `log`, honouring stop-commands.

    A line that is no `::` command but holds `##[` anywhere counts as a legacy command.
    """
    executed: list[Command] = []
    resume: str | None = None
    for line in runner_lines(log):
        command = parse_command(line)
        if resume is not None:
            if command is not None and command.name == resume:
                resume = None
            continue
        if command is None:
            if "##[" in line:
                executed.append(Command("##[", message=line))
            continue
        if command.name == "stop-commands":
            resume = command.message
        executed.append(command)
    return executed


def annotations(log: str) -> list[Command]:
    """The `::error` annotations the runner would make of `log`."""
    return [command for command in executed_commands(log) if command.name == "error"]
