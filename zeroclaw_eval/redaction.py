"""Redaction: keeping secrets (the live provider's API key) out of everything zeroclaw-eval writes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

REDACTED = "[REDACTED]"
#: Shorter "keys" (`EMPTY`, `ollama`, ...) are placeholders local servers accept; replacing
#: them would mangle ordinary words and field names without protecting anything.
MIN_SECRET_LENGTH = 8


def _real(secrets: Iterable[str]) -> list[str]:
    return [secret for secret in secrets if len(secret) >= MIN_SECRET_LENGTH]


def scrub(value: Any, secrets: Iterable[str]) -> Any:
    """`value` with every secret replaced by a marker, in every string it holds (object
    keys included, since a model can put text there too)."""
    real = _real(secrets)
    return _scrub(value, real) if real else value


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {_scrub(k, secrets): _scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(item, secrets) for item in value]
    return value
