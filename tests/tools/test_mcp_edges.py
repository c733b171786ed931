"""`zeroclaw_eval.tools.mcp` at its edges: the server answers as soon as its URL is given,
on a port of its own, and never keeps a run alive; closing it is harmless however often and
bounded while a call hangs; the project's own MCP server (a real one, the SDK's low-level
`Server`) is proxied with only its text and blamed on the setting that named it. Spoken to
through the official `mcp` SDK's client over streamable HTTP on loopback, as `test_mcp.py`
does."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.asgi_server import LoopbackApp
from tests.support.builders import admit_with_project_tools, text_step
from tests.tools.test_mcp import called
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.errors import ConfigError
from zeroclaw_eval.tools import mcp as mcp_module
from zeroclaw_eval.tools.mcp import McpTools, upstream_tools
from zeroclaw_eval.tools.project import ProjectTool
from zeroclaw_eval.tools.toolbox import ToolBox

pytest.importorskip("mcp")


def _unused_url() -> str:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{unused.getsockname()[1]}/mcp"


def test_an_unreachable_upstream_named_by_no_setting_is_blamed_on_eval_mcp_upstream() -> None:
    nowhere = _unused_url()
    with pytest.raises(ConfigError) as raised:
        upstream_tools(nowhere)
    assert str(raised.value).startswith(
        f"[eval].mcp_upstream: cannot list the tools of the MCP server at {nowhere}: "
    )


def test_the_url_answers_at_once_when_it_is_given() -> None:
    # An agent is started with the URL right away: the server must be listening by then.
    tools = McpTools()
    try:
        port = int(tools.url.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
    finally:
        tools.close()


def test_the_server_is_ready_without_waiting_out_its_start_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # The bound is how long a server that never starts is waited for, not a delay.
    monkeypatch.setattr(mcp_module, "_START_SECS", 30.0)
    tools = McpTools()
    started = time.monotonic()
    try:
        assert tools.url.startswith("http://127.0.0.1:")
        assert time.monotonic() - started < 15
    finally:
        tools.close()


def test_two_servers_at_once_each_listen_on_a_port_of_their_own() -> None:
    # Runs side by side (two gates on one machine, or two in one process) must not collide.
    first, second = McpTools(), McpTools()
    try:
        urls = [first.url, second.url]
        assert urls[0] != urls[1]
        for url in urls:
            with socket.create_connection(("127.0.0.1", int(url.split(":")[2].split("/")[0])), timeout=2):
                pass
    finally:
        first.close()
        second.close()


def test_closing_a_server_never_started_or_closed_already_is_harmless() -> None:
    unused = McpTools()
    unused.close()
    unused.close()
    used = McpTools()
    assert used.url.startswith("http://127.0.0.1:")
    used.close()
    used.close()


def test_a_run_that_never_closes_its_server_still_exits() -> None:
    # The server's thread must not keep the process alive after the run (a crash skips close).
    # Run from the root of the tree this test is in, which imports that tree's package (and
    # under mutation testing, the mutated copy, where its runner's configuration is found).
    script = "from zeroclaw_eval.tools.mcp import McpTools; print(McpTools().url)"
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            cwd=Path(__file__).resolve().parents[2],
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the process did not exit while its MCP server was still open")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("http://127.0.0.1:")


def test_closing_the_run_gives_up_on_a_call_still_in_flight_in_bounded_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # An agent's call the case never answers must not hang the end of the run.
    entered, release = threading.Event(), threading.Event()

    async def slow() -> str:
        entered.set()
        while not release.is_set():
            await asyncio.sleep(0.01)
        return "done"

    fixture = {
        "model_name": "slow",
        "tools": ["slow"],
        "turns": [{"user_input": "Wait", "steps": [text_step("Waited.")]}],
        "expects": {"response_contains": ["Waited"]},
    }
    case = admit_with_project_tools(tmp_path, fixture)
    toolbox = ToolBox({"slow": ProjectTool("slow", "A slow tool.", slow).as_tool()}, RunRecord())
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    tools = McpTools()
    url = tools.begin(case, toolbox, loop)

    def call() -> None:
        # The client may fail once the server is gone; only the server's close is judged.
        with contextlib.suppress(BaseException):
            asyncio.run(called(url, "slow", {}))

    caller = threading.Thread(target=call, daemon=True)
    caller.start()
    try:
        assert entered.wait(30), "the call never reached the tool"
        monkeypatch.setattr(mcp_module, "_START_SECS", 0.5)
        closer = threading.Thread(target=tools.close, daemon=True)
        closer.start()
        closer.join(5)
        assert not closer.is_alive(), "close() waited on the call in flight"
    finally:
        release.set()
        caller.join(30)
        loop.call_soon_threadsafe(loop.stop)


class _Upstream:
    """A project's MCP server whose one tool, `snapshot`, answers with the given parts."""

    def __init__(self, parts: list[Any]) -> None:
        import mcp_types as types
        from mcp.server.lowlevel.server import Server

        async def list_tools(context: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=[types.Tool(name="snapshot", input_schema={"type": "object"})])

        async def call_tool(context: Any, params: Any) -> Any:
            return types.CallToolResult(content=parts)

        app = Server("shop", on_list_tools=list_tools, on_call_tool=call_tool).streamable_http_app(
            stateless_http=True, json_response=True
        )
        self._served = LoopbackApp(app)
        self.url = self._served.url

    def close(self) -> None:
        self._served.close()


@pytest.fixture
def picture() -> Iterator[_Upstream]:
    import mcp_types as types

    parts = [
        types.TextContent(type="text", text="a chart: "),
        types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
        types.TextContent(type="text", text="sales up"),
    ]
    shop = _Upstream(parts)
    yield shop
    shop.close()


def test_a_proxied_result_brings_back_only_its_text_parts(picture: _Upstream) -> None:
    (tool,) = upstream_tools(picture.url)
    outcome = asyncio.run(tool.as_tool().invoke({}, None))
    assert (outcome.content, outcome.success) == ("a chart: sales up", True)
