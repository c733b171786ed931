"""Scrubbing an imported trace before it becomes a fixture, which is committed.

Every text of the trace (messages, replies, tool arguments and results) is scrubbed
before the conversation is built, so the checks suggested for it are proven on the
scrubbed run and hold in replay:

- the values of the environment's secrets (variables named `*_API_KEY`, `*_TOKEN`,
  `*_SECRET`, `*_PASSWORD`), in every shape `redaction.scrub` knows;
- text shaped like a credential: provider and cloud keys (`sk-…`, `AKIA…`, `AIza…`),
  GitHub and Slack tokens, JSON Web Tokens, bearer tokens;
- email addresses, replaced by the placeholder identity `zeroclaw_user@example.com`;
- whatever the user's own patterns (`--redact`, RE2) match.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from zeroclaw_eval.boundary.provider import ModelResponse
from zeroclaw_eval.errors import InvalidRegex, UsageError
from zeroclaw_eval.fixtures.patterns import compile_regex
from zeroclaw_eval.importing.trace import ImportedTrace
from zeroclaw_eval.redaction import MIN_SECRET_LENGTH, REDACTED, scrub

PLACEHOLDER_EMAIL = "zeroclaw_user@example.com"
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@(?!example\.com\b)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_CREDENTIALS = re.compile(
    "|".join(
        (
            r"\bsk-[A-Za-z0-9_-]{20,}",  # OpenAI and Anthropic keys
            r"\bAKIA[0-9A-Z]{16}\b",  # AWS access key ids
            r"\bAIza[0-9A-Za-z_-]{35}",  # Google API keys
            r"\bgh[pousr]_[A-Za-z0-9]{36,}",  # GitHub tokens
            r"\bgithub_pat_[A-Za-z0-9_]{22,}",
            r"\bxox[abprs]-[A-Za-z0-9-]{10,}",  # Slack tokens
            r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # JSON Web Tokens
            r"(?<=[Bb]earer )[A-Za-z0-9._~+/-]{16,}=*",
        )
    )
)
_SECRET_NAMES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")


def environment_secrets(environ: Mapping[str, str] = os.environ) -> list[str]:
    """The values of the environment's variables named like secrets."""
    return [
        value
        for name, value in environ.items()
        if name.upper().endswith(_SECRET_NAMES) and len(value.strip()) >= MIN_SECRET_LENGTH
    ]


@dataclass(frozen=True)
class Scrubber:
    """What an import replaces in every text of a trace."""

    secrets: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()

    @classmethod
    def make(cls, patterns: Iterable[str], secrets: Iterable[str]) -> Scrubber:
        """A scrubber with the user's `patterns`, each checked (`UsageError` naming one
        RE2 cannot compile or one that matches empty text, which would mark every gap)."""
        checked = []
        for pattern in patterns:
            try:
                compiled = compile_regex(pattern)
            except InvalidRegex as exc:
                raise UsageError(f"--redact {pattern!r} is not an RE2 pattern: {exc}") from None
            if compiled.fullmatch("") is not None:
                raise UsageError(
                    f"--redact {pattern!r} matches empty text; give a pattern that needs a character"
                )
            checked.append(pattern)
        return cls(tuple(secrets), tuple(checked))

    def text(self, text: str) -> str:
        """`text` with every secret, credential, email and user pattern replaced."""
        text = scrub(text, self.secrets) if self.secrets else text
        text = _CREDENTIALS.sub(REDACTED, text)
        text = _EMAIL.sub(PLACEHOLDER_EMAIL, text)
        for pattern in self.patterns:
            text = compile_regex(pattern).sub(REDACTED, text)
        return text

    def value(self, value: Any) -> Any:
        """`value` (JSON data) with every string in it scrubbed, keys included."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k) if isinstance(k, str) else k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value

    def trace(self, trace: ImportedTrace) -> ImportedTrace:
        """`trace` with every text it recorded scrubbed (ids and span names kept)."""
        calls = [
            replace(call, messages=self.value(call.messages), reply=self._reply(call.reply))
            for call in trace.calls
        ]
        tools = [
            replace(
                run,
                arguments=self.value(run.arguments),
                result=None if run.result is None else self.text(run.result),
            )
            for run in trace.tools
        ]
        return replace(trace, calls=calls, tools=tools)

    def _reply(self, reply: ModelResponse | None) -> ModelResponse | None:
        if reply is None:
            return None
        calls = tuple(replace(call, arguments=self.text(call.arguments)) for call in reply.tool_calls)
        content = None if reply.content is None else self.text(reply.content)
        return replace(reply, content=content, tool_calls=calls)
