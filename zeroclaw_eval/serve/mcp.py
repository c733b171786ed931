"""`zeroclaw eval mcp`: the MCP double on stdio, for an agent whose MCP configuration
launches its servers as commands.

Two ways, by where it runs:

- **Under a run** (`--url`, by default `ZEROCLAW_EVAL_MCP_URL`): a bridge. Each
  `tools/list` and `tools/call` is forwarded to the run's MCP server
  (`tools.mcp.McpTools`), which answers with the running case's tools and records every
  call; the bridge itself holds nothing. MCP clients start stdio servers with a few
  safe environment variables only, so the agent's configuration passes the URL on
  (`--url "$ZEROCLAW_EVAL_MCP_URL"`, or the variable in the server's `env`).
- **Alone** (a FIXTURE, no URL): the fixture's tools, as `zeroclaw eval serve` serves its
  model replies: the built-in and project tools it lists and its doubles, run in a
  temporary workspace, nothing graded; a call the fixture does not script is answered
  as an MCP tool error that names the field to fix.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.tools.builtin import BuiltinOffer, offered_names, tools_for_case
from zeroclaw_eval.tools.doubles import with_doubles
from zeroclaw_eval.tools.mcp import URL_VARIABLE, Served, client_session, handlers, require_sdk
from zeroclaw_eval.tools.project import ProjectTool, toolset
from zeroclaw_eval.tools.sandbox import case_workspace
from zeroclaw_eval.tools.toolbox import ToolBox


def serve_mcp(
    url: str | None,
    case: Case | None,
    project_tools: tuple[ProjectTool, ...],
    builtin_tools: BuiltinOffer = "named",
) -> None:
    """Serve on stdio until stdin closes: a bridge to the run's server at `url` (by
    default `ZEROCLAW_EVAL_MCP_URL`, when no `case` is given), else `case`'s tools alone.
    `UsageError` when there is nothing to serve, or both are given."""
    require_sdk()
    url = url or (os.environ.get(URL_VARIABLE) if case is None else None)
    if url and case is not None:
        raise UsageError("give a FIXTURE (its tools alone) or --url (a run's server), not both")
    if url:
        asyncio.run(bridge(url))
    elif case is not None:
        asyncio.run(alone(case, project_tools, builtin_tools))
    else:
        raise UsageError(
            "nothing to serve: give a FIXTURE, or --url (under zeroclaw eval run --mcp,"
            f" {URL_VARIABLE} holds it)"
        )


async def bridge(url: str) -> None:
    """Serve MCP on stdio, forwarding every tool request to the run's server at `url`."""
    require_sdk()
    from mcp.server.lowlevel.server import Server

    async with client_session(url) as run:

        async def list_tools(context: Any, params: Any) -> Any:
            return await run.list_tools()

        async def call_tool(context: Any, params: Any) -> Any:
            return await run.call_tool(params.name, dict(params.arguments or {}))

        await _serve_stdio(Server("zeroclaw-eval", on_list_tools=list_tools, on_call_tool=call_tool))


async def alone(
    case: Case, project_tools: tuple[ProjectTool, ...], builtin_tools: BuiltinOffer = "named"
) -> None:
    """Serve MCP on stdio with the tools of `case` (see the module), until stdin closes."""
    require_sdk()
    from mcp.server.lowlevel.server import Server

    available = with_doubles(toolset(project_tools), case.trace.tool_doubles, any_name=True)
    with case_workspace(case.trace) as workspace:
        names = offered_names(case.trace, case.trace.tools, builtin_tools=builtin_tools)
        toolbox = ToolBox(tools_for_case(names, available), RunRecord(), workspace)
        served: Served = (case, toolbox, asyncio.get_running_loop())
        await _serve_stdio(Server("zeroclaw-eval", **handlers(lambda context: served)))


async def _serve_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
