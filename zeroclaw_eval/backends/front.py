"""A loopback OpenAI-compatible server in front of one case's provider, for an agent that
runs as its own process (`--agent-cmd`).

Each request takes the endpoint's one request path (`wire.endpoint`) and is answered by
the case's recording provider on the harness's event loop (replayed and checked against
the script). The tool results an accepted request feeds back are recorded as the case's
dispatches: the agent ran its tools itself, and the wire is where the harness sees them.
Only accepted requests count: each asks for a new step, so the results it carries (those
of the step before) are new exactly once, and a request the script refused records
nothing.

Such an agent says how a call went in the result it sends the model: a result the
Anthropic Messages API marks `is_error` failed; otherwise the harness infers it from the
text, in the words the common frameworks use (`boundary.sent.inferred_success`). What it
called is what the model asked for: each recorded dispatch takes the tool and arguments
of the model's call with that id, never the agent's echo of it. (An echo with another
tool or other arguments never gets here: the script's walk refuses the request first,
and an agent of its own process runs in replay only.)
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from threading import Thread

from zeroclaw_eval.agent.results import is_result_of, said, said_back
from zeroclaw_eval.boundary.provider import Provider, ToolCallRequest
from zeroclaw_eval.boundary.sent import FedBack, fed_back, inferred_success
from zeroclaw_eval.boundary.text_echo import ToolEcho
from zeroclaw_eval.errors import EvalError
from zeroclaw_eval.tools.toolbox import ToolBox
from zeroclaw_eval.wire.base import Reply, WireRequest
from zeroclaw_eval.wire.endpoint import NO_CASE_STATUS, Endpoint, error_reply, refusal
from zeroclaw_eval.wire.http import EndpointServer
from zeroclaw_eval.wire.limits import FRONT_CONNECTIONS


class CaseFront:
    """Answers one case's model requests: the endpoint's parsing, the case's provider on
    the harness's event loop, and the tool results each accepted request feeds back
    recorded as dispatches. A server (`HttpFront`, or an agent service's, which serves
    case after case) hands it each request."""

    def __init__(
        self,
        provider: Provider,
        tools: ToolBox,
        loop: asyncio.AbstractEventLoop,
        model: str,
        echo: ToolEcho = "messages",
    ) -> None:
        self._provider = provider
        self._tools = tools
        self._loop = loop
        self._model = model
        # `echo`: how the agent writes its tool calls and results (`[eval].tool_echo`).
        self._endpoint = Endpoint(echo)
        #: The first request the endpoint refused before the script saw it (a body it
        #: cannot read, an item it does not know, a route it does not serve), in words: an
        #: agent that then exits says only its exit code, so the case's error says this.
        self.refused: str | None = None
        #: How many calls were recorded when the last reply was sent: the MCP calls made
        #: for its tool calls come after.
        self._mark = 0
        #: The turn of the last request answered.
        self._turn = -1
        #: The tool calls of the last reply, by id: what the model asked for.
        self._asked: dict[str, ToolCallRequest] = {}

    def answer(self, method: str, path: str, body: bytes) -> Reply:
        """Answer one request (from a handler thread), the model's answer on the harness's
        event loop."""
        taken = self._endpoint.take(method, path, body, [self._model])
        if isinstance(taken, Reply):
            if taken.status >= 400 and self.refused is None:
                self.refused = (
                    f"the harness answered its {method} {path} with HTTP {taken.status}: {taken.error}"
                )
            return taken
        work = self._complete(taken)
        try:
            return asyncio.run_coroutine_threadsafe(work, self._loop).result()
        except RuntimeError as over:  # the case is over: its provider refuses (or the loop is gone)
            return error_reply(NO_CASE_STATUS, str(over), "case_over", api=taken.api)

    async def _complete(self, request: WireRequest) -> Reply:
        results = self._as_asked(fed_back(request.messages))
        claims, problem = self._mcp_claims(results)
        if problem is not None:
            return error_reply(400, problem, "result_changed", api=request.api)
        try:
            response = await self._provider.complete(request.messages, request.tools, request.choice)
        except EvalError as refused:  # the request left the script
            return refusal(refused, request.api)
        # The first request of a turn: the results it carries (read from the text that
        # carries the new input, `boundary.text_echo`) close the turn before, whose model
        # never saw them (smolagents' final answer); as a structured request's would not.
        opens_turn, self._turn = self._tools.turn != self._turn, self._tools.turn
        for result in results:
            if result.call_id in claims:
                self._tools.claim(claims[result.call_id], result.call_id)
                continue
            if opens_turn:
                continue
            success = not result.failed and inferred_success(result.content)
            self._tools.observe(result.call_id, result.name, result.arguments, result.content, success)
        # The calls the agent makes for this reply's tool calls are recorded from here on.
        self._mark = self._tools.recorded
        self._asked = {call.id: call for call in response.tool_calls}
        return self._endpoint.reply(request, response)

    def _as_asked(self, results: list[FedBack]) -> list[FedBack]:
        """`results`, each with the tool and arguments of the model's call it answers (as
        the agent echoed them, where the last reply made no call of that id), in the
        order the model made the calls: a call's `call_index` counts in that order,
        whichever order the agent's tools finished or its results were sent in."""
        asked = self._asked
        order = {call_id: index for index, call_id in enumerate(asked)}
        ordered = sorted(results, key=lambda result: order.get(result.call_id, len(order)))
        return [
            result
            if result.call_id not in asked
            else replace(result, name=asked[result.call_id].name, arguments=asked[result.call_id].arguments)
            for result in ordered
        ]

    def _mcp_claims(self, results: list[FedBack]) -> tuple[dict[str, int], str | None]:
        """Which of the calls the harness's MCP server ran since the last reply each result
        sent back answers (by call id), each call answering one result at most; or the
        case's refusal of a result that is no such call's (the rule an agent of this
        process is held to, `agent.results`): a changed result, or one for a tool the
        server serves that no MCP call since the last reply returned (made up, cached,
        or a tool of the agent's own by that name). The agent's own tools are out of
        reach: what it sends back is all the harness sees of them."""
        tools, turn = self._tools, self._tools.turn
        claims: dict[str, int] = {}
        for result in results:
            where = f"the result sent to the model for {result.name} (call {result.call_id})"
            index = tools.unclaimed(
                result.name, result.arguments, since=self._mark, taken=set(claims.values())
            )
            if index is not None:
                ran = tools.dispatch_at(index)
                if is_result_of(result, ran):
                    claims[result.call_id] = index
                    continue
                problem = (
                    f"{where} is not what the MCP tool returned: the tool returned {said(ran)},"
                    f" the request sends {said_back(result)}"
                )
            elif tools.serves(result.name) and not tools.ran(result.call_id):
                problem = (
                    f"{where} was returned by no call to the MCP server since the model asked for it,"
                    f" which serves {result.name}: the agent made it up, reused an earlier result, or"
                    " ran a tool of its own"
                )
            else:
                continue
            tools.refuse(problem, f"/turns/{turn}")
            return claims, f"turn {turn + 1}: {problem}"
        return claims, None


class HttpFront(CaseFront):
    """Serves one case's provider on loopback while an agent command runs."""

    def __init__(
        self,
        provider: Provider,
        tools: ToolBox,
        loop: asyncio.AbstractEventLoop,
        model: str,
        echo: ToolEcho = "messages",
    ) -> None:
        super().__init__(provider, tools, loop, model, echo)
        self._server = EndpointServer(("127.0.0.1", 0), self.answer, slots=FRONT_CONNECTIONS)
        Thread(target=self._server.serve_forever, args=(0.05,), name="zeroclaw-front", daemon=True).start()

    @property
    def url(self) -> str:
        """The base URL to give the agent (`…/v1`)."""
        return self._server.base_url

    def close(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()
