"""`[eval].mcp_upstream`: in live mode the project's own MCP server's tools are proxied
through the harness's MCP server (recorded like any call), and `--record` writes their
calls as `tool_doubles`, so the recorded case replays without the server.

The project's MCP server is a real one (the `mcp` SDK's low-level `Server` over streamable
HTTP); the live provider is a `ReplayServer`; the agent is an MCP client of this process."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.commands.test_run_mcp import IN_PROCESS
from tests.support.builders import text_step as text, tool_call, tools_step, write_fixture
from tests.support.invoke import invoke
from zeroclaw_eval.collect.suite import discover
from zeroclaw_eval.serve.routing import load_cases
from zeroclaw_eval.serve.server import ReplayServer

pytest.importorskip("mcp")

KEY_ENV, API_KEY = "ZEROCLAW_TEST_KEY", "sk-zeroclaw-upstream-test"

CASE: dict[str, Any] = {
    "model_name": "order-status",
    "tools": ["lookup_order"],
    "turns": [
        {
            "user_input": "Where is order 42?",
            "steps": [
                tools_step(tool_call("lookup_order", {"order_id": "42"}, "c1")),
                text("It has shipped."),
            ],
        }
    ],
    "expects": {
        "tool_results_contain": [{"tool": "lookup_order", "needle": "shipped"}],
        "response_contains": ["shipped"],
    },
}


@pytest.fixture
def upstream() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """The project's MCP server: `lookup_order`, and the calls it got."""
    import mcp_types as types
    import uvicorn
    from mcp.server.lowlevel.server import Server

    calls: list[dict[str, Any]] = []

    async def list_tools(context: Any, params: Any) -> Any:
        schema = {"type": "object", "properties": {"order_id": {"type": "string"}}}
        return types.ListToolsResult(
            tools=[types.Tool(name="lookup_order", description="An order.", input_schema=schema)]
        )

    async def call_tool(context: Any, params: Any) -> Any:
        calls.append(dict(params.arguments or {}))
        order = (params.arguments or {}).get("order_id")
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"order {order}: shipped")])

    app = Server("shop", on_list_tools=list_tools, on_call_tool=call_tool).streamable_http_app(
        stateless_http=True, json_response=True
    )
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="critical"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/mcp", calls
    server.should_exit = True
    thread.join(10)


def project(tmp_path: Path, provider: str, upstream_url: str) -> Path:
    (tmp_path / "shop_agent.py").write_text(IN_PROCESS, encoding="utf-8")
    (tmp_path / "zeroclaw.toml").write_text(
        f"""[eval]
suite_dir = "suite"
agent = "shop_agent:make_agent"
mcp = true
mcp_upstream = "{upstream_url}"
live_provider = "local"
live_allowed_tools = ["lookup_order"]

[providers.models.local]
base_url = "{provider}"
model = "served"
api_key_env = "{KEY_ENV}"
""",
        encoding="utf-8",
    )
    return tmp_path


def test_a_live_run_proxies_the_projects_mcp_tools_and_records_them_as_doubles(
    tmp_path: Path, upstream: tuple[str, list[dict[str, Any]]], serve: Callable[..., ReplayServer]
) -> None:
    url, calls = upstream
    write_fixture(tmp_path / "suite", "order.json", CASE)
    provider = serve(load_cases(discover(tmp_path / "suite")))
    root = project(tmp_path, provider.url, url)
    recorded = tmp_path / "recorded"
    live = invoke(
        "eval", "run", "--mode", "live", "--record", str(recorded), "--format", "json", "--details", "all",
        cwd=root, env={KEY_ENV: API_KEY},
    )  # fmt: skip
    assert live.code == 0, live.stdout + live.stderr
    assert calls == [{"order_id": "42"}]  # the project's server really answered
    record = live.json()["cases"][0]["record"]["calls"]
    assert [(c["name"], c["result"]) for c in record] == [("lookup_order", "order 42: shipped")]
    fixture = json.loads((recorded / "order.json").read_text(encoding="utf-8"))
    assert fixture["tool_doubles"] == {
        "lookup_order": [{"when": {"order_id": "42"}, "result": "order 42: shipped"}]
    }
    # Replayed, the double answers: the project's server is not reached.
    replay = invoke("eval", "run", "--suite", str(recorded), "--format", "json", "--details", "all", cwd=root)
    assert replay.code == 0, replay.stdout + replay.stderr
    assert calls == [{"order_id": "42"}]


def test_an_upstream_that_cannot_be_listed_is_a_configuration_error(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    write_fixture(tmp_path / "suite", "order.json", CASE)
    provider = serve(load_cases(discover(tmp_path / "suite")))
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{unused.getsockname()[1]}/mcp"
    root = project(tmp_path, provider.url, nowhere)
    result = invoke("eval", "run", "--mode", "live", cwd=root, env={KEY_ENV: API_KEY})
    assert result.code == 2
    assert f"mcp_upstream: cannot list the tools of the MCP server at {nowhere}" in result.stderr


def test_in_replay_a_tool_known_only_by_its_doubles_is_admitted_with_mcp_alone(tmp_path: Path) -> None:
    doubled = {
        **CASE,
        "tool_doubles": {"lookup_order": [{"when": {"order_id": "42"}, "result": "order 42: shipped"}]},
    }
    write_fixture(tmp_path / "suite", "order.json", doubled)
    (tmp_path / "shop_agent.py").write_text(IN_PROCESS, encoding="utf-8")
    config = '[eval]\nsuite_dir = "suite"\nagent = "shop_agent:make_agent"\n'
    (tmp_path / "zeroclaw.toml").write_text(config + "mcp = true\n", encoding="utf-8")
    assert invoke("eval", "run", cwd=tmp_path).code == 0
    (tmp_path / "zeroclaw.toml").write_text(config, encoding="utf-8")
    refused = invoke("eval", "check", cwd=tmp_path)
    assert refused.code == 1
    assert "unknown tool 'lookup_order'" in refused.stdout + refused.stderr
