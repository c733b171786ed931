"""OpenAI, Anthropic and Gemini clients for the agent under test: the official SDKs (or
any client built on httpx) talking to the harness's provider in-process.

An agent built on the `openai`, `anthropic` or `google-genai` SDK, or on a framework that
uses one, keeps its client and swaps only the HTTP layer: a Chat Completions, Responses,
Messages or `generateContent` request, plain or streamed, goes to `context.provider`
(the replay script, or the live provider, recorded either way) and its reply comes back
in the shape the SDK expects
(`wire.endpoint`). What the harness refuses (a request that leaves the script) is an
HTTP 400 with the reason, which the SDK raises as its own error without retrying.
"""

from __future__ import annotations

import importlib
from typing import Any

import httpx

from zeroclaw_eval.boundary.provider import Provider
from zeroclaw_eval.errors import EvalError
from zeroclaw_eval.wire.base import Reply
from zeroclaw_eval.wire.endpoint import Endpoint, refusal, route_of, too_large

#: The base URL to give the OpenAI SDK: the host is never resolved, the transport answers.
BASE_URL = "http://zeroclaw.invalid/v1"
#: The one to give the Anthropic SDK, which adds `/v1` itself.
ANTHROPIC_BASE_URL = "http://zeroclaw.invalid"
#: The one to give google-genai, which adds its API version itself.
GEMINI_BASE_URL = "http://zeroclaw.invalid"


def openai_http_client(provider: Provider) -> Any:
    """An async HTTP client whose chat completions and responses `provider` answers, for
    the `openai` SDK: `AsyncOpenAI(api_key="replay", base_url=BASE_URL, http_client=...)`.

    It is a client of the HTTP library the installed SDK is written against (`httpx2`
    in recent releases, `httpx` before; both share one API): the SDK accepts no other.
    """
    return _client(provider, _http_library("openai"), BASE_URL)


def anthropic_http_client(provider: Provider) -> Any:
    """An async HTTP client whose messages `provider` answers, for the `anthropic` SDK:
    `AsyncAnthropic(api_key="replay", base_url=ANTHROPIC_BASE_URL, http_client=...)`
    (a client of the HTTP library that SDK is written against, as for OpenAI's)."""
    return _client(provider, _http_library("anthropic"), ANTHROPIC_BASE_URL)


def gemini_http_client(provider: Provider) -> Any:
    """An async HTTP client whose `generateContent` requests `provider` answers, for
    google-genai (and Google ADK on it): `genai.Client(api_key="replay",
    http_options=types.HttpOptions(base_url=GEMINI_BASE_URL, httpx_async_client=...))`.
    google-genai takes a client of either HTTP library and says which it holds; httpx
    is the one it always has."""
    return _client(provider, httpx, GEMINI_BASE_URL)


def _client(provider: Provider, http: Any, base_url: str) -> Any:
    endpoint = Endpoint()

    async def answer(method: str, path: str, body: bytes) -> Reply:
        # The endpoint's one request path, as the HTTP fronts take it (no model list here:
        # the agent names its own model).
        taken = too_large(len(body), api=route_of(method, path)) or endpoint.take(method, path, body, None)
        if isinstance(taken, Reply):
            return taken
        try:
            response = await provider.complete(taken.messages, taken.tools, taken.choice)
        except EvalError as refused:  # the request left the script
            return refusal(refused, taken.api)
        return endpoint.reply(taken, response)

    class ProviderTransport(http.AsyncBaseTransport):  # type: ignore[misc]
        async def handle_async_request(self, request: Any) -> Any:
            # The path with its query: Gemini's `?alt=sse` says how to stream.
            path = request.url.raw_path.decode("ascii", "replace")
            reply = await answer(request.method, path, await request.aread())
            headers = {"content-type": reply.content_type, **reply.headers}
            return http.Response(reply.status, content=reply.body, headers=headers)

    return http.AsyncClient(transport=ProviderTransport(), base_url=base_url)


def _http_library(sdk: str) -> Any:
    """The HTTP module the installed `sdk` (`openai`, `anthropic`) imports; `httpx`
    without the SDK (another httpx-based client may still use this one)."""
    try:
        _base_client = importlib.import_module(f"{sdk}._base_client")
    except ImportError:
        return httpx
    # Not "httpx2 when installed": an older SDK beside a newer library still wants httpx.
    return getattr(_base_client, "httpx2", None) or getattr(_base_client, "httpx", None) or httpx
