"""Scrubbing an imported trace before it becomes a fixture, which is committed.

Every text of the trace (messages, replies, tool arguments and results) is scrubbed
before the conversation is built, so the checks suggested for it are proven on the
scrubbed run and hold in replay:

- the values of the environment's secrets (variables named `*_API_KEY`, `*_TOKEN`,
  `*_SECRET`, `*_PASSWORD`), in every shape `redaction.scrub` knows;
- text shaped like a credential: provider and cloud keys (`sk-…`, Stripe's, `AKIA…`,
  `AIza…`, `ya29.…`), GitHub, GitLab, Hugging Face, npm and Slack tokens, Slack webhook
  URLs, JSON Web Tokens, bearer and basic credentials, private keys in PEM, secrets in
  a URL's query (`?api_key=…`);
- email addresses, replaced by the placeholder identity `zeroclaw_user@example.com`;
- whatever the user's own patterns (`--redact`, RE2) match.

Tool-call arguments are scrubbed as the values they decode to, so a key or an address
written with JSON escapes is found. A lone surrogate (which JSON may hold and UTF-8
cannot) is written as its `\\udXXX` escape everywhere, ids included, by the rule every
output of zeroclaw-eval follows (`fixtures.json.scan.printable`), so every fixture can
be written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from zeroclaw_eval._support.json.scan import printable
from zeroclaw_eval._support.json.text import arguments_text
from zeroclaw_eval._support.redaction import MIN_SECRET_LENGTH, REDACTED, scrub
from zeroclaw_eval.boundary.provider import ModelResponse, decode_arguments
from zeroclaw_eval.cases.patterns import compile_regex
from zeroclaw_eval.errors import InvalidRegex, UsageError
from zeroclaw_eval.importing.trace import ImportedTrace

PLACEHOLDER_EMAIL = "zeroclaw_user@example.com"
#: An address whose domain is not exactly example.com (Unicode letters too: IDN addresses).
_EMAIL = re.compile(r"[\w.%+-]+@(?!example\.com(?![\w.-]))[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}")
_CREDENTIALS = re.compile(
    "|".join(
        (
            r"\bsk-[A-Za-z0-9_-]{20,}",  # OpenAI and Anthropic keys
            r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe
            r"\bAKIA[0-9A-Z]{16}\b",  # AWS access key ids
            r"\bAIza[0-9A-Za-z_-]{35}",  # Google API keys
            r"\bya29\.[A-Za-z0-9_-]{20,}",  # Google OAuth access tokens
            r"\bgh[pousr]_[A-Za-z0-9]{36,}",  # GitHub tokens
            r"\bgithub_pat_[A-Za-z0-9_]{22,}",
            r"\bglpat-[A-Za-z0-9_-]{20,}",  # GitLab
            r"\bhf_[A-Za-z0-9]{30,}",  # Hugging Face
            r"\bnpm_[A-Za-z0-9]{36}",
            r"\bxox[abprs]-[A-Za-z0-9-]{10,}",  # Slack tokens
            r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+",
            r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",  # JSON Web Tokens
            r"(?<=[Bb]earer )[A-Za-z0-9._~+/-]{16,}=*",
            r"(?<=[Bb]asic )[A-Za-z0-9+/]{16,}=*",
            r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
        )
    )
)
#: A secret in a URL's query: `?api_key=…`, `&access_token=…`.
_QUERY_SECRET = re.compile(r"([?&](?:api_?key|access_token|token|secret|key)=)[^&\s\"'#]{8,}", re.IGNORECASE)
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
        text = printable(text)
        text = scrub(text, self.secrets) if self.secrets else text
        text = _CREDENTIALS.sub(REDACTED, text)
        text = _QUERY_SECRET.sub(rf"\1{REDACTED}", text)
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

    def arguments(self, arguments: Any) -> Any:
        """Tool-call arguments scrubbed as the values they decode to: a key written with
        JSON escapes (`sk\\u002d…`) is found in the decoded text. JSON text stays as it
        was written unless something in it was replaced."""
        if not isinstance(arguments, str):
            return self.value(arguments)
        decoded = decode_arguments(arguments)
        if isinstance(decoded, str):
            return self.text(arguments)
        scrubbed = self.value(decoded)
        return arguments if scrubbed == decoded else arguments_text(scrubbed)

    def message(self, message: Any) -> Any:
        """A chat message with its content and its calls' arguments scrubbed; its role,
        ids and tool names kept (a pattern must not unmake the conversation)."""
        if not isinstance(message, dict):
            return message
        scrubbed = dict(message)
        if "content" in scrubbed:
            scrubbed["content"] = self.value(scrubbed["content"])
        calls = scrubbed.get("tool_calls")
        if isinstance(calls, list):
            scrubbed["tool_calls"] = [self._call(call) for call in calls]
        return scrubbed

    def _call(self, call: Any) -> Any:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            return call
        scrubbed = dict(function)
        if "arguments" in scrubbed:
            scrubbed["arguments"] = self.arguments(scrubbed["arguments"])
        if isinstance(scrubbed.get("name"), str):
            scrubbed["name"] = printable(scrubbed["name"])
        return {**call, "function": scrubbed}

    def trace(self, trace: ImportedTrace) -> ImportedTrace:
        """`trace` with every text it recorded scrubbed: messages, replies, tool
        arguments and results, the agent's, the service's and the provider's names (the
        first two name the fixture); ids and span names only made encodable."""
        calls = [
            replace(
                call,
                span_id=printable(call.span_id),
                label=printable(call.label),
                offered=None if call.offered is None else [printable(name) for name in call.offered],
                messages=[self.message(message) for message in call.messages],
                reply=self._reply(call.reply),
            )
            for call in trace.calls
        ]
        tools = [
            replace(
                run,
                span_id=printable(run.span_id),
                name=printable(run.name),
                call_id=printable(run.call_id),
                arguments=self.arguments(run.arguments),
                result=None if run.result is None else self.text(run.result),
            )
            for run in trace.tools
        ]
        return replace(
            trace,
            trace_id=printable(trace.trace_id),
            source=printable(trace.source),
            service=None if trace.service is None else self.text(trace.service),
            agent=None if trace.agent is None else self.text(trace.agent),
            provider=None if trace.provider is None else self.text(trace.provider),
            calls=calls,
            tools=tools,
        )

    def _reply(self, reply: ModelResponse | None) -> ModelResponse | None:
        if reply is None:
            return None
        calls = tuple(
            replace(
                call,
                id=printable(call.id),
                name=printable(call.name),
                arguments=self.arguments(call.arguments),
            )
            for call in reply.tool_calls
        )
        content = None if reply.content is None else self.text(reply.content)
        return replace(reply, content=content, tool_calls=calls)
