"""The tools of the running case as an MCP server (`[eval].mcp`, `--mcp`): a double of
the MCP servers an agent takes its tools from.

One server per run, on loopback, speaking MCP's streamable HTTP transport through the
official `mcp` SDK (its low-level `Server`, served by uvicorn in a thread of its own).
Cases may run at once (`--jobs`), so each case gets a URL of its own, the server's with
`?case=TOKEN`, which reaches the agent as `ZEROCLAW_EVAL_MCP_URL` (an agent command) or
`AgentContext.mcp_url` (an agent of this process). An agent service, started once for
every case, gets the URL without a token, which is answered by the one case running
(services run one case at a time). Requests are answered with their case's tools:

- `tools/list` offers the case's tools the harness can answer (the built-in and project
  tools it lists, `echo` where it names it, and every tool it doubles), each with its JSON Schema (`{"type":
  "object"}` for a tool known only by its doubles);
- each `tools/call` is dispatched through the case's `ToolBox` on the harness's event loop,
  so it is recorded in the dispatch list every tool check grades, its doubles answer in
  place of its code, and a built-in tool runs in the case workspace;
- a call the case does not script (a tool it does not serve, or a doubled tool no double
  answers) is answered as an MCP tool error and is the case's run error, at the fixture
  field to add it to (`/tools`, or `/tool_doubles/NAME`).

MCP calls carry no model call id: such a dispatch is recorded without one, and the
result an agent command then feeds back to the model takes it over (`ToolBox.observe`)
instead of being recorded twice.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import importlib.util
import itertools
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from zeroclaw_eval._support.json.text import arguments_text
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.errors import ConfigError
from zeroclaw_eval.tools.doubles import answers
from zeroclaw_eval.tools.project import ProjectTool
from zeroclaw_eval.tools.tool import ToolOutcome
from zeroclaw_eval.tools.toolbox import ToolBox

#: What an agent is told to read the server's URL from.
URL_VARIABLE = "ZEROCLAW_EVAL_MCP_URL"
#: How long the server may take to start listening.
_START_SECS = 10.0


class McpTools:
    """The run's MCP server; `begin`/`end` say which case answers."""

    def __init__(self) -> None:
        self._server: Any = None  # uvicorn.Server, made when first needed
        self._thread: threading.Thread | None = None
        self._url = ""
        self._lock = threading.Lock()
        self._cases: dict[str, Served] = {}
        self._tokens = itertools.count(1)

    @property
    def url(self) -> str:
        """The streamable-HTTP endpoint (`http://127.0.0.1:PORT/mcp`), started on first use."""
        with self._lock:
            if self._server is None:
                self._start()
            return self._url

    def begin(self, case: Case, toolbox: ToolBox, loop: asyncio.AbstractEventLoop) -> str:
        """Serve `case`'s tools until `end`; the case's own URL."""
        token = str(next(self._tokens))
        url = self.url
        self._cases[token] = (case, toolbox, loop)
        return f"{url}?case={token}"

    def end(self, toolbox: ToolBox) -> None:
        """The case is over: its tools take no more calls."""
        for token, (_, served, _) in list(self._cases.items()):
            if served is toolbox:
                del self._cases[token]

    def _case(self, context: Any) -> Served | None:
        """The case a request is for: its URL's token, else the one case running."""
        request = getattr(context, "request", None)
        token = request.query_params.get("case") if request is not None else None
        if token is not None:
            return self._cases.get(token)
        running = list(self._cases.values())
        return running[0] if len(running) == 1 else None

    def close(self) -> None:
        """Stop the server: the run is over."""
        with self._lock:
            server, thread, self._server, self._thread = self._server, self._thread, None, None
        if server is not None:
            server.should_exit = True
        if thread is not None:
            thread.join(_START_SECS)

    def _start(self) -> None:
        require_sdk()
        import uvicorn
        from mcp.server.lowlevel.server import Server

        server = Server("zeroclaw-eval", **handlers(self._case))
        # Stateless and JSON: each call stands alone, and nothing is kept between cases.
        app = server.streamable_http_app(stateless_http=True, json_response=True)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        config = uvicorn.Config(app, log_level="critical", lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [listener]}, name="zeroclaw-mcp", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + _START_SECS
        while not self._server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        self._url = f"http://127.0.0.1:{port}/mcp"


#: A case being served: the fixture, its tool box, the event loop its tools run on.
Served = tuple[Case, ToolBox, asyncio.AbstractEventLoop]


def handlers(resolve: Callable[[Any], Served | None]) -> dict[str, Any]:
    """The `tools/list` and `tools/call` handlers of an MCP `Server`, answering with the
    case `resolve` finds for each request (from its context)."""
    import mcp_types as types

    async def list_tools(context: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[types.Tool(**spec) for spec in tool_specs(resolve(context))])

    async def call_tool(context: Any, params: Any) -> Any:
        text, failed = await dispatch(resolve(context), params.name, dict(params.arguments or {}))
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=failed)

    return {"on_list_tools": list_tools, "on_call_tool": call_tool}


def tool_specs(current: Served | None) -> list[dict[str, Any]]:
    """The tools `current` serves, in the shape of MCP's `Tool`."""
    if current is None:
        return []
    return [
        {"name": spec.name, "description": spec.description or spec.name, "input_schema": spec.parameters}
        for spec in current[1].specs()
    ]


async def dispatch(current: Served | None, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    """One MCP call of the `current` case, run by its tool box on its loop: (text, failed).
    A call the case does not script is also noted as its refusal."""
    if current is None:
        return "no case of this run is running at this URL: its case is over, or none has begun", True
    case, toolbox, loop = current
    refusal = _unscripted(case, toolbox, name, arguments)
    work = asyncio.run_coroutine_threadsafe(toolbox.call(name, arguments), loop)
    try:
        outcome = await asyncio.wrap_future(work)
    except RuntimeError as over:  # the case is over: its tools refuse
        return str(over), True
    if refusal is not None:
        toolbox.refuse(*refusal)
    return outcome.content, not outcome.success


def upstream_tools(url: str, setting: str = "[eval].mcp_upstream") -> tuple[ProjectTool, ...]:
    """The tools of the project's own MCP server at `url`, each a project tool whose calls
    are forwarded to it (a session per call), for a live run: they join the run's tools,
    so the live allowlist, the recording and `--record` treat them as any other.
    `ConfigError` when the server cannot be reached or listed."""
    require_sdk()

    async def listed() -> list[Any]:
        async with client_session(url) as session:
            return list((await session.list_tools()).tools)

    try:
        # In a thread of its own: a caller may be inside an event loop already.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            found = pool.submit(asyncio.run, asyncio.wait_for(listed(), _START_SECS)).result()
    except Exception as exc:  # the SDK raises groups and transport errors alike
        raise ConfigError(f"{setting}: cannot list the tools of the MCP server at {url}: {exc}") from None
    return tuple(
        ProjectTool(
            tool.name, tool.description or tool.name, _forwarder(url, tool.name), dict(tool.input_schema)
        )
        for tool in found
    )


def _forwarder(url: str, name: str) -> Callable[..., Any]:
    async def forward(**arguments: Any) -> ToolOutcome:
        async with client_session(url) as session:
            result = await session.call_tool(name, arguments)
        text = "".join(getattr(part, "text", "") for part in result.content)
        return ToolOutcome(text, not result.is_error)

    return forward


@contextlib.asynccontextmanager
async def client_session(url: str) -> AsyncIterator[Any]:
    """An initialized MCP client session with the streamable-HTTP server at `url` (the
    `mcp` SDK's `ClientSession`), closed on exit."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def require_sdk() -> None:
    """`ConfigError` unless the official `mcp` SDK is installed (an extra of its own)."""
    if importlib.util.find_spec("mcp") is None:
        raise ConfigError(
            "[eval].mcp serves tools through the mcp SDK, which is not installed:"
            " pip install 'zeroclaw-eval[mcp]'"
        )


def _unscripted(case: Case, toolbox: ToolBox, name: str, arguments: dict[str, Any]) -> tuple[str, str] | None:
    """Why the case does not script this call, and the fixture field to fix; None if it does."""
    if name not in {spec.name for spec in toolbox.specs()}:
        return (
            f"the agent called the MCP tool {name!r}, which this case does not serve: list it in"
            " tools (a built-in or project tool) or give it tool_doubles",
            "/tools",
        )
    doubles = case.trace.tool_doubles.get(name)
    if doubles and not any(answers(double, arguments) for double in doubles):
        wanted = "; ".join(arguments_text(double.when) for double in doubles)
        return (
            f"the agent called the MCP tool {name} with {arguments_text(arguments)}, which none of"
            f" its doubles answers (they want: {wanted}): the agent asked for something the case"
            " does not expect, or, if such a call is right, the case needs a double whose when"
            " matches it",
            f"/tool_doubles/{name}",
        )
    return None
