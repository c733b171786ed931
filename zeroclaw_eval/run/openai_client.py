"""An OpenAI client for the agent under test: the official SDK (or any client built on
httpx) talking to the harness's provider in-process.

An agent built on the `openai` SDK, or on a framework that uses it, keeps its client
and swaps only the HTTP layer: a chat-completions request goes to `context.provider`
(the replay script, or the live provider, recorded either way) and its reply comes back
as the chat-completion body the SDK expects. What the harness refuses (a request that
leaves the script) is an HTTP 400 with the reason, which the SDK raises as its own
error without retrying.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import httpx

from zeroclaw_eval.errors import EvalError
from zeroclaw_eval.run.openai_wire import completion, error_body, offered_specs
from zeroclaw_eval.run.provider import Provider

#: The base URL to give the SDK: the host is never resolved, the transport answers.
BASE_URL = "http://zeroclaw.invalid/v1"


async def answer(provider: Provider, method: str, path: str, body: bytes, number: int) -> tuple[int, Any]:
    """The status and JSON body that answer one request of an OpenAI client."""
    if method != "POST" or not path.endswith("/chat/completions"):
        return 404, error_body(404, f"no route {method} {path}", "not_found")
    try:
        request: Any = json.loads(body)
        messages, tools, model = request["messages"], request.get("tools"), str(request.get("model", ""))
    except (ValueError, TypeError, KeyError):
        return 400, error_body(
            400, "the request body is not a chat-completions request", "invalid_request_error"
        )
    if request.get("stream"):
        return 400, error_body(
            400,
            "streaming is not supported here: send the request without stream=True",
            "invalid_request_error",
        )
    try:
        reply = await provider.complete(messages, offered_specs(tools))
    except EvalError as refused:  # a request that left the script: the client must not retry it
        return 400, error_body(400, str(refused), "divergence")
    return 200, completion(reply, model, number)


def openai_http_client(provider: Provider) -> Any:
    """An async HTTP client whose chat completions `provider` answers, for the `openai`
    SDK: `AsyncOpenAI(api_key="replay", base_url=BASE_URL, http_client=...)`.

    It is a client of the HTTP library the installed SDK is written against (`httpx2`
    in recent releases, `httpx` before; both share one API): the SDK accepts no other.
    """
    http: Any = _http_library()
    numbers = itertools.count(1)

    class ProviderTransport(http.AsyncBaseTransport):  # type: ignore[misc]
        async def handle_async_request(self, request: Any) -> Any:
            status, body = await answer(
                provider, request.method, request.url.path, await request.aread(), next(numbers)
            )
            return http.Response(status, json=body)

    return http.AsyncClient(transport=ProviderTransport(), base_url=BASE_URL)


def _http_library() -> Any:
    """The HTTP module the installed `openai` imports; `httpx` without the SDK (another
    httpx-based client may still use this one)."""
    try:
        from openai import _base_client
    except ImportError:
        return httpx
    # Not "httpx2 when installed": an older SDK beside a newer library still wants httpx.
    return getattr(_base_client, "httpx2", None) or getattr(_base_client, "httpx", None) or httpx
