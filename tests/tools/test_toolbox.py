"""`zeroclaw_eval.tools.toolbox`: every dispatch is decoded, run and recorded; a bad call is
a recorded failure."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.builders import dispatch, make_box
from zeroclaw_eval.tools.tool import ToolOutcome
from zeroclaw_eval.tools.toolbox import served_as
from zeroclaw_eval.tools.workspace import Workspace


def test_every_call_is_recorded_with_what_crossed_the_boundary(workspace: Workspace) -> None:
    box, record = make_box(workspace)
    box.turn = 2
    first = dispatch(box, "echo", '{"message": "東京 \\"quoted\\""}', "call_a")
    box.turn = 3
    second = dispatch(box, "file_read", {"path": "hello.txt"}, "call_b")
    assert first == ToolOutcome('東京 "quoted"', True)
    assert second == ToolOutcome("hello 東京", True)
    assert len(record.calls) == 2
    a, b = record.calls
    assert (a.turn, a.call_id, a.name, a.arguments, a.result, a.success) == (
        2,
        "call_a",
        "echo",
        {"message": '東京 "quoted"'},
        '東京 "quoted"',
        True,
    )
    assert (b.turn, b.call_id, b.name, b.arguments, b.result, b.success) == (
        3,
        "call_b",
        "file_read",
        {"path": "hello.txt"},
        "hello 東京",
        True,
    )


def test_argument_key_order_is_kept_as_received() -> None:
    box, record = make_box()
    dispatch(box, "echo", '{"z": 1, "message": "m", "a": 2}')
    assert list(record.calls[0].arguments) == ["z", "message", "a"]


def test_unknown_tool_is_a_recorded_failure() -> None:
    box, record = make_box(tools=[])
    outcome = dispatch(box, "shell_exec", '{"cmd": "rm -rf /"}', "x9")
    assert not outcome.success
    assert "unknown tool" in outcome.content
    assert "shell_exec" in outcome.content
    assert len(record.calls) == 1
    recorded = record.calls[0]
    assert (recorded.name, recorded.call_id, recorded.success) == ("shell_exec", "x9", False)
    assert recorded.arguments == {"cmd": "rm -rf /"}
    assert recorded.result == outcome.content


def test_workspace_tool_not_listed_by_the_case_is_unknown(workspace: Workspace) -> None:
    box, record = make_box(workspace, tools=[])
    outcome = dispatch(box, "file_read", {"path": "hello.txt"})
    assert not outcome.success
    assert "unknown tool" in outcome.content
    assert record.calls[0].success is False


@pytest.mark.parametrize("raw", ['{"message": "unterminated', "{bad json}", '{"message": NaN}', "not json"])
def test_malformed_argument_text_is_a_recorded_failure(raw: str) -> None:
    box, record = make_box()
    outcome = dispatch(box, "echo", raw)
    assert not outcome.success
    assert "malformed" in outcome.content
    assert len(record.calls) == 1
    assert record.calls[0].arguments == raw  # the raw text, as the model sent it
    assert record.calls[0].success is False


@pytest.mark.parametrize("raw", ["[1, 2]", '"just text"', "42", "null", "true"])
def test_arguments_that_are_not_an_object_are_a_recorded_failure(raw: str) -> None:
    box, record = make_box()
    outcome = dispatch(box, "echo", raw)
    assert not outcome.success
    assert "expected a JSON object" in outcome.content
    assert len(record.calls) == 1
    assert record.calls[0].success is False
    assert record.calls[0].arguments == raw  # recorded as the text the model sent


@pytest.mark.parametrize("arguments", [[1, 2], 7, None])
def test_non_object_python_arguments_are_a_recorded_failure(arguments: Any) -> None:
    box, record = make_box()
    outcome = dispatch(box, "echo", arguments)
    assert not outcome.success
    assert len(record.calls) == 1


def test_specs_describe_the_tools_on_offer() -> None:
    box, _ = make_box(tools=["file_write"])
    specs = {spec.name: spec for spec in box.specs()}
    assert set(specs) == {"echo", "file_write"}
    assert specs["file_write"].parameters["required"] == ["path", "content"]
    openai = specs["echo"].as_openai()
    assert openai["type"] == "function"
    assert openai["function"]["name"] == "echo"


@pytest.mark.parametrize(
    ("model_name", "tool", "same"),
    [
        ("lookup_order", "lookup_order", True),
        ("shop_lookup_order", "lookup_order", True),
        ("shop-lookup_order", "lookup_order", True),
        ("shop.lookup_order", "lookup_order", True),
        ("shop:lookup_order", "lookup_order", True),
        ("shop/lookup_order", "lookup_order", True),
        ("shop__lookup_order", "lookup_order", True),
        # No separator, no prefix before it, or a longer tool name: a name of its own.
        ("shoplookup_order", "lookup_order", False),
        ("_lookup_order", "lookup_order", False),
        ("shop_lookup_orders", "lookup_order", False),
        ("lookup_order", "shop_lookup_order", False),
        ("shop_lookup", "lookup_order", False),
    ],
)
def test_a_prefixed_mcp_name_stands_for_the_tool_it_ends_in(model_name: str, tool: str, same: bool) -> None:
    assert served_as(model_name, tool) is same
