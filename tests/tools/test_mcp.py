"""`zeroclaw_eval.tools.mcp`: the run's MCP server of the running cases' tools, spoken to
by the official `mcp` SDK's client over streamable HTTP on loopback, and the tools of a
project's own MCP server (a real one, the SDK's low-level `Server`) proxied for a live run.

Each case is served at its own URL: what one case lists, calls and records is never
another's, while cases run at once and after one has ended."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.asgi_server import LoopbackApp
from tests.support.builders import admit_with_project_tools, text_step, tool_call, tools_step
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.errors import ConfigError
from zeroclaw_eval.tools import mcp as mcp_module
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS, offered_names, tools_for_case
from zeroclaw_eval.tools.doubles import with_doubles
from zeroclaw_eval.tools.mcp import McpTools, require_sdk, upstream_tools
from zeroclaw_eval.tools.toolbox import ToolBox
from zeroclaw_eval.tools.workspace import Workspace

pytest.importorskip("mcp")

ORDER: dict[str, Any] = {
    "model_name": "order-status",
    # Listed: a case is offered the built-in echo only where it names it (NOTES does not).
    "tools": ["echo", "lookup_order"],
    "tool_doubles": {"lookup_order": [{"when": {"order_id": "42"}, "result": "order 42: shipped"}]},
    "turns": [
        {
            "user_input": "Where is order 42?",
            "steps": [tools_step(tool_call("lookup_order", {"order_id": "42"}, "c1")), text_step("Shipped.")],
        }
    ],
    "expects": {"response_contains": ["Shipped"]},
}

NOTES: dict[str, Any] = {
    "model_name": "notes",
    "tools": ["file_write"],
    "turns": [
        {
            "user_input": "Write hi to out.txt",
            "steps": [
                tools_step(tool_call("file_write", {"path": "out.txt", "content": "hi"}, "w1")),
                text_step("Written."),
            ],
        }
    ],
    "expects": {"response_contains": ["Written"]},
}


class Served:
    """A case being served: its fixture, its tool box, and what the tool box records."""

    def __init__(self, folder: Path, fixture: dict[str, Any]) -> None:
        folder.mkdir(parents=True)
        self.case: Case = admit_with_project_tools(folder, fixture)
        (folder / "ws").mkdir()
        self.workspace = Workspace(folder / "ws")
        self.record = RunRecord()
        available = with_doubles(BUILTIN_TOOLS, self.case.trace.tool_doubles, any_name=True)
        names = offered_names(self.case.trace, self.case.trace.tools, builtin_tools="named")
        self.toolbox = ToolBox(tools_for_case(names, available), self.record, self.workspace)

    def calls(self) -> list[tuple[str, str, Any, str, bool]]:
        return [(c.call_id, c.name, c.arguments, c.result, c.success) for c in self.record.calls]


@pytest.fixture
def server() -> Iterator[McpTools]:
    tools = McpTools()
    yield tools
    tools.close()


def serve(body: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(body())


async def session_of(url: str, talk: Callable[[Any], Awaitable[Any]]) -> Any:
    """What `talk` makes of an initialized session of the official SDK's client with `url`."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return await talk(session)


async def listed(url: str) -> list[str]:
    async def names(session: Any) -> list[str]:
        return sorted(tool.name for tool in (await session.list_tools()).tools)

    result: list[str] = await session_of(url, names)
    return result


async def called(url: str, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    """The text of an MCP call's result, and whether it is a tool error."""

    async def call(session: Any) -> tuple[str, bool]:
        result = await session.call_tool(name, arguments)
        return "".join(getattr(part, "text", "") for part in result.content), bool(result.is_error)

    result: tuple[str, bool] = await session_of(url, call)
    return result


def test_cases_served_at_once_each_list_call_and_record_only_their_own_tools(
    server: McpTools, tmp_path: Path
) -> None:
    order, notes = Served(tmp_path / "order", ORDER), Served(tmp_path / "notes", NOTES)

    async def talk() -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        order_url = server.begin(order.case, order.toolbox, loop)
        notes_url = server.begin(notes.case, notes.toolbox, loop)
        return {
            "urls": (order_url, notes_url),
            "order lists": await listed(order_url),
            "notes lists": await listed(notes_url),
            "order asks": await called(order_url, "lookup_order", {"order_id": "42"}),
            "notes asks order's tool": await called(notes_url, "lookup_order", {"order_id": "42"}),
            "notes writes": await called(notes_url, "file_write", {"path": "out.txt", "content": "hi"}),
            "order echoes": await called(order_url, "echo", {"message": "mine"}),
            "notes echoes": await called(notes_url, "echo", {"message": "mine"}),
        }

    said = serve(talk)
    order_url, notes_url = said["urls"]
    assert order_url != notes_url
    assert order_url.split("?")[0] == notes_url.split("?")[0] == server.url  # one server for the run
    assert said["order lists"] == ["echo", "lookup_order"]
    assert said["notes lists"] == ["file_write"]
    assert said["order asks"] == ("order 42: shipped", False)
    assert said["notes asks order's tool"][1] is True
    assert said["notes writes"][1] is False
    assert said["order echoes"] == ("mine", False)
    assert said["notes echoes"][1] is True  # never named by NOTES, so never offered
    # Dispatched through each case's own tool box (MCP carries no call id), in its own workspace.
    assert order.calls() == [
        ("", "lookup_order", {"order_id": "42"}, "order 42: shipped", True),
        ("", "echo", {"message": "mine"}, "mine", True),
    ]
    assert [(name, success) for _, name, _, _, success in notes.calls()] == [
        ("lookup_order", False),
        ("file_write", True),
        ("echo", False),
    ]
    assert (notes.workspace.root / "out.txt").read_text(encoding="utf-8") == "hi"
    assert not (order.workspace.root / "out.txt").exists()


def test_a_case_that_ended_serves_nothing_at_its_url_and_the_others_go_on(
    server: McpTools, tmp_path: Path
) -> None:
    order, notes = Served(tmp_path / "order", ORDER), Served(tmp_path / "notes", NOTES)

    async def talk() -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        order_url = server.begin(order.case, order.toolbox, loop)
        notes_url = server.begin(notes.case, notes.toolbox, loop)
        server.end(order.toolbox)
        return {
            "order lists": await listed(order_url),
            "order asks": await called(order_url, "lookup_order", {"order_id": "42"}),
            "notes lists": await listed(notes_url),
            "notes writes": await called(notes_url, "file_write", {"path": "a.txt", "content": "still here"}),
        }

    said = serve(talk)
    assert said["order lists"] == []
    assert said["order asks"] == (
        "no case of this run is running at this URL: its case is over, or none has begun",
        True,
    )
    assert order.calls() == []  # nothing reached the case that ended
    assert said["notes lists"] == ["file_write"]
    assert said["notes writes"][1] is False
    assert [(name, success) for _, name, _, _, success in notes.calls()] == [("file_write", True)]


def test_the_url_without_a_case_answers_for_the_one_case_running_and_no_other(
    server: McpTools, tmp_path: Path
) -> None:
    # An agent service, started once for every case, gets the server's URL without a
    # token: the one case running answers it; with two running, neither does.
    order, notes = Served(tmp_path / "order", ORDER), Served(tmp_path / "notes", NOTES)

    async def talk() -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        server.begin(order.case, order.toolbox, loop)
        alone = {
            "lists": await listed(server.url),
            "echoes": await called(server.url, "echo", {"message": "a"}),
        }
        notes_url = server.begin(notes.case, notes.toolbox, loop)
        both = {
            "lists": await listed(server.url),
            "echoes": await called(server.url, "echo", {"message": "b"}),
        }
        unknown = await called(notes_url.replace("?case=", "?case=9"), "echo", {"message": "c"})
        return {"alone": alone, "both": both, "unknown": unknown}

    said = serve(talk)
    assert said["alone"] == {"lists": ["echo", "lookup_order"], "echoes": ("a", False)}
    assert said["both"]["lists"] == []
    assert said["both"]["echoes"][1] is True
    assert said["unknown"][1] is True  # a token of no case: no case answers
    assert order.calls() == [("", "echo", {"message": "a"}, "a", True)]
    assert notes.calls() == []


def test_each_tool_is_listed_with_its_description_and_schema(server: McpTools, tmp_path: Path) -> None:
    # A tool known only by its doubles has no description of its own: its name stands in.
    order = Served(tmp_path / "order", ORDER)

    async def talk() -> list[tuple[str, str | None, dict[str, Any]]]:
        url = server.begin(order.case, order.toolbox, asyncio.get_running_loop())

        async def tools(session: Any) -> list[tuple[str, str | None, dict[str, Any]]]:
            found = (await session.list_tools()).tools
            return [(tool.name, tool.description, dict(tool.input_schema)) for tool in found]

        result: list[tuple[str, str | None, dict[str, Any]]] = await session_of(url, tools)
        return result

    echo = BUILTIN_TOOLS["echo"].spec
    assert serve(talk) == [
        ("echo", echo.description, echo.parameters),
        ("lookup_order", "lookup_order", {"type": "object"}),
    ]


def test_the_server_says_who_it_is_and_answers_each_request_alone_as_json(
    server: McpTools, tmp_path: Path
) -> None:
    # Stateless: a request without a session (no initialize first) is answered, in one
    # JSON body, so nothing of one case is kept for the next.
    order = Served(tmp_path / "order", ORDER)

    async def talk() -> tuple[str, int, str, Any]:
        url = server.begin(order.case, order.toolbox, asyncio.get_running_loop())

        from mcp.client.session import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
            name = (await session.initialize()).server_info.name
        import httpx

        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
        async with httpx.AsyncClient(trust_env=False) as client:
            answer = await client.post(url, json=body, headers=headers)
        return name, answer.status_code, answer.headers.get("content-type", ""), answer.json()

    name, status, kind, data = serve(talk)
    assert name == "zeroclaw-eval"
    assert status == 200
    assert kind.startswith("application/json")
    assert sorted(tool["name"] for tool in data["result"]["tools"]) == ["echo", "lookup_order"]


def test_a_tool_the_case_does_not_serve_is_a_tool_error_and_the_cases_refusal_at_its_tools(
    server: McpTools, tmp_path: Path
) -> None:
    order = Served(tmp_path / "order", ORDER)

    async def talk() -> tuple[str, bool]:
        url = server.begin(order.case, order.toolbox, asyncio.get_running_loop())
        return await called(url, "delete_order", {"order_id": "42"})

    text, failed = serve(talk)
    assert failed
    assert "unknown tool 'delete_order'" in text
    assert order.toolbox.refusals == [
        (
            "the agent called the MCP tool 'delete_order', which this case does not serve: list it in"
            " tools (a built-in or project tool) or give it tool_doubles",
            "/tools",
        )
    ]


def test_a_doubled_call_no_double_answers_is_refused_at_its_doubles_and_a_scripted_one_is_not(
    server: McpTools, tmp_path: Path
) -> None:
    order = Served(tmp_path / "order", ORDER)

    async def talk() -> list[tuple[str, bool]]:
        url = server.begin(order.case, order.toolbox, asyncio.get_running_loop())
        return [
            await called(url, "lookup_order", {"order_id": "42", "verbose": True}),  # the double holds
            await called(url, "echo", {"message": "anything"}),  # not doubled: no double to match
            await called(url, "lookup_order", {"order_id": "7"}),
        ]

    said = serve(talk)
    assert said[:2] == [("order 42: shipped", False), ("anything", False)]
    assert said[2][1] is True
    assert order.toolbox.refusals == [
        (
            'the agent called the MCP tool lookup_order with {"order_id":"7"}, which none of its'
            ' doubles answers (they want: {"order_id":"42"}): the agent asked for something the case'
            " does not expect, or, if such a call is right, the case needs a double whose when"
            " matches it",
            "/tool_doubles/lookup_order",
        )
    ]


def test_every_double_is_named_in_the_refusal_and_any_one_that_answers_is_enough(
    server: McpTools, tmp_path: Path
) -> None:
    fixture = json.loads(json.dumps(ORDER))
    fixture["tool_doubles"]["lookup_order"].append({"when": {"order_id": "43"}, "result": "order 43: lost"})
    order = Served(tmp_path / "order", fixture)

    async def talk() -> list[tuple[str, bool]]:
        url = server.begin(order.case, order.toolbox, asyncio.get_running_loop())
        return [
            await called(url, "lookup_order", {"order_id": "43"}),
            await called(url, "lookup_order", {"order_id": "1"}),
        ]

    said = serve(talk)
    assert said[0] == ("order 43: lost", False)
    assert [pointer for _, pointer in order.toolbox.refusals] == ["/tool_doubles/lookup_order"]
    assert '(they want: {"order_id":"42"}; {"order_id":"43"})' in order.toolbox.refusals[0][0]


def test_a_call_after_its_case_closed_its_tools_is_refused_and_records_nothing(
    server: McpTools, tmp_path: Path
) -> None:
    order = Served(tmp_path / "order", ORDER)

    async def talk() -> tuple[str, bool]:
        url = server.begin(order.case, order.toolbox, asyncio.get_running_loop())
        order.toolbox.close()  # the case is over; the server has not heard yet
        return await called(url, "echo", {"message": "late"})

    assert serve(talk) == ("this case is over: its tools take no more calls", True)
    assert order.calls() == []


def test_the_server_starts_once_and_stops_with_the_run(server: McpTools, tmp_path: Path) -> None:
    url = server.url
    assert url.startswith("http://127.0.0.1:")
    assert url.endswith("/mcp")
    assert server.url == url
    port = int(url.split(":")[2].split("/")[0])
    server.close()
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


def test_without_the_sdk_mcp_is_a_configuration_error_saying_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util

    found = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else found(name, *a)
    )
    with pytest.raises(ConfigError) as raised:
        require_sdk()
    assert str(raised.value) == (
        "[eval].mcp serves tools through the mcp SDK, which is not installed:"
        " pip install 'zeroclaw-eval[mcp]'"
    )


# The project's own MCP server, for `upstream_tools`.


class Upstream:
    """A project's MCP server (the SDK's low-level `Server` over streamable HTTP): its
    tools, and the calls it got."""

    def __init__(self, tools: list[dict[str, Any]], *, stall: bool = False) -> None:
        import mcp_types as types
        from mcp.server.lowlevel.server import Server

        self.calls: list[tuple[str, dict[str, Any]]] = []

        async def list_tools(context: Any, params: Any) -> Any:
            if stall:
                await asyncio.sleep(2)
            return types.ListToolsResult(tools=[types.Tool(**tool) for tool in tools])

        async def call_tool(context: Any, params: Any) -> Any:
            arguments = dict(params.arguments or {})
            self.calls.append((params.name, arguments))
            parts = [types.TextContent(type="text", text=part) for part in arguments.get("say", ["ok"])]
            return types.CallToolResult(content=parts, is_error=bool(arguments.get("fail")))

        app = Server("shop", on_list_tools=list_tools, on_call_tool=call_tool).streamable_http_app(
            stateless_http=True, json_response=True
        )
        self._served = LoopbackApp(app)
        self.url = self._served.url

    def close(self) -> None:
        self._served.close()


SHOP_TOOLS = [
    {
        "name": "lookup_order",
        "description": "An order's status.",
        "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}}},
    },
    {"name": "cancel_order", "input_schema": {"type": "object"}},
]


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    shop = Upstream(SHOP_TOOLS)
    yield shop
    shop.close()


def test_an_upstreams_tools_become_project_tools_with_their_names_descriptions_and_schemas(
    upstream: Upstream,
) -> None:
    tools = upstream_tools(upstream.url)
    assert [(tool.name, tool.description, tool.parameters) for tool in tools] == [
        (
            "lookup_order",
            "An order's status.",
            {"type": "object", "properties": {"order_id": {"type": "string"}}},
        ),
        ("cancel_order", "cancel_order", {"type": "object"}),  # no description: its name
    ]


def test_a_proxied_call_reaches_the_upstream_and_brings_back_its_text_and_failure(
    upstream: Upstream,
) -> None:
    tools = {tool.name: tool.as_tool() for tool in upstream_tools(upstream.url)}

    async def call() -> list[Any]:
        return [
            await tools["lookup_order"].invoke({"order_id": "42", "say": ["order 42: ", "shipped"]}, None),
            await tools["cancel_order"].invoke({"fail": True, "say": ["cannot cancel"]}, None),
        ]

    shipped, refused = asyncio.run(call())
    assert (shipped.content, shipped.success) == ("order 42: shipped", True)
    assert (refused.content, refused.success) == ("cannot cancel", False)
    assert upstream.calls == [
        ("lookup_order", {"order_id": "42", "say": ["order 42: ", "shipped"]}),
        ("cancel_order", {"fail": True, "say": ["cannot cancel"]}),
    ]


def test_an_upstream_is_listed_from_inside_a_running_event_loop_too(upstream: Upstream) -> None:
    async def inside() -> list[str]:
        return [tool.name for tool in upstream_tools(upstream.url)]

    assert asyncio.run(inside()) == ["lookup_order", "cancel_order"]


def test_an_upstream_that_cannot_be_reached_is_a_configuration_error_naming_the_setting() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{unused.getsockname()[1]}/mcp"
    with pytest.raises(ConfigError) as raised:
        upstream_tools(nowhere, "--mcp-upstream")
    assert str(raised.value).startswith(
        f"--mcp-upstream: cannot list the tools of the MCP server at {nowhere}: "
    )


def test_an_upstream_that_never_answers_its_listing_is_given_up_on_in_bounded_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mcp_module, "_START_SECS", 0.5)
    shop = Upstream(SHOP_TOOLS, stall=True)
    try:
        # Answered after 2 s: a listing bounded by 0.5 s never sees it.
        with pytest.raises(ConfigError, match="cannot list the tools of the MCP server"):
            upstream_tools(shop.url)
    finally:
        shop.close()
