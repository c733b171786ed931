"""A loopback OpenAI-compatible server in front of one case's provider, for an agent that
runs as its own process (`--agent-cmd`).

Each request is answered by the case's recording provider on the harness's event loop
(replayed and checked against the script), through the same endpoint as the in-process
client. The tool results an accepted request feeds back are recorded as the case's
dispatches: the agent ran its tools itself, and the wire is where the harness sees them.
Only accepted requests count: each asks for a new step, so the results it carries (those
of the step before) are new exactly once, and a request the script refused records
nothing. A result counts as failed when it reads as one (`tool_results`).
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Iterator
from threading import Thread

from zeroclaw_eval.boundary.provider import Message, ModelResponse, Provider, ToolSpec
from zeroclaw_eval.boundary.sent import fed_back
from zeroclaw_eval.fixtures.json.text import loads_untrusted
from zeroclaw_eval.tools.toolbox import ToolBox
from zeroclaw_eval.wire.endpoint import Endpoint, Reply, api_of, error_reply, is_models_route, models_reply
from zeroclaw_eval.wire.http import BoundedServer, ReplyHandler

#: Connections one agent command may hold open at once; one more is answered 503. An
#: agent asks the model one request at a time, or a few at once: this many means it opens
#: connections and never closes them (a client made per request, a retry loop), and each
#: would hold a thread of the harness until the case ends.
MAX_CONNECTIONS = 64


class HttpFront:
    """Serves one case's provider on loopback while an agent command runs."""

    def __init__(
        self, provider: Provider, tools: ToolBox, loop: asyncio.AbstractEventLoop, model: str
    ) -> None:
        self._provider = provider
        self._tools = tools
        self._loop = loop
        self._model = model
        self._endpoint = Endpoint()
        self._numbers: Iterator[int] = itertools.count(1)
        self._server = BoundedServer(("127.0.0.1", 0), _handler(self), MAX_CONNECTIONS)
        Thread(target=self._server.serve_forever, args=(0.05,), name="zeroclaw-front", daemon=True).start()

    @property
    def url(self) -> str:
        """The base URL to give the agent (`…/v1`)."""
        return self._server.base_url

    def close(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()

    def answer(self, method: str, path: str, body: bytes) -> Reply:
        """Answer one request (from a handler thread) on the harness's event loop."""
        if is_models_route(method, path):
            return models_reply([self._model])
        if api_of(method, path) is None:
            return error_reply(404, f"no route {method} {path}", "not_found")
        work = self._endpoint.handle(method, path, body, next(self._numbers), self._complete)
        try:
            return asyncio.run_coroutine_threadsafe(work, self._loop).result()
        except RuntimeError as over:  # the case is over: its provider refuses (or the loop is gone)
            return error_reply(409, str(over), "case_over")
        except Exception as exc:  # a request shaped in a way nothing above expected
            return error_reply(
                400, f"malformed request: {type(exc).__name__}: {exc}", "invalid_request_error"
            )

    async def _complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        response = await self._provider.complete(messages, tools)
        for result in fed_back(messages):
            success = inferred_success(result.content)
            self._tools.observe(result.call_id, result.name, result.arguments, result.content, success)
        return response


def _handler(front: HttpFront) -> type[ReplyHandler]:
    class Handler(ReplyHandler):
        def do_GET(self) -> None:
            self.send(front.answer("GET", self.path, b""))

        def do_POST(self) -> None:
            body = self.read_body()
            if body is not None:
                self.send(front.answer("POST", self.path, body))

    return Handler


_FAILED_OPENING = re.compile(
    r"(errors?\b|an error occurred|encountered error|\d+ validation errors?\b)", re.I
)
_FAILED_ENDING = "fix the errors and try again."


def inferred_success(content: str) -> bool:
    """Whether a tool result fed back reads as a success (see the module's rules)."""
    text = content.strip()
    if _FAILED_OPENING.match(text) or text.lower().endswith(_FAILED_ENDING):
        return False
    if text.startswith("{"):
        try:
            data = loads_untrusted(text)
        except ValueError:
            return True
        if isinstance(data, dict) and (
            data.get("error") is not None or data.get("is_error") is True or data.get("isError") is True
        ):
            return False
    return True
