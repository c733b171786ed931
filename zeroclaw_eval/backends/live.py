"""The live provider: OpenAI chat completions or Anthropic messages with tools, over httpx.

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
from typing import Any

import httpx

from zeroclaw_eval._support.json.text import arguments_text, loads_untrusted
from zeroclaw_eval._support.redaction import scrub
from zeroclaw_eval.boundary.provider import (
    AUTO,
    Message,
    ModelResponse,
    ToolCallRequest,
    ToolChoice,
    ToolSpec,
)
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
from zeroclaw_eval.errors import ProviderError, exception_words
from zeroclaw_eval.wire import anthropic
from zeroclaw_eval.wire.chat import chat_tool_choice

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


class OpenAIProvider:
    """A `Provider` that asks an OpenAI-compatible `/chat/completions` endpoint. The
    request's shape, its URL, its key's header and the reply's reading are the API's;
    the retries, limits and messages are every API's (`AnthropicProvider`)."""

    #: What a reply that cannot be read is not, for the error that says so.
    shape = "no choices[0].message of the chat-completions shape"

    def __init__(
        self,
        settings: ProviderSettings,
        api_key: str,
        client: httpx.AsyncClient,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        backoff_secs: float = 0.5,
    ) -> None:
        self._settings = settings
        self._key = api_key
        self._client = client
        self._sleep = sleep
        self._backoff = backoff_secs
        self._url = self._endpoint(settings.base_url.rstrip("/"))

    def _endpoint(self, base_url: str) -> str:
        return base_url + "/chat/completions"

    def _auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._key}"} if self._key else {}

    def _fail(self, message: str) -> ProviderError:
        return ProviderError(scrub(message, [self._key]))

    def _body(self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self._settings.model, "messages": messages}
        if tools:
            body["tools"] = [tool.as_openai() for tool in tools]
            # What the agent asked of the model reaches the model.
            if choice != AUTO:
                body["tool_choice"] = chat_tool_choice(choice)
            if not choice.parallel:
                body["parallel_tool_calls"] = False
        if self._settings.temperature is not None:
            body["temperature"] = self._settings.temperature
        if self._settings.max_tokens is not None:
            body["max_tokens"] = self._settings.max_tokens
        return body

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        """One chat completion, retried on 429, 5xx and connection failures."""
        headers = {**self._settings.headers, **self._auth()}
        body = self._body(messages, tools, choice)
        attempts = self._settings.max_retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                response = await self._post(body, headers)
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
        async with self._client.stream(
            "POST", self._url, json=body, headers=headers, timeout=timeout
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
            return self._read(data)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            raise self._fail(
                f"malformed response from {self._url}: {self.shape} ({exception_words(exc)})"
            ) from None

    def _read(self, data: Any) -> ModelResponse:
        """The reply of a chat completion `data`; an exception when it is not one."""
        message = data["choices"][0]["message"]
        calls = tuple(
            ToolCallRequest(
                str(call.get("id") or f"call_{index}"),
                str(call["function"]["name"]),
                arguments_text(call["function"].get("arguments")),
            )
            for index, call in enumerate(message.get("tool_calls") or ())
        )
        usage = data.get("usage") or {}
        content = message.get("content")
        return ModelResponse(
            content if isinstance(content, str) else None,
            calls,
            int(usage.get("prompt_tokens") or 0),
            int(usage.get("completion_tokens") or 0),
        )


class AnthropicProvider(OpenAIProvider):
    """A `Provider` that asks Anthropic's Messages API (`wire.anthropic` translates the
    conversation both ways): the key in `x-api-key`, the API version pinned, and
    `max_tokens`, which the API requires, 4096 unless the table sets it."""

    shape = "no content list of the Messages API shape"
    #: The API version the request shapes here are written against.
    VERSION = "2023-06-01"
    DEFAULT_MAX_TOKENS = 4096

    def _endpoint(self, base_url: str) -> str:
        # The SDKs' base URL has no /v1 (they add it); one that ends in it is taken as meant.
        return base_url + ("/messages" if base_url.endswith("/v1") else "/v1/messages")

    def _auth(self) -> dict[str, str]:
        key = {"x-api-key": self._key} if self._key else {}
        return {"anthropic-version": self.VERSION, **key}

    def _body(self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice) -> dict[str, Any]:
        settings = self._settings
        body: dict[str, Any] = {
            "model": settings.model,
            "max_tokens": settings.max_tokens or self.DEFAULT_MAX_TOKENS,
            **anthropic.messages_request(messages, tools, choice),
        }
        if settings.temperature is not None:
            body["temperature"] = settings.temperature
        return body

    def _read(self, data: Any) -> ModelResponse:
        return anthropic.parsed_message(data)


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
async def live_provider(options: LiveOptions, *, connections: int = 2) -> AsyncIterator[OpenAIProvider]:
    """The configured provider over one HTTP client, closed on exit; `connections` bounds
    the requests open at once (two per case running at once)."""
    kind = AnthropicProvider if options.provider.kind == "anthropic" else OpenAIProvider
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=connections)) as client:
        yield kind(options.provider, options.api_key, client)
