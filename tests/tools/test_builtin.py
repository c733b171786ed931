"""`zeroclaw_eval.tools.builtin`: the built-in tools, whose refusals are failed outcomes, never exceptions."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import dispatch, make_box, minimal_fixture, text_step
from zeroclaw_eval.boundary.provider import ToolSpec
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.model import LlmTrace
from zeroclaw_eval.tools.builtin import (
    BUILTIN_TOOLS,
    MAX_READ_BYTES,
    WORKSPACE_TOOLS,
    offered_names,
    tools_for_case,
)
from zeroclaw_eval.tools.tool import Tool, ToolOutcome
from zeroclaw_eval.tools.toolbox import ToolBox
from zeroclaw_eval.tools.workspace import Workspace, remove_tree


def test_echo_returns_its_message() -> None:
    box, _ = make_box()
    assert dispatch(box, "echo", {"message": "hello"}) == ToolOutcome("hello", True)
    assert dispatch(box, "echo", {"message": ""}) == ToolOutcome("", True)


@pytest.mark.parametrize("arguments", ["{}", {}, {"other": "x"}])
def test_echo_without_message_succeeds_with_empty_marker(arguments: str | dict[str, Any]) -> None:
    box, record = make_box()
    assert dispatch(box, "echo", arguments) == ToolOutcome("(empty)", True)
    assert record.calls[0].result == "(empty)"
    assert record.calls[0].success is True


def test_echo_with_a_non_string_message_fails() -> None:
    box, record = make_box()
    outcome = dispatch(box, "echo", {"message": 5})
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
    outcome = dispatch(box, "file_read", arguments)
    assert not outcome.success
    assert words in outcome.content
    assert record.calls[-1].success is False


def test_file_read_of_non_utf8_fails(workspace: Workspace) -> None:
    (workspace.root / "bin.dat").write_bytes(b"\xff\xfe\x00")
    box, _ = make_box(workspace)
    outcome = dispatch(box, "file_read", {"path": "bin.dat"})
    assert not outcome.success


def test_file_write_creates_parent_folders_and_replaces(workspace: Workspace) -> None:
    box, record = make_box(workspace)
    outcome = dispatch(box, "file_write", {"path": "new/deeper/out.txt", "content": "first"})
    assert outcome.success
    assert "new/deeper/out.txt" in outcome.content
    target = workspace.root / "new" / "deeper" / "out.txt"
    assert target.read_text(encoding="utf-8") == "first"
    assert dispatch(box, "file_write", {"path": "new/deeper/out.txt", "content": "東京 second"}).success
    assert target.read_text(encoding="utf-8") == "東京 second"
    assert [c.success for c in record.calls] == [True, True]


def test_file_write_makes_folders_deeper_than_the_recursion_limit(workspace: Workspace) -> None:
    # Path.mkdir(parents=True) recurses once per missing folder: 1,500 new levels ended
    # in a RecursionError, a failed call an agent could not have caused any other way.
    box, _ = make_box(workspace)
    deep = "/".join(["d"] * 1_500) + "/out.txt"
    try:
        outcome = dispatch(box, "file_write", {"path": deep, "content": "v"})
        assert outcome.success, outcome.content
        assert (workspace.root / deep).read_text(encoding="utf-8") == "v"
    finally:  # pytest's own clean-up of old temporary folders recurses per level
        remove_tree(workspace.root / "d")


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
    outcome = dispatch(box, "file_write", arguments)
    assert not outcome.success
    assert words in outcome.content


def test_list_dir_is_sorted_and_marks_folders(workspace: Workspace) -> None:
    (workspace.root / "b.txt").write_text("", encoding="utf-8")
    (workspace.root / "A_upper.txt").write_text("", encoding="utf-8")
    box, _ = make_box(workspace)
    listing = dispatch(box, "list_dir", {})
    assert listing.success
    lines = listing.content.split("\n")
    assert lines == sorted(lines)
    assert set(lines) == {"A_upper.txt", "b.txt", "docs/", "hello.txt", "link.txt"}
    assert dispatch(box, "list_dir", {"path": "."}) == listing
    assert dispatch(box, "list_dir", {"path": "docs"}) == ToolOutcome("a.md", True)


def test_list_dir_of_a_file_or_missing_folder_fails(workspace: Workspace) -> None:
    box, _ = make_box(workspace)
    assert not dispatch(box, "list_dir", {"path": "hello.txt"}).success
    assert not dispatch(box, "list_dir", {"path": "nowhere"}).success


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
    outcome = dispatch(box, name, arguments)
    assert not outcome.success
    assert "TOP SECRET" not in outcome.content
    if name == "list_dir":
        assert "secret.txt" not in outcome.content  # no entry outside the workspace is listed
    assert not (outside / "new.txt").exists()
    assert record.calls[0].success is False


def test_workspace_tools_without_a_workspace_fail() -> None:
    box, _ = make_box(None)
    for name, arguments in (("file_read", {"path": "a"}), ("file_write", {"path": "a", "content": "b"})):
        outcome = dispatch(box, name, arguments)
        assert not outcome.success
        assert "no workspace" in outcome.content
    assert not dispatch(box, "list_dir", {}).success


def test_a_tool_that_raises_is_a_failed_outcome() -> None:
    def explode(arguments: dict[str, Any], workspace: Workspace | None) -> str:
        raise RuntimeError("kaboom")

    record = RunRecord()
    tool = Tool(ToolSpec("explode", "always fails", {"type": "object"}), explode)
    box = ToolBox({"explode": tool}, record)
    outcome = dispatch(box, "explode", {})
    assert not outcome.success
    assert "RuntimeError" in outcome.content
    assert "kaboom" in outcome.content
    assert record.calls[0].result == outcome.content
    assert record.calls[0].success is False


def test_tools_for_case_are_the_named_builtins_in_order() -> None:
    assert list(tools_for_case([])) == []
    assert list(tools_for_case(["file_read", "echo"])) == ["file_read", "echo"]
    assert list(tools_for_case(["no_such_tool"])) == []


def _calling(name: str, **overrides: Any) -> LlmTrace:
    steps = [{"response": {"type": "tool_calls", "tool_calls": [{"name": name}]}}, text_step("done")]
    return LlmTrace.model_validate(minimal_fixture(turns=[{"user_input": "go", "steps": steps}], **overrides))


def test_echo_is_offered_only_to_a_case_that_names_it_unless_always() -> None:
    silent = LlmTrace.model_validate(minimal_fixture(tools=["file_read"]))
    assert offered_names(silent, silent.tools, builtin_tools="named") == ["file_read"]
    assert offered_names(silent, silent.tools, builtin_tools="always") == ["echo", "file_read"]
    # A script that calls echo names it, listed or not (as the upstream fixtures do).
    scripted = _calling("echo", tools=["file_read"])
    assert offered_names(scripted, scripted.tools, builtin_tools="named") == ["echo", "file_read"]
    listed = LlmTrace.model_validate(minimal_fixture(tools=["file_read", "echo"]))
    assert offered_names(listed, listed.tools, builtin_tools="named") == ["file_read", "echo"]
    assert offered_names(listed, listed.tools, builtin_tools="always") == ["file_read", "echo"]
    # A call in a later turn names it too; a call to another tool does not.
    later = minimal_fixture()
    later["turns"].append(_calling("echo").model_dump(exclude_none=True)["turns"][0])
    later_trace = LlmTrace.model_validate(later)
    assert offered_names(later_trace, [], builtin_tools="named") == ["echo"]
    other = _calling("file_read", tools=["file_read"])
    assert offered_names(other, other.tools, builtin_tools="named") == ["file_read"]
    # An MCP client calls it under its server's prefix; a longer name is a tool of its own.
    prefixed = _calling("files_echo")
    assert offered_names(prefixed, [], builtin_tools="named") == ["echo"]
    own = _calling("myecho")
    assert offered_names(own, [], builtin_tools="named") == []
    assert set(WORKSPACE_TOOLS) == {"file_read", "file_write", "list_dir"}
    assert "echo" not in WORKSPACE_TOOLS
    assert set(BUILTIN_TOOLS) == {"echo", *WORKSPACE_TOOLS}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_file_read_and_write_refuse_a_named_pipe_without_waiting_for_the_other_end(
    workspace: Workspace,
) -> None:
    # The built-in tools run on the event loop: opening a pipe would hold it (and every
    # time limit with it) until a writer or a reader came, which may be never.
    os.mkfifo(workspace.root / "pipe")
    box, _ = make_box(workspace)
    read = dispatch(box, "file_read", {"path": "pipe"})
    assert not read.success
    assert read.content == "pipe: it is a named pipe, not a file: give file_read's path as a file"
    written = dispatch(box, "file_write", {"path": "pipe", "content": "x"})
    assert not written.success
    assert written.content.startswith("pipe: cannot write the file")


def test_file_read_refuses_a_file_over_its_bound_unread(workspace: Workspace) -> None:
    with (workspace.root / "huge.txt").open("wb") as stream:
        stream.truncate(MAX_READ_BYTES + 1)  # sparse: nothing is written
    box, _ = make_box(workspace)
    outcome = dispatch(box, "file_read", {"path": "huge.txt"})
    assert not outcome.success
    assert "over the 16,777,216-byte limit for file_read's path" in outcome.content


def test_file_read_reads_line_ends_as_text_mode_does(workspace: Workspace) -> None:
    (workspace.root / "crlf.txt").write_bytes(b"one\r\ntwo\rthree\n")
    box, _ = make_box(workspace)
    assert dispatch(box, "file_read", {"path": "crlf.txt"}) == ToolOutcome("one\ntwo\nthree\n", True)


def test_file_write_replaces_a_longer_file_whole(workspace: Workspace) -> None:
    (workspace.root / "out.txt").write_text("a much longer earlier text", encoding="utf-8")
    box, _ = make_box(workspace)
    assert dispatch(box, "file_write", {"path": "out.txt", "content": "short"}).success
    assert (workspace.root / "out.txt").read_text(encoding="utf-8") == "short"
