"""`zeroclaw_eval.tools.sandbox`: the tools a case is offered, and what the live sandbox
approves and denies."""

from __future__ import annotations

import asyncio

from tests.support.builders import minimal_fixture
from zeroclaw_eval.boundary.record import RecordedCall, RunRecord
from zeroclaw_eval.cases.model import LlmTrace
from zeroclaw_eval.tools.sandbox import case_toolbox, denial_error, denied_calls, offered_tools


def trace(**overrides: object) -> LlmTrace:
    return LlmTrace.model_validate(minimal_fixture(**overrides))


def test_offered_tools_are_the_case_tools_on_the_allowlist_in_case_order() -> None:
    assert offered_tools(["list_dir", "file_write", "file_read"], {"file_read", "list_dir"}) == [
        "list_dir",
        "file_read",
    ]
    assert offered_tools(["file_write"], []) == []


def test_replay_offers_the_case_tools_and_live_only_the_allowed_ones() -> None:
    record = RunRecord()
    case = trace(tools=["file_write", "list_dir"])
    replay = case_toolbox(case, record, None)
    live = case_toolbox(case, record, None, live_allowed=["list_dir"])
    assert [spec.name for spec in replay.specs()] == ["file_write", "list_dir"]
    assert [spec.name for spec in live.specs()] == ["list_dir"]
    # `always` offers echo besides, as every case was offered it before `named`.
    always = case_toolbox(case, record, None, live_allowed=["list_dir"], builtin_tools="always")
    assert [spec.name for spec in always.specs()] == ["echo", "list_dir"]


def test_a_call_the_live_sandbox_did_not_offer_is_denied_and_recorded() -> None:
    record = RunRecord()
    box = case_toolbox(trace(tools=["file_write"]), record, None, live_allowed=[])
    outcome = asyncio.run(box.call("file_write", {"path": "x", "content": "y"}, "w1"))
    assert not outcome.success
    assert box.denials == [outcome.content]
    assert "approval denied" in outcome.content
    assert [(c.name, c.success) for c in record.calls] == [("file_write", False)]
    error = denial_error(0, box.denials[0])
    assert error.pointer == "/turns/0"
    assert error.message.startswith("turn 1: approval denied")
    assert "[eval].live_allowed_tools" in error.message


def test_denied_calls_are_the_recorded_calls_to_tools_not_offered() -> None:
    calls = [
        RecordedCall(0, "c1", "echo", {}, "", True),
        RecordedCall(0, "c2", "list_dir", {}, "", True),
        RecordedCall(0, "c3", "file_write", {}, "denied", False),
    ]
    record = RunRecord(calls=calls)
    assert denied_calls(record, ["echo", "list_dir"]) == ["file_write"]
    assert denied_calls(record, ["echo", "list_dir", "file_write"]) == []
    # echo is denied like any tool where the case was not offered it.
    assert denied_calls(record, ["list_dir"]) == ["echo", "file_write"]
