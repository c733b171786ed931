"""Redaction: keeping secrets (the live provider's API key) out of everything zeroclaw-eval writes.

A secret can reach text in more shapes than its raw characters, and every shape is
replaced, so no encoding carries the key past the scrubber:

- escaped, whole or in part: a provider or a library may quote it back escaped (Python
  `repr`, JSON, `\\/` for `/`), a model may write any of its characters as a JSON
  `\\uXXXX` escape (`sk-\\u0073ecret`), once or escaped again;
- URL-encoded (as a path, a query value, a form field), percent escapes in either case;
- with the whitespace around it stripped (a key pasted with its trailing newline), or
  with invisible characters between its characters (zero-width spaces and joiners, which
  display as the key itself);
- reversed, or base64-encoded (standard or URL-safe, at any alignment in the encoded
  text);
- cut: CPython cuts the text it quotes in some error messages (`%.200R`: an `int()` of
  the model's text), and any output may shorten a long line, so a prefix or a suffix of
  the key at least half its length (and `MIN_SECRET_LENGTH`) is a shape too.

Scrubbing runs on the finished text, before any reporter cuts or escapes it (a report
is scrubbed as a whole when a case ends; a provider's error before it is shortened).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import quote, quote_plus

REDACTED = "[REDACTED]"
#: Shorter "keys" (`EMPTY`, `ollama`, ...) are placeholders local servers accept; replacing
#: them would mangle ordinary words and field names without protecting anything.
MIN_SECRET_LENGTH = 8

_PERCENT_ESCAPE = re.compile(r"%[0-9A-F]{2}")
#: What shows as nothing between two characters of a key: zero-width spaces, joiners and
#: marks, the word joiner, a BOM, a soft hyphen (raw, or as a JSON escape).
_INVISIBLE = r"(?:[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]|\\{1,3}u(?i:00ad|200[b-f]|206[0-4]|feff))"


def forms(secret: str) -> set[str]:
    """The literal shapes in which `secret` may appear in text, as far as each is long
    enough to be a real secret: escaped whole, URL-encoded, reversed, base64-encoded.
    (Partial escapes, invisible characters and cuts are matched by pattern: `scrub`.)"""
    cores = {secret, secret.strip(), " ".join(secret.split())}
    shapes = {shape for core in cores for shape in _encoded(core)}
    # Escaped once more: a check's detail quotes text (JSON-escaped) that held the key
    # already escaped, as a model or a provider repeated it.
    shapes |= {again for shape in set(shapes) for again in _escaped(shape)}
    shapes |= {core[::-1] for core in cores}
    shapes |= {encoded for core in cores for encoded in _base64(core)}
    return {shape for shape in shapes if len(shape) >= MIN_SECRET_LENGTH}


def _escaped(text: str) -> set[str]:
    """`text` inside a Python or JSON string literal (quotes left out)."""
    escaped = json.dumps(text)[1:-1]
    return {
        text,
        repr(text)[1:-1],
        repr(text.encode("utf-8", "backslashreplace"))[2:-1],
        escaped,
        escaped.replace("/", "\\/"),
        json.dumps(text, ensure_ascii=False)[1:-1],
    }


def _encoded(text: str) -> set[str]:
    """`text` escaped, or URL-encoded as a path, a query value or a form field."""
    return _escaped(text) | {quote(text, safe=""), quote(text), quote_plus(text, safe="")}


def _base64(text: str) -> set[str]:
    """What base64 text holding `text` holds whatever came before it: for each of the
    three alignments, the characters that only `text`'s bytes decide."""
    data = text.encode("utf-8", "surrogatepass")
    found = set()
    for offset in range(3):
        padded = b"\0" * offset + data
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(padded).decode("ascii")
            # Characters 4k.. come from bytes 3k..; those before the key's first byte
            # and the last group (which takes what follows the key) depend on the rest.
            start = -(-offset * 4 // 3) if offset else 0
            end = (len(padded) // 3) * 4
            found.add(encoded[start:end])
    return found


def _char(char: str) -> str:
    """A pattern for one character of a key as text may carry it: itself, or its JSON
    escape (once or escaped again, hex in any case), `/` also as `\\/`."""
    alternatives = [re.escape(char)]
    if char.isascii():
        alternatives.append(rf"\\{{1,3}}u(?i:{ord(char):04x})")
    if char == "/":
        alternatives.append(r"\\{1,3}/")
    return "(?:" + "|".join(alternatives) + ")"


def _loose(secret: str) -> str:
    """A pattern for `secret` with any characters escaped and invisible characters between
    them, and for its prefixes and suffixes at least half its length (a cut key)."""
    chars = [_char(char) for char in secret]
    gap = f"{_INVISIBLE}*"
    least = max(MIN_SECRET_LENGTH, -(-len(secret) // 2))
    # A prefix: the first `least` characters, then each further one optional in turn.
    prefix = gap.join(chars[:least])
    tail = ""
    for char in reversed(chars[least:]):
        tail = f"(?:{gap}{char}{tail})?"
    # A suffix: the last `least` characters, each earlier one optional in turn.
    suffix = gap.join(chars[len(chars) - least :])
    head = ""
    for char in chars[: len(chars) - least]:
        head = f"(?:{head}{char}{gap})?"
    return f"{prefix}{tail}|{head}{suffix}"


@lru_cache(maxsize=8)
def _pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    shapes = {shape for secret in secrets for shape in forms(secret)}
    if not shapes:
        return None
    # Longest first: a shape that contains another (the raw key with its newline, the
    # stripped key) is replaced whole, not around the shorter one; the loose patterns
    # (which match the plain key too) come after every literal shape.
    longest_first = sorted(shapes, key=lambda shape: (-len(shape), shape))
    literal = [_PERCENT_ESCAPE.sub(_any_case, re.escape(shape)) for shape in longest_first]
    cores = sorted(
        {core for secret in secrets for core in (secret.strip(), " ".join(secret.split()))}, key=len
    )
    loose = [_loose(core) for core in reversed(cores) if len(core) >= MIN_SECRET_LENGTH]
    return re.compile("|".join(literal + loose))


def _any_case(escape: re.Match[str]) -> str:
    # Percent escapes are case-insensitive: `%2F` and `%2f` are the same character.
    first, second = escape.group()[1], escape.group()[2]
    return f"%[{first}{first.lower()}][{second}{second.lower()}]"


def scrub(value: Any, secrets: Iterable[str]) -> Any:
    """`value` with every shape of every secret replaced by a marker, in every string it
    holds (object keys included, since a model can put text there too)."""
    pattern = _pattern(tuple(sorted(set(secrets))))
    return _scrub(value, pattern) if pattern is not None else value


def _scrub(value: Any, pattern: re.Pattern[str]) -> Any:
    if isinstance(value, str):
        return pattern.sub(REDACTED, value)
    if isinstance(value, dict):
        return {_scrub(k, pattern): _scrub(v, pattern) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(item, pattern) for item in value]
    return value
