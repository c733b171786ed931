"""Redaction: keeping secrets (the live provider's API key) out of everything zeroclaw-eval writes.

A secret can reach text in more shapes than its raw characters: a provider or a library
may quote it back escaped (Python `repr`, JSON, `\\/` for `/`), URL-encoded, or with the
whitespace around it stripped (a key pasted with its trailing newline). Every one of those
shapes is replaced, so no encoding carries the key past the scrubber.
"""

from __future__ import annotations

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


def forms(secret: str) -> set[str]:
    """Every shape in which `secret` may appear in text (see the module), as far as each
    is long enough to be a real secret."""
    cores = {secret, secret.strip(), " ".join(secret.split())}
    shapes = {shape for core in cores for shape in _encoded(core)}
    # Escaped once more: a check's detail quotes text (JSON-escaped) that held the key
    # already escaped, as a model or a provider repeated it.
    shapes |= {again for shape in set(shapes) for again in _escaped(shape)}
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


@lru_cache(maxsize=8)
def _pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    shapes = {shape for secret in secrets for shape in forms(secret)}
    if not shapes:
        return None
    # Longest first: a shape that contains another (the raw key with its newline, the
    # stripped key) is replaced whole, not around the shorter one.
    longest_first = sorted(shapes, key=lambda shape: (-len(shape), shape))
    return re.compile("|".join(_PERCENT_ESCAPE.sub(_any_case, re.escape(shape)) for shape in longest_first))


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
