"""The live provider: a real model over httpx, on the wire its provider speaks (OpenAI
Chat Completions, Anthropic Messages: the `wire` modules write each request and read each
reply, `CLIENT_WIRES` says which).

Each request has its own timeout; a 429, a 5xx or a dropped connection is retried with
exponential backoff, honouring `Retry-After`; 401/403, 404 and malformed bodies fail at
once with a message that says what to check. The API key is sent in a header and
scrubbed from every message this module produces, so it cannot reach a report.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import httpx

from zeroclaw_eval._support.json.scan import SURROGATE_ESCAPE, encodes, well_formed, well_formed_json
from zeroclaw_eval._support.json.text import loads_untrusted
from zeroclaw_eval._support.redaction import scrub
from zeroclaw_eval.backends.concurrency import AdaptiveLimit, nearly_spent, shared_limit
from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, ToolChoice, ToolSpec
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
from zeroclaw_eval.errors import ProviderError, ReplyValueError, exception_words
from zeroclaw_eval.wire import anthropic, bedrock, chat, gemini
from zeroclaw_eval.wire.base import ClientWire, json_body

#: The wire each kind of provider (`[providers.models.*].kind`) speaks.
CLIENT_WIRES: dict[str, ClientWire] = {
    "openai": chat,
    "anthropic": anthropic,
    "gemini": gemini,
    "bedrock": bedrock,
}

MAX_RETRY_WAIT = 30.0  # seconds; a longer Retry-After is capped (the turn timeout bounds it too)


def retry_after(response: httpx.Response) -> float | None:
    """Seconds the provider asks us to wait (`Retry-After`: seconds or an HTTP date)."""
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class LiveProvider:
    """A `Provider` that asks a real model. The request's shape, its URL, its key's header
    and the reply's reading are its wire's (`CLIENT_WIRES`); the retries, limits and
    messages are every wire's."""

    def __init__(
        self,
        settings: ProviderSettings,
        api_key: str,
        client: httpx.AsyncClient,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        backoff_secs: float = 0.5,
        limit: AdaptiveLimit | None = None,
    ) -> None:
        self._settings = settings
        self._limit = limit
        self._key = api_key
        self._client = client
        self._sleep = sleep
        self._backoff = backoff_secs
        self._wire = CLIENT_WIRES[settings.kind]
        self._url = self._wire.client_url(settings.base_url, settings.model)

    def _fail(self, message: str) -> ProviderError:
        return ProviderError(scrub(message, [self._key]))

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        """One chat completion, retried on 429, 5xx and connection failures."""
        settings = self._settings
        headers = {**settings.headers, **self._wire.client_headers(self._key)}
        body = self._wire.client_request(
            settings.model,
            messages,
            tools,
            choice,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
        )
        attempts = self._settings.max_retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                response = await self._limited(body, headers)
            except httpx.TransportError as exc:
                if last:
                    raise self._fail(
                        f"cannot reach {self._url} after {attempts} attempt(s): {exception_words(exc)}"
                    ) from None
                await self._sleep(self._backoff * 2**attempt)
                continue
            status = response.status_code
            if (status == 429 or status >= 500) and not last:
                wait = retry_after(response)
                await self._sleep(
                    min(wait if wait is not None else self._backoff * 2**attempt, MAX_RETRY_WAIT)
                )
                continue
            if status >= 400:
                raise self._fail(self._explain(response, attempts if status == 429 or status >= 500 else 1))
            return self._parse(response)
        raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover

    async def _limited(self, body: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
        """`_post` within the provider's adaptive limit (`backends.concurrency`), which the
        reply tells whether to grow or halve. A backoff between attempts holds no room."""
        if self._limit is None:
            return await self._post(body, headers)
        generation = await self._limit.acquire()
        throttled = succeeded = False
        try:
            response = await self._post(body, headers)
            status = response.status_code
            throttled = status == 429 or nearly_spent(response.headers)
            succeeded = status < 400
            return response
        finally:
            self._limit.release(generation, throttled=throttled, succeeded=succeeded)

    def _explain(self, response: httpx.Response, attempts: int) -> str:
        status = response.status_code
        detail = _error_message(response, self._key)
        where = f"{self._url} (model {self._settings.model!r})"
        if status in (401, 403):
            variable = self._settings.api_key_env or "the api_key_env variable"
            return f"authentication failed (HTTP {status}) at {where}: check the key in ${variable}{detail}"
        if status == 404:
            return f"not found (HTTP 404) at {where}: check base_url and model{detail}"
        tries = f" after {attempts} attempt(s)" if attempts > 1 else ""
        return f"the provider answered HTTP {status}{tries} at {where}{detail}"

    async def _post(self, body: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
        """The provider's reply, read whole up to `MAX_RESPONSE_BYTES` (decoded): past that
        it is a `ProviderError`, never held in memory, whatever a server (or a proxy gone
        wrong) sends."""
        timeout = self._settings.request_timeout_secs
        # Not httpx's `json=`: it cannot encode a lone surrogate (a tool's result, or an
        # answer sent to the judge, may hold one), and the run would end in a traceback.
        # `json_body` writes it as its JSON escape; the provider says whether it takes it.
        content = json_body(body)
        # Signed on each attempt (a signature holds its time), where the API wants one.
        headers = self._wire.client_signed(
            self._url, {"Content-Type": "application/json", **headers}, content, self._key
        )
        async with self._client.stream(
            "POST", self._url, content=content, headers=headers, timeout=timeout
        ) as streamed:
            chunks: list[bytes] = []
            size = 0
            async for chunk in streamed.aiter_bytes():
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    raise self._fail(
                        f"the reply from {self._url} (HTTP {streamed.status_code}) is over"
                        f" {MAX_RESPONSE_BYTES:,} bytes: no chat completion is that large"
                    )
                chunks.append(chunk)
        # What the rest reads (status, headers, text) as a reply read whole, minus the
        # content encoding, already undone.
        headers_kept = [(k, v) for k, v in streamed.headers.multi_items() if k.lower() != "content-encoding"]
        return httpx.Response(
            streamed.status_code, headers=headers_kept, content=b"".join(chunks), request=streamed.request
        )

    def _parse(self, response: httpx.Response) -> ModelResponse:
        try:
            data = loads_untrusted(response.content)
        except ValueError:
            raise self._fail(f"malformed response from {self._url}: the body is not JSON") from None
        try:
            reply = self._wire.read_reply(data)
        except ReplyValueError as exc:
            raise self._fail(f"malformed response from {self._url}: {exc}") from None
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            raise self._fail(
                f"malformed response from {self._url}: {self._wire.SHAPE} ({exception_words(exc)})"
            ) from None
        return _well_formed(reply)


def _well_formed(reply: ModelResponse) -> ModelResponse:
    """`reply` with each lone surrogate replaced by U+FFFD (a JSON escape like `\\ud800`
    that no UTF-8 text holds: in its text, or escaped in its tool-call arguments), where it
    enters the run: the agent, the judge, every report and a fixture `--record` writes
    then read the same text, and the fixture passes the admission that refuses such text
    in a hand-written one."""
    texts = [reply.content or ""]
    texts += [part for call in reply.tool_calls for part in (call.id, call.name, call.arguments)]
    if all(encodes(text) and not SURROGATE_ESCAPE.search(text) for text in texts):
        return reply
    calls = tuple(
        replace(
            call,
            id=well_formed(call.id),
            name=well_formed(call.name),
            arguments=well_formed_json(call.arguments),
        )
        for call in reply.tool_calls
    )
    content = None if reply.content is None else well_formed(reply.content)
    return replace(reply, content=content, tool_calls=calls)


#: The largest reply read from the provider, decoded: a chat completion is some KiB, a
#: long one with many tool calls perhaps a MiB; past this it is no model's answer.
MAX_RESPONSE_BYTES = 64 * 1024 * 1024

#: Characters of a provider's error message kept in a `ProviderError` (whitespace collapsed).
MAX_ERROR_DETAIL = 300


def _error_message(response: httpx.Response, key: str) -> str:
    try:
        error = loads_untrusted(response.content).get("error")
        message = error.get("message") if isinstance(error, dict) else error
    except (ValueError, AttributeError):
        message = response.text
    if not message:
        return ""
    # Scrubbed before it is collapsed and cut: a key cut in two at the limit, or with its
    # whitespace collapsed, would no longer match and would leak in part.
    text = " ".join(scrub(str(message), [key]).split())
    return f": {text[:MAX_ERROR_DETAIL]}"


@asynccontextmanager
async def live_provider(
    options: LiveOptions, *, connections: int = 2, limit: AdaptiveLimit | None = None
) -> AsyncIterator[LiveProvider]:
    """The configured provider over one HTTP client, closed on exit; `connections` bounds
    the connections open at once (two per case running at once), `limit` (the run's, for
    this provider) the requests."""
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=connections)) as client:
        yield LiveProvider(options.provider, options.api_key, client, limit=limit)


def provider_limit(limits: dict[str, AdaptiveLimit], settings: ProviderSettings) -> AdaptiveLimit:
    """The run's adaptive limit of the provider `settings` name (`shared_limit`)."""
    return shared_limit(limits, settings.model, settings.base_url, settings.max_concurrency)
