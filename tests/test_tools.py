"""Unit tests for `zeroclaw_eval.tools`: built-in tools and the recording `ToolBox`."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from zeroclaw_eval.run.provider import ToolSpec
from zeroclaw_eval.run.record import RunRecord
from zeroclaw_eval.run.toolbox import ToolBox
from zeroclaw_eval.run.tools import BUILTIN_TOOLS, WORKSPACE_TOOLS, Tool, ToolOutcome, tools_for_case
from zeroclaw_eval.run.workspace import Workspace

ALL_TOOLS = ["file_read", "file_write", "list_dir"]


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("alpha doc", encoding="utf-8")
    (root / "hello.txt").write_text("hello 東京", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET", encoding="utf-8")
    os.symlink(outside / "secret.txt", root / "link.txt")
    return Workspace(root)


def make_box(workspace: Workspace | None = None, tools: list[str] | None = None) -> tuple[ToolBox, RunRecord]:
    record = RunRecord()
    box = ToolBox(tools_for_case(ALL_TOOLS if tools is None else tools), record, workspace)
    return box, record


def call(box: ToolBox, name: str, arguments: str | dict[str, Any] | Any, call_id: str = "c1") -> ToolOutcome:
    return asyncio.run(box.call(name, arguments, call_id))


def test_every_call_is_recorded_with_what_crossed_the_boundary(workspace: Workspace) -> None:
    box, record = make_box(workspace)
    box.turn = 2
    first = call(box, "echo", '{"message": "東京 \\"quoted\\""}', "call_a")
    box.turn = 3
    second = call(box, "file_read", {"path": "hello.txt"}, "call_b")
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
    call(box, "echo", '{"z": 1, "message": "m", "a": 2}')
    assert list(record.calls[0].arguments) == ["z", "message", "a"]


def test_unknown_tool_is_a_recorded_failure() -> None:
    box, record = make_box(tools=[])
    outcome = call(box, "shell_exec", '{"cmd": "rm -rf /"}', "x9")
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
    outcome = call(box, "file_read", {"path": "hello.txt"})
    assert not outcome.success
    assert "unknown tool" in outcome.content
    assert record.calls[0].success is False


@pytest.mark.parametrize("raw", ['{"message": "unterminated', "{bad json}", '{"message": NaN}', "not json"])
def test_malformed_argument_text_is_a_recorded_failure(raw: str) -> None:
    box, record = make_box()
    outcome = call(box, "echo", raw)
    assert not outcome.success
    assert "malformed" in outcome.content
    assert len(record.calls) == 1
    assert record.calls[0].arguments == raw  # the raw text, as the model sent it
    assert record.calls[0].success is False


@pytest.mark.parametrize("raw", ["[1, 2]", '"just text"', "42", "null", "true"])
def test_arguments_that_are_not_an_object_are_a_recorded_failure(raw: str) -> None:
    box, record = make_box()
    outcome = call(box, "echo", raw)
    assert not outcome.success
    assert "expected a JSON object" in outcome.content
    assert len(record.calls) == 1
    assert record.calls[0].success is False
    assert record.calls[0].arguments == raw  # recorded as the text the model sent


@pytest.mark.parametrize("arguments", [[1, 2], 7, None])
def test_non_object_python_arguments_are_a_recorded_failure(arguments: Any) -> None:
    box, record = make_box()
    outcome = call(box, "echo", arguments)
    assert not outcome.success
    assert len(record.calls) == 1


def test_echo_returns_its_message() -> None:
    box, _ = make_box()
    assert call(box, "echo", {"message": "hello"}) == ToolOutcome("hello", True)
    assert call(box, "echo", {"message": ""}) == ToolOutcome("", True)


@pytest.mark.parametrize("arguments", ["{}", {}, {"other": "x"}])
def test_echo_without_message_succeeds_with_empty_marker(arguments: str | dict[str, Any]) -> None:
    box, record = make_box()
    assert call(box, "echo", arguments) == ToolOutcome("(empty)", True)
    assert record.calls[0].result == "(empty)"
    assert record.calls[0].success is True


def test_echo_with_a_non_string_message_fails() -> None:
    box, record = make_box()
    outcome = call(box, "echo", {"message": 5})
    assert not outcome.success
    assert "message" in outcome.content
    assert record.calls[0].success is False


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"path": "docs"}, "folder"),
        ({"path": "missing.txt"}, "no such file"),
        ({}, "missing required argument 'path'"),
        ({"path": 3}, "must be a string"),
    ],
)
def test_file_read_failures_are_outcomes(workspace: Workspace, arguments: dict[str, Any], words: str) -> None:
    box, record = make_box(workspace)
    outcome = call(box, "file_read", arguments)
    assert not outcome.success
    assert words in outcome.content
    assert record.calls[-1].success is False


def test_file_read_of_non_utf8_fails(workspace: Workspace) -> None:
    (workspace.root / "bin.dat").write_bytes(b"\xff\xfe\x00")
    box, _ = make_box(workspace)
    outcome = call(box, "file_read", {"path": "bin.dat"})
    assert not outcome.success


def test_file_write_creates_parent_folders_and_replaces(workspace: Workspace) -> None:
    box, record = make_box(workspace)
    outcome = call(box, "file_write", {"path": "new/deeper/out.txt", "content": "first"})
    assert outcome.success
    assert "new/deeper/out.txt" in outcome.content
    target = workspace.root / "new" / "deeper" / "out.txt"
    assert target.read_text(encoding="utf-8") == "first"
    assert call(box, "file_write", {"path": "new/deeper/out.txt", "content": "東京 second"}).success
    assert target.read_text(encoding="utf-8") == "東京 second"
    assert [c.success for c in record.calls] == [True, True]


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"path": "x.txt"}, "missing required argument 'content'"),
        ({"content": "x"}, "missing required argument 'path'"),
        ({"path": "docs", "content": "x"}, "folder"),
    ],
)
def test_file_write_failures_are_outcomes(
    workspace: Workspace, arguments: dict[str, Any], words: str
) -> None:
    box, _ = make_box(workspace)
    outcome = call(box, "file_write", arguments)
    assert not outcome.success
    assert words in outcome.content


def test_list_dir_is_sorted_and_marks_folders(workspace: Workspace) -> None:
    (workspace.root / "b.txt").write_text("", encoding="utf-8")
    (workspace.root / "A_upper.txt").write_text("", encoding="utf-8")
    box, _ = make_box(workspace)
    listing = call(box, "list_dir", {})
    assert listing.success
    lines = listing.content.split("\n")
    assert lines == sorted(lines)
    assert set(lines) == {"A_upper.txt", "b.txt", "docs/", "hello.txt", "link.txt"}
    assert call(box, "list_dir", {"path": "."}) == listing
    assert call(box, "list_dir", {"path": "docs"}) == ToolOutcome("a.md", True)


def test_list_dir_of_a_file_or_missing_folder_fails(workspace: Workspace) -> None:
    box, _ = make_box(workspace)
    assert not call(box, "list_dir", {"path": "hello.txt"}).success
    assert not call(box, "list_dir", {"path": "nowhere"}).success


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("file_read", {"path": "../outside/secret.txt"}),
        ("file_read", {"path": "link.txt"}),
        ("file_read", {"path": "ABSOLUTE"}),
        ("file_write", {"path": "../outside/new.txt", "content": "x"}),
        ("file_write", {"path": "ABSOLUTE_NEW", "content": "x"}),
        ("list_dir", {"path": ".."}),
        ("list_dir", {"path": "ABSOLUTE_DIR"}),
    ],
)
def test_paths_leaving_the_workspace_are_failed_results(
    workspace: Workspace, tmp_path: Path, name: str, arguments: dict[str, Any]
) -> None:
    outside = tmp_path / "outside"
    replacements = {
        "ABSOLUTE": str(outside / "secret.txt"),
        "ABSOLUTE_NEW": str(outside / "new.txt"),
        "ABSOLUTE_DIR": str(outside),
    }
    arguments = {k: replacements.get(v, v) for k, v in arguments.items()}
    box, record = make_box(workspace)
    outcome = call(box, name, arguments)
    assert not outcome.success
    assert "TOP SECRET" not in outcome.content
    if name == "list_dir":
        assert "secret.txt" not in outcome.content  # no entry outside the workspace is listed
    assert not (outside / "new.txt").exists()
    assert record.calls[0].success is False


def test_workspace_tools_without_a_workspace_fail() -> None:
    box, _ = make_box(None)
    for name, arguments in (("file_read", {"path": "a"}), ("file_write", {"path": "a", "content": "b"})):
        outcome = call(box, name, arguments)
        assert not outcome.success
        assert "no workspace" in outcome.content
    assert not call(box, "list_dir", {}).success


def test_a_tool_that_raises_is_a_failed_outcome() -> None:
    def explode(arguments: dict[str, Any], workspace: Workspace | None) -> str:
        raise RuntimeError("kaboom")

    record = RunRecord()
    tool = Tool(ToolSpec("explode", "always fails", {"type": "object"}), explode)
    box = ToolBox({"explode": tool}, record)
    outcome = call(box, "explode", {})
    assert not outcome.success
    assert "RuntimeError" in outcome.content
    assert "kaboom" in outcome.content
    assert record.calls[0].result == outcome.content
    assert record.calls[0].success is False


def test_tools_for_case_offers_echo_plus_the_listed_builtins() -> None:
    assert list(tools_for_case([])) == ["echo"]
    assert set(tools_for_case(["file_read"])) == {"echo", "file_read"}
    assert set(tools_for_case(["no_such_tool"])) == {"echo"}
    assert set(WORKSPACE_TOOLS) == {"file_read", "file_write", "list_dir"}
    assert "echo" not in WORKSPACE_TOOLS
    assert set(BUILTIN_TOOLS) == {"echo", *WORKSPACE_TOOLS}


def test_specs_describe_the_tools_on_offer() -> None:
    box, _ = make_box(tools=["file_write"])
    specs = {spec.name: spec for spec in box.specs()}
    assert set(specs) == {"echo", "file_write"}
    assert specs["file_write"].parameters["required"] == ["path", "content"]
    openai = specs["echo"].as_openai()
    assert openai["type"] == "function"
    assert openai["function"]["name"] == "echo"
