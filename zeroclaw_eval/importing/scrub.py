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
written with JSON escapes is found. Every other text is read through its JSON escapes
too (`_View`): a tool's result or a message is often JSON text itself, and a key in it
written `sk\\u002d…`, or a webhook written `https:\\/\\/hooks.slack.com\\/…`, is
still a key; what is found there is replaced in the text as written, escapes and all,
and the rest of the text is left as it was. Values are walked without recursion, for a
trace may nest JSON deeper than Python's stack; tool-call arguments nested deeper than
a fixture holds (`MAX_DEPTH`) are refused, naming the span, since their fixture could
not be loaded. A lone surrogate (which JSON may hold and UTF-8 cannot) is written as its
`\\udXXX` escape everywhere, ids included, by the rule every output of zeroclaw-eval
follows (`fixtures.json.scan.printable`), so every fixture can be written.

A refusal (`refusal`) is scrubbed as the trace is: it may quote a span's name, an
attribute, a message, a tool's name or its arguments.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from zeroclaw_eval._support.json.depth import MAX_DEPTH, too_deep
from zeroclaw_eval._support.json.scan import printable
from zeroclaw_eval._support.json.text import arguments_text
from zeroclaw_eval._support.redaction import MIN_SECRET_LENGTH, REDACTED, scrub
from zeroclaw_eval.boundary.provider import ModelResponse, decode_arguments
from zeroclaw_eval.cases.patterns import compile_regex
from zeroclaw_eval.errors import InvalidRegex, UnfaithfulTrace, UsageError
from zeroclaw_eval.importing.trace import ImportedTrace

PLACEHOLDER_EMAIL = "zeroclaw_user@example.com"
#: An address's domain, matched right after its `@`, when it is not exactly example.com
#: (Unicode letters too: IDN addresses). The local part before the `@` is read by
#: `_emails`, never by a pattern that would start at every letter of a long word and scan
#: it to its end looking for an `@` (a 200 KB base64 blob took six minutes).
_EMAIL_DOMAIN = re.compile(r"(?!example\.com(?![\w.-]))[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}")

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
#: A name that says its value is a secret: a password, a secret, a token (not `tokens`, a
#: count), a key of an API or an access key, a credential, a signature.
_SECRET_NAME = (
    r"[\w.-]*(?:password|passwd|pwd|secret|token(?!s)|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|credential|signature)[\w.-]*"
)
_SECRET_KEY = re.compile(_SECRET_NAME, re.IGNORECASE)
_PASSWORD = re.compile(r"passw(?:or)?d|pwd", re.IGNORECASE)
#: Secrets found by what names them, each pattern's group `v` the secret replaced:
_NAMED_SECRETS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # in a URL's query or fragment: `?api_key=…`, `&client_secret=…`, `#access_token=…`,
        # an Azure SAS `&sig=…`, and a bare `?key=…` when it is long enough to be one;
        rf"[?&#;](?:{_SECRET_NAME}|sig|auth|code)=(?P<v>[^&\s\"'#<>]{{4,}})",
        r"[?&#;]key=(?P<v>[^&\s\"'#<>]{8,})",
        # a header: `Authorization: Bearer …` in any case, `Token …`, `x-api-key: …`;
        r"\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token|apikey|key|digest)\s+)?"
        r"(?P<v>[^\s\"',;]{8,})",
        rf"\b(?:x-)?(?:api-key|auth-token|{_SECRET_NAME})\s*:\s*(?P<v>[^\s\"',;]{{8,}})",
        # an assignment or a JSON field named like one: `ACME_API_TOKEN="…"`, `"password": "…"`;
        rf"(?<![\w.-])[\"']?{_SECRET_NAME}[\"']?\s*[:=]\s*\"(?P<v>(?:[^\"\\\n]|\\.){{4,}}?)\"",
        rf"(?<![\w.-])[\"']?{_SECRET_NAME}[\"']?\s*[:=]\s*'(?P<v>[^'\n]{{4,}}?)'",
        rf"(?<![\w.-]){_SECRET_NAME}\s*=\s*(?P<v>[^\s\"'&#,;}}<>]{{4,}})",
        # the password of a URL: `postgres://admin:…@10.0.0.5:5432/db`.
        r"\b[a-z][a-z0-9+.-]*://[^\s:/@\"']+:(?P<v>[^\s@/\"']{3,})@",
    )
)
_SECRET_NAMES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
#: What scrubbing writes in place of what it found: read through escapes, never again.
_WRITTEN = re.compile(f"{re.escape(REDACTED)}|{re.escape(PLACEHOLDER_EMAIL)}")
#: Places a pattern can match without a character: text's and lines' ends, word edges.
_PROBE = 'word 42 --\nsecond-line.\t{"key": 1}'
#: A JSON string escape: `\\uXXXX`, or a backslash and one of `"\\/bfnrt`.
_JSON_ESCAPE = re.compile(r'\\(?:u([0-9A-Fa-f]{4})|(["\\/bfnrt]))')
_ESCAPED = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
#: How many times text may have been escaped over (JSON text in a JSON string of JSON
#: text, a model's arguments quoted in a tool's JSON result) for scrubbing to read it.
_ESCAPE_LEVELS = 3


def environment_secrets(environ: Mapping[str, str] = os.environ) -> list[str]:
    """The values of the environment's variables named like secrets."""
    return [
        value
        for name, value in environ.items()
        if name.upper().endswith(_SECRET_NAMES) and len(value.strip()) >= MIN_SECRET_LENGTH
    ]


def _emails(text: str) -> Iterator[tuple[int, int]]:
    """Where each email address of `text` stands (not those at example.com): from each
    `@`, the local part read back over letters, digits and `._%+-` (not into a JSON
    escape: Go writes `<` as `\u003c`), and the domain matched forward. Each character is
    read a bounded number of times, however long the words around the `@`s."""
    at = text.find("@")
    floor = 0  # where the last address ended: the next one's local part starts after it
    while at >= 0:
        start = at
        while start > floor and (text[start - 1].isalnum() or text[start - 1] in "_.%+-"):
            start -= 1
        if (len(text[floor:start]) - len(text[floor:start].rstrip("\\"))) % 2:  # escaped
            start += 5 if text.startswith("u", start) else 1
        domain = _EMAIL_DOMAIN.match(text, at + 1) if start < at else None
        if domain is not None:
            yield start, domain.end()
            floor = domain.end()
        at = text.find("@", max(at + 1, floor))


def _long_enough(match: re.Match[str]) -> bool:
    """Whether what a name points at is long enough to be a secret: 8 characters (a
    `?token=short` is none), 4 for a password, which people pick short."""
    return len(match.group("v")) >= 8 or _PASSWORD.search(match.group()) is not None


def _named_secret(key: str, value: str) -> bool:
    """Whether a JSON member holds a secret by its name: `{"password": "…"}` (a value
    long enough, `_long_enough`, and not one scrubbing wrote)."""
    short = len(value) < 8 and _PASSWORD.search(key) is None
    return len(value) >= 4 and not short and value != REDACTED and _SECRET_KEY.fullmatch(key) is not None


def _named_secrets(text: str) -> Iterator[tuple[int, int, str]]:
    """Where each secret a name points at stands in `text` (`_NAMED_SECRETS`), each with
    `REDACTED`, overlapping ones merged; what scrubbing wrote already is left alone."""
    found = [
        (match.start("v"), match.end("v"), REDACTED)
        for pattern in _NAMED_SECRETS
        for match in pattern.finditer(text)
        if match.group("v") not in (REDACTED, PLACEHOLDER_EMAIL) and _long_enough(match)
    ]
    yield from _merged(found) if found else ()


def _replaced(text: str, spans: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end) span in order replaced by its text."""
    if not spans:
        return text
    pieces, done = [], 0
    for start, end, replacement in spans:
        pieces += [text[done:start], replacement]
        done = end
    return "".join([*pieces, text[done:]])


@dataclass(frozen=True)
class Scrubber:
    """What an import replaces in every text of a trace."""

    secrets: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()

    @classmethod
    def make(cls, patterns: Iterable[str], secrets: Iterable[str]) -> Scrubber:
        """A scrubber with the user's `patterns`, each checked (`UsageError` naming one
        RE2 cannot compile or one that matches empty text anywhere)."""
        checked = []
        for pattern in patterns:
            try:
                compiled = compile_regex(pattern)
            except InvalidRegex as exc:
                raise UsageError(f"--redact {pattern!r} is not an RE2 pattern: {exc}") from None
            # Empty text anywhere: `\b` or `^` match a place, not a character.
            if any(m.end() == m.start() for probe in ("", _PROBE) for m in compiled.finditer(probe)):
                raise UsageError(
                    f"--redact {pattern!r} matches empty text; give a pattern that needs a character"
                )
            checked.append(pattern)
        return cls(tuple(secrets), tuple(checked))

    def text(self, text: str) -> str:
        """`text` with every secret, credential, email and user pattern replaced, as
        written and behind JSON escapes (`_behind_escapes`)."""
        text = printable(text)
        text = scrub(text, self.secrets) if self.secrets else text
        text = _CREDENTIALS.sub(REDACTED, text)
        text = _replaced(text, sorted(_named_secrets(text)))
        text = _replaced(text, [(start, end, PLACEHOLDER_EMAIL) for start, end in _emails(text)])
        for pattern in self.patterns:
            text = _compiled(pattern).sub(REDACTED, text)
        return self._behind_escapes(text) if "\\" in text else text

    def _behind_escapes(self, text: str) -> str:
        """`text` with what the patterns find in it read through its JSON escapes (once,
        and up to `_ESCAPE_LEVELS` times over) replaced where it is written, escapes and
        all. (The secrets of the environment need no such reading: `redaction.scrub`
        knows their escaped shapes.) What scrubbing wrote already is not replaced
        again (a refusal quoting scrubbed text is scrubbed once more)."""
        found: list[tuple[int, int, str]] = []
        view: _View | None = None
        for _ in range(_ESCAPE_LEVELS):
            view = _View.of(text if view is None else view.text, view)
            if view is None:
                break
            for start, end, replacement in self._matches(view.text):
                found.append((view.origin(start), view.origin(end), replacement))
        written = list(_WRITTEN.finditer(text))
        starts, ends = [match.start() for match in written], [match.end() for match in written]
        found = [span for span in found if not _overlaps(span, starts, ends)]
        return _replaced(text, list(_merged(found)))

    def _matches(self, text: str) -> Iterator[tuple[int, int, str]]:
        """Where in `text` the patterns of `text()` match, each with what replaces it."""
        for match in _CREDENTIALS.finditer(text):
            yield match.start(), match.end(), REDACTED
        yield from _named_secrets(text)
        for start, end in _emails(text):
            yield start, end, PLACEHOLDER_EMAIL
        for pattern in self.patterns:
            for match in _compiled(pattern).finditer(text):
                if match.end() > match.start():
                    yield match.start(), match.end(), REDACTED

    def value(self, value: Any) -> Any:
        """`value` (JSON data) with every string in it scrubbed, keys included. Walked
        with a stack of its own, not by recursion: a trace's JSON may nest as deep as
        JSON's reader goes, far deeper than Python recurses."""
        if not isinstance(value, (dict, list)):
            return self.text(value) if isinstance(value, str) else value
        pending: list[tuple[Any, Any]] = []
        top = self._copied(value, pending)
        while pending:
            given, copy = pending.pop()
            if isinstance(given, dict):
                for key, item in given.items():
                    secret = isinstance(key, str) and isinstance(item, str) and _named_secret(key, item)
                    copy[self.text(key) if isinstance(key, str) else key] = (
                        REDACTED if secret else self._copied(item, pending)
                    )
            else:
                copy.extend(self._copied(item, pending) for item in given)
        return top

    def _copied(self, item: Any, pending: list[tuple[Any, Any]]) -> Any:
        """`item` scrubbed if it is text, an empty container (filled from `pending`) if
        it is one, else itself."""
        if isinstance(item, str):
            return self.text(item)
        if isinstance(item, (dict, list)):
            copy: dict[Any, Any] | list[Any] = {} if isinstance(item, dict) else []
            pending.append((item, copy))
            return copy
        return item

    def arguments(self, arguments: Any) -> Any:
        """Tool-call arguments scrubbed as the values they decode to: a key written with
        JSON escapes (`sk\\u002d…`) is found in the decoded text. JSON text stays as it
        was written unless something in it was replaced. `_ArgumentsTooDeep` for an
        object nested deeper than a fixture holds."""
        if not isinstance(arguments, str):
            _check_depth(arguments)
            return self.value(arguments)
        decoded = decode_arguments(arguments)
        if isinstance(decoded, str):
            return self.text(arguments)
        _check_depth(decoded)
        scrubbed = self.value(decoded)
        return arguments if scrubbed == decoded else arguments_text(scrubbed)

    def refusal(self, refused: UnfaithfulTrace) -> UnfaithfulTrace:
        """`refused` as it may be said: its span (and the name it quotes), its attribute
        and its reason scrubbed as the trace's texts are, since any of them may quote
        the trace. The trace id stays as a fixture's provenance writes it."""
        return UnfaithfulTrace(
            printable(refused.trace_id),
            None if refused.span is None else self.text(refused.span),
            None if refused.attribute is None else self.text(refused.attribute),
            self.text(refused.reason),
        )

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
        if isinstance(scrubbed.get("tool_call_id"), str):
            scrubbed["tool_call_id"] = printable(scrubbed["tool_call_id"])
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
        if isinstance(call.get("id"), str):  # as the reply's call ids are written
            return {**call, "id": printable(call["id"]), "function": scrubbed}
        return {**call, "function": scrubbed}

    def trace(self, trace: ImportedTrace) -> ImportedTrace:
        """`trace` with every text it recorded scrubbed: messages, replies, tool
        arguments and results, the agent's, the service's and the provider's names (the
        first two name the fixture); ids and span names only made encodable (a refusal
        that quotes them is scrubbed: `refusal`). `UnfaithfulTrace` naming the span of
        tool-call arguments nested deeper than a fixture holds."""
        calls = []
        for call in trace.calls:
            try:
                messages = [self.message(message) for message in call.messages]
                reply = self._reply(call.reply)
            except _ArgumentsTooDeep as exc:
                raise exc.refusal(trace.trace_id, call.span_id, call.label) from None
            calls.append(
                replace(
                    call,
                    span_id=printable(call.span_id),
                    label=printable(call.label),
                    offered=None if call.offered is None else [printable(name) for name in call.offered],
                    messages=messages,
                    reply=reply,
                )
            )
        tools = []
        for run in trace.tools:
            try:
                arguments = self.arguments(run.arguments)
            except _ArgumentsTooDeep as exc:
                raise exc.refusal(trace.trace_id, run.span_id, run.name) from None
            tools.append(
                replace(
                    run,
                    span_id=printable(run.span_id),
                    name=printable(run.name),
                    call_id=printable(run.call_id),
                    arguments=arguments,
                    result=None if run.result is None else self.text(run.result),
                )
            )
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


class _ArgumentsTooDeep(ValueError):
    """Tool-call arguments nested deeper than a fixture's free JSON may (`MAX_DEPTH`):
    admission would refuse the fixture, and a report could not write them whole."""

    def refusal(self, trace_id: str, span_id: str, label: str) -> UnfaithfulTrace:
        """The refusal of the trace, naming the span (and its name) that holds them."""
        return UnfaithfulTrace(
            trace_id,
            f"{span_id} ({label})" if label else span_id,
            "arguments",
            f"tool-call arguments nest objects and arrays more than {MAX_DEPTH} levels deep,"
            f" deeper than a fixture holds (its JSON values nest {MAX_DEPTH} levels at most),"
            " so no fixture of it would load",
        )


def _check_depth(arguments: Any) -> None:
    """`_ArgumentsTooDeep` for arguments nested deeper than a fixture holds (found
    without recursion, as `value` walks them)."""
    if too_deep(arguments) is not None:
        raise _ArgumentsTooDeep


@lru_cache(maxsize=64)
def _compiled(pattern: str) -> Any:
    """A `--redact` pattern compiled once, not once per text (`Scrubber.make` checked it)."""
    return compile_regex(pattern)


@dataclass(frozen=True)
class _View:
    """Text with its JSON escapes decoded (`\\u002d` read as `-`, `\\/` as `/`), and
    where each of its characters was written, for `Scrubber._behind_escapes`.

    Where it was written is kept at each escape only: its place in the view and in the
    text it was decoded from, and the same just after it; between two such marks the
    places grow alike. An escape of a surrogate (`\\ud83d`, which `printable` writes for
    a lone one) is left as written, since no pattern reads a surrogate and RE2 cannot."""

    text: str
    at: list[int]
    written: list[int]
    #: The view this one was decoded from (None: the text itself).
    under: _View | None

    @classmethod
    def of(cls, text: str, under: _View | None) -> _View | None:
        """`text` with its escapes decoded once; None when it holds none to decode."""
        pieces: list[str] = []
        at: list[int] = []
        written: list[int] = []
        done = length = 0
        for escape in _JSON_ESCAPE.finditer(text):
            code = escape.group(1)
            if code is not None and 0xD800 <= int(code, 16) <= 0xDFFF:
                continue
            pieces.append(text[done : escape.start()])
            length += escape.start() - done
            pieces.append(chr(int(code, 16)) if code is not None else _ESCAPED[escape.group(2)])
            at += [length, length + 1]
            written += [escape.start(), escape.end()]
            length += 1
            done = escape.end()
        if not at:
            return None
        pieces.append(text[done:])
        return cls("".join(pieces), at, written, under)

    def origin(self, index: int) -> int:
        """Where the character at `index` of the view (or the view's end) begins in the
        text the first view was decoded from."""
        mark = bisect_right(self.at, index) - 1
        found = index if mark < 0 else self.written[mark] + index - self.at[mark]
        return found if self.under is None else self.under.origin(found)


def _overlaps(span: tuple[int, int, str], starts: list[int], ends: list[int]) -> bool:
    """Whether `span` overlaps one of the spans scrubbing wrote (which `starts` and
    `ends` give in order, none overlapping another): the last one to start before it
    ends is the only one that may, so each span is looked up, not compared with all."""
    start, end, _ = span
    last = bisect_right(starts, end - 1) - 1
    return last >= 0 and ends[last] > start


def _merged(found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Spans to replace, in order, those that overlap joined into one (`REDACTED`,
    unless all of them are the same)."""
    merged: list[tuple[int, int, str]] = []
    for start, end, replacement in sorted(found):
        if merged and start < merged[-1][1]:
            first, last, was = merged[-1]
            merged[-1] = (first, max(last, end), was if was == replacement else REDACTED)
        else:
            merged.append((start, end, replacement))
    return merged
