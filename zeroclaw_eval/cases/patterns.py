"""`response_matches` patterns: RE2, which matches in time linear in the input, so no
pattern can hang the gate. A pattern RE2 cannot compile is rejected at admission."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from zeroclaw_eval._support.json.scan import encodes
from zeroclaw_eval.errors import InvalidRegex


@lru_cache(maxsize=512)
def compile_regex(pattern: str) -> Any:
    """Compile `pattern` with RE2, which matches in linear time whatever the input.

    RE2 leaves out backreferences and lookaround; such a pattern raises `InvalidRegex`.
    """
    import re2  # only cases with response_matches pay for the import

    options = re2.Options()
    options.log_errors = False  # RE2 would otherwise print parse errors to stderr
    if not encodes(pattern):
        raise InvalidRegex("the pattern holds a lone surrogate (\\ud800-\\udfff), which RE2 cannot read")
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else str(exc)
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", errors="replace")
        raise InvalidRegex(str(reason)) from None


def regex_problem(pattern: str) -> str | None:
    """Why RE2 cannot compile `pattern`, or None when it can."""
    try:
        compile_regex(pattern)
    except InvalidRegex as exc:
        return str(exc)
    return None
