"""`zeroclaw eval run --mcp`: each case's tools served as an MCP server (the official SDK,
streamable HTTP), so an agent that takes its tools from MCP is gated: every MCP call is
a recorded dispatch, doubles answer it, and a call the case does not script is refused
at the fixture field.

The agents are real MCP clients (the `mcp` SDK's): an agent command
(`tests/support/mcp_agent.py`), in broken variants that must fail where they should, and
an agent of this process that reads `AgentContext.mcp_url`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import text_step as text, tool_call, tools_step, write_fixture
from tests.support.invoke import Runner, full_json_report

pytest.importorskip("mcp")

AGENT = Path(__file__).resolve().parents[2] / "support" / "mcp_agent.py"

ORDER: dict[str, Any] = {
    "model_name": "order-status",
    "tools": ["lookup_order", "echo"],
    "tool_doubles": {"lookup_order": [{"when": {"order_id": "42"}, "result": "order 42: shipped"}]},
    "turns": [
        {
            "user_input": "Where is order 42?",
            "steps": [
                tools_step(tool_call("lookup_order", {"order_id": "42"}, "c1")),
                text("Order 42 has shipped."),
            ],
        },
        {
            "user_input": "Echo done",
            "steps": [tools_step(tool_call("echo", {"message": "done"}, "c2")), text("done")],
        },
    ],
    "expects": {
        "exact_tool_calls": 2,
        "tool_arguments_contain": [{"tool": "lookup_order", "needle": "42", "call_index": 0}],
        "tool_results_contain": [{"tool": "lookup_order", "needle": "shipped"}],
        "all_tools_succeeded": True,
        "response_contains": ["done"],
    },
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write_fixture(tmp_path / "evals" / "regression", "order.json", ORDER)
    return tmp_path


def run(cli: Runner, project: Path, *flags: str, extra: tuple[str, ...] = ("--mcp",)) -> dict[str, Any]:
    agent = " ".join([sys.executable, str(AGENT), *flags])
    case: dict[str, Any] = full_json_report(cli, project, "--agent-cmd", agent, *extra)["cases"][0]
    return case


@pytest.mark.parametrize("transport", [(), ("--stdio",)], ids=["http", "stdio-bridge"])
def test_an_mcp_agent_passes_and_each_mcp_call_is_one_recorded_dispatch(
    cli: Runner, project: Path, transport: tuple[str, ...]
) -> None:
    case = run(cli, project, *transport)
    assert case["status"] == "passed", case["error"] or case["grades"]
    calls = [
        (c["call_id"], c["name"], c["arguments"], c["result"], c["success"]) for c in case["record"]["calls"]
    ]
    # Answered by the double and by the built-in echo; the id is the model's, taken over
    # when the agent fed the result back (one record per call, not two).
    assert calls == [
        ("c1", "lookup_order", {"order_id": "42"}, "order 42: shipped", True),
        ("c2", "echo", {"message": "done"}, "done", True),
    ]


def test_cases_run_at_once_each_get_their_own_tools(cli: Runner, project: Path) -> None:
    # One server for the run; each case's URL names it, so no call reaches another case.
    suite = project / "evals" / "regression"
    for order in ("7", "13", "99"):
        fixture = json.loads(
            json.dumps(ORDER).replace('"42"', f'"{order}"').replace("order 42", f"order {order}")
        )
        fixture["expects"]["tool_arguments_contain"][0]["needle"] = order
        write_fixture(suite, f"order_{order}.json", fixture)
    agent = f"{sys.executable} {AGENT}"
    result = cli(
        "eval",
        "run",
        "--format",
        "json",
        "--details",
        "all",
        "--agent-cmd",
        agent,
        "--mcp",
        "--jobs",
        "4",
        cwd=project,
    )
    assert result.code == 0, result.stdout + result.stderr
    report = result.json()
    assert report["counts"]["passed"] == 4
    for case in report["cases"]:
        order = case["record"]["calls"][0]["arguments"]["order_id"]
        assert case["record"]["calls"][0]["result"] == f"order {order}: shipped"


@pytest.mark.parametrize("same_step", [True, False], ids=["same-step", "later-turn"])
def test_an_agent_that_reuses_one_mcp_result_for_two_calls_is_a_run_error(
    cli: Runner, project: Path, same_step: bool
) -> None:
    first, second = (
        tool_call("lookup_order", {"order_id": "42"}, "c1"),
        tool_call("lookup_order", {"order_id": "42"}, "c2"),
    )
    fixture = json.loads(json.dumps(ORDER))
    if same_step:
        fixture["turns"][0]["steps"][0] = tools_step(first, second)
    else:
        fixture["turns"][1]["steps"][0] = tools_step(second)
    write_fixture(project / "evals" / "regression", "order.json", fixture)
    case = run(cli, project, "--break", "cache")
    assert case["status"] == "error", case
    assert "returned by no call to the MCP server since the model asked for it" in case["error"]["message"]
    assert "(call c2)" in case["error"]["message"]


def test_without_mcp_doubles_cannot_answer_an_agent_command(cli: Runner, project: Path) -> None:
    case = run(cli, project, extra=())
    assert case["status"] == "error"
    assert case["error"]["field"]["pointer"] == "/tool_doubles"
    assert "Serve the doubled tools over MCP ([eval].mcp)" in case["error"]["message"]


@pytest.mark.parametrize(
    ("breaks", "pointer", "words"),
    [
        ("unserved", "/tools", "the MCP tool 'delete_order', which this case does not serve"),
        (
            "other-order",
            "/tool_doubles/lookup_order",
            'with {"order_id":"7"}, which none of its doubles answers (they want: {"order_id":"42"}):'
            " the agent asked for something the case does not expect",
        ),
        ("garble", "/turns/0", "is not what the MCP tool returned"),
        ("forget", "/turns/0/steps/1", "does not carry the results of lookup_order (id c1)"),
    ],
)
def test_a_broken_mcp_agent_is_a_run_error_at_the_field(
    cli: Runner, project: Path, breaks: str, pointer: str, words: str
) -> None:
    case = run(cli, project, "--break", breaks)
    assert case["status"] == "error", case
    assert case["error"]["field"]["pointer"] == pointer, case["error"]
    assert words in case["error"]["message"]


def test_an_agent_that_makes_up_a_served_tools_result_is_a_run_error(cli: Runner, project: Path) -> None:
    # It answers lookup_order itself, with the very text the double would have given.
    case = run(cli, project, "--break", "own-tool")
    assert case["status"] == "error"
    assert case["error"]["field"]["pointer"] == "/turns/0"
    assert (
        "was returned by no call to the MCP server since the model asked for it" in case["error"]["message"]
    )


IN_PROCESS = '''
from __future__ import annotations

import asyncio
import json
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from zeroclaw_eval import AgentContext, ToolSpec

PREFIX = ""  # what the tools are offered under, as a client that prefixes a server's name does


class McpAgent:
    """Asks the model with the MCP server's tools, and calls them through MCP only."""

    def __init__(self, context: AgentContext) -> None:
        assert context.mcp_url is not None
        self.context = context
        self.history: list[Any] = []

    async def _tool(self, name: str, arguments: dict[str, Any]) -> tuple[list[ToolSpec], str]:
        assert self.context.mcp_url is not None
        async with streamable_http_client(self.context.mcp_url) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                listed = await session.list_tools()
                specs = [
                    ToolSpec(PREFIX + t.name, t.description or "", dict(t.input_schema)) for t in listed.tools
                ]
                if not name:
                    return specs, ""
                result = await session.call_tool(name.removeprefix(PREFIX), arguments)
                return specs, "".join(getattr(part, "text", "") for part in result.content)

    async def run_turn(self, user_input: str) -> str:
        specs, _ = await self._tool("", {})
        self.history.append({"role": "user", "content": user_input})
        while True:
            reply = await self.context.provider.complete(self.history, specs)
            if not reply.tool_calls:
                self.history.append({"role": "assistant", "content": reply.content or ""})
                return reply.content or ""
            calls = [call.as_openai() for call in reply.tool_calls]
            self.history.append({"role": "assistant", "content": reply.content, "tool_calls": calls})
            for call in reply.tool_calls:
                _, text = await self._tool(call.name, json.loads(call.arguments))
                self.history.append({"role": "tool", "tool_call_id": call.id, "content": text})


def make_agent(context: AgentContext) -> McpAgent:
    return McpAgent(context)
'''


@pytest.mark.parametrize("prefix", ["", "files_"], ids=["as-served", "prefixed"])
def test_an_agent_of_this_process_gets_the_url_and_its_mcp_calls_run_in_the_workspace(
    cli: Runner, tmp_path: Path, prefix: str
) -> None:
    source = IN_PROCESS.replace('PREFIX = ""', f"PREFIX = {prefix!r}")
    module = f"mcp_agent_here{prefix}"  # one module per variant: the run imports it in this process
    (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
    (tmp_path / "zeroclaw.toml").write_text(
        f'[eval]\nagent = "{module}:make_agent"\nmcp = true\n', encoding="utf-8"
    )
    write_fixture(
        tmp_path / "evals" / "regression",
        "write.json",
        {
            "model_name": "write-a-file",
            "tools": ["file_write"],
            "turns": [
                {
                    "user_input": "Write hi to out.txt",
                    "steps": [
                        tools_step(
                            tool_call(f"{prefix}file_write", {"path": "out.txt", "content": "hi"}, "w1")
                        ),
                        text("Written."),
                    ],
                }
            ],
            "expects": {
                "tools_used": ["file_write"],
                "tools_offered": [f"{prefix}file_write"],  # the request's names
                "all_tools_succeeded": True,
                "workspace": {"file_contains": {"out.txt": ["hi"]}},
            },
        },
    )
    result = cli("eval", "run", "--format", "json", "--details", "all", cwd=tmp_path)
    assert result.code == 0, result.stdout + result.stderr
    calls = result.json()["cases"][0]["record"]["calls"]
    # Dispatched over MCP, which carries no call id: the result check matched it by tool
    # (under its own name, whatever the client offered it as) and arguments.
    assert [(c["call_id"], c["name"]) for c in calls] == [("", "file_write")]


def test_mcp_without_the_sdk_is_a_configuration_error_before_any_case(
    cli: Runner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    found = importlib.util.find_spec
    absent = {"mcp"}
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in absent else found(name, *a)
    )
    result = cli("eval", "run", "--mcp", cwd=project)
    assert result.code == 2
    assert "pip install 'zeroclaw-eval[mcp]'" in result.stderr


def test_the_stdio_bridge_refuses_unscripted_calls_as_the_run_does(cli: Runner, project: Path) -> None:
    case = run(cli, project, "--stdio", "--break", "unserved")
    assert case["status"] == "error"
    assert case["error"]["field"]["pointer"] == "/tools"


def _stdio_session(fixture: Path, *extra: str) -> Any:
    """A session with `zeroclaw eval mcp FIXTURE`, as an agent's MCP client starts it."""
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command = [sys.executable, "-m", "zeroclaw_eval", "eval", "mcp", str(fixture), *extra]
    parameters = StdioServerParameters(command=command[0], args=command[1:], cwd=str(fixture.parent))
    # The stderr of now: the SDK's default is the one of its import, which a runner that
    # swaps the streams (mutmut's) may have closed since.
    return stdio_client(parameters, errlog=sys.stderr)


def test_alone_it_serves_a_fixtures_tools_and_doubles(project: Path) -> None:
    import asyncio

    from mcp.client.session import ClientSession

    fixture = project / "evals" / "regression" / "order.json"

    async def talk() -> tuple[list[str], list[tuple[str, bool]]]:
        async with _stdio_session(fixture) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = sorted(tool.name for tool in (await session.list_tools()).tools)
            said = []
            for name, arguments in [
                ("lookup_order", {"order_id": "42"}),
                ("lookup_order", {"order_id": "7"}),
                ("echo", {"message": "hi"}),
                ("delete_order", {}),
            ]:
                result = await session.call_tool(name, arguments)
                said.append(("".join(getattr(p, "text", "") for p in result.content), bool(result.is_error)))
            return names, said

    names, said = asyncio.run(talk())
    assert names == ["echo", "lookup_order"]
    assert said[0] == ("order 42: shipped", False)
    assert said[1][1]
    assert "no double of lookup_order matched" in said[1][0]
    assert said[2] == ("hi", False)
    assert said[3][1]
    assert "unknown tool 'delete_order'" in said[3][0]


def test_with_nothing_to_serve_it_says_how_to_start(cli: Runner, tmp_path: Path) -> None:
    result = cli("eval", "mcp", cwd=tmp_path, env={"ZEROCLAW_EVAL_MCP_URL": ""})
    assert result.code == 2
    assert "nothing to serve: give a FIXTURE, or --url" in result.stderr


def _prefixed(fixture: dict[str, Any], prefix: str) -> dict[str, Any]:
    """`fixture` with each scripted call named as a client that prefixes the server's name
    offers the tool to the model (`shop_lookup_order`); the tools, doubles and checks keep
    the tools' own names."""
    prefixed = json.loads(json.dumps(fixture))
    for turn in prefixed["turns"]:
        for step in turn["steps"]:
            for call in step["response"].get("tool_calls", []):
                call["name"] = f"{prefix}{call['name']}"
    return prefixed


def test_a_client_that_prefixes_the_servers_name_is_recorded_once_under_the_tools_own_name(
    cli: Runner, project: Path
) -> None:
    write_fixture(project / "evals" / "regression", "order.json", _prefixed(ORDER, "shop_"))
    case = run(cli, project, "--prefix", "shop")
    assert case["status"] == "passed", case["error"] or case["grades"]
    calls = [(c["call_id"], c["name"], c["arguments"], c["result"]) for c in case["record"]["calls"]]
    assert calls == [
        ("c1", "lookup_order", {"order_id": "42"}, "order 42: shipped"),
        ("c2", "echo", {"message": "done"}, "done"),
    ]


@pytest.mark.parametrize(
    ("breaks", "words"),
    [
        ("own-tool", "was returned by no call to the MCP server since the model asked for it"),
        ("garble", "is not what the MCP tool returned"),
    ],
)
def test_a_prefixed_client_that_makes_up_or_changes_a_result_is_still_a_run_error(
    cli: Runner, project: Path, breaks: str, words: str
) -> None:
    write_fixture(project / "evals" / "regression", "order.json", _prefixed(ORDER, "shop_"))
    case = run(cli, project, "--prefix", "shop", "--break", breaks)
    assert case["status"] == "error", case
    assert words in case["error"]["message"]


def test_a_prefixed_name_that_ends_in_no_served_tool_stays_a_tool_of_its_own(
    cli: Runner, project: Path
) -> None:
    # `shop_lookup_orders` is not `lookup_order` under a prefix: the agent's MCP call of
    # `lookup_orders` is a tool the case does not serve.
    fixture = _prefixed(ORDER, "shop_")
    fixture["turns"][0]["steps"][0]["response"]["tool_calls"][0]["name"] = "shop_lookup_orders"
    write_fixture(project / "evals" / "regression", "order.json", fixture)
    case = run(cli, project, "--prefix", "shop")
    assert case["status"] == "error", case
    assert "the MCP tool 'lookup_orders', which this case does not serve" in case["error"]["message"]


def test_a_prefixed_tool_the_request_does_not_offer_is_a_run_error_at_the_step(
    cli: Runner, project: Path
) -> None:
    # The script calls `shop_lookup_order`, which is `lookup_order` under the server's
    # name: the request must offer it, as it must a tool scripted by its own name.
    write_fixture(project / "evals" / "regression", "order.json", _prefixed(ORDER, "shop_"))
    case = run(cli, project, "--prefix", "shop", "--break", "hide")
    assert case["status"] == "error", case
    assert case["error"]["field"]["pointer"] == "/turns/0/steps/0"
    assert (
        "the script calls shop_lookup_order, but the request offers the model no tool named"
        " shop_lookup_order (it offers: shop_echo)"
    ) in case["error"]["message"]
