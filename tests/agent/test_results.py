"""`agent.results`: the tool results an agent of this process sends the model must be what
its tools returned (a minimal, documented normalisation), else the case is a run error at
the call's field: an agent that feeds the model garbage never passes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.agents import Rewriting, rewriting
from tests.support.builders import (
    admit_case,
    admit_with_project_tools,
    run_replay,
    scripted_fixture,
    text_step,
    tool_call,
    tools_step,
)
from zeroclaw_eval import ProjectTool
from zeroclaw_eval.agent.results import ResultsChecked
from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest
from zeroclaw_eval.boundary.record import RecordedCall, RecordingProvider, RunRecord, TurnRecord
from zeroclaw_eval.boundary.sent import SentHistory
from zeroclaw_eval.errors import RunError
from zeroclaw_eval.tools.tool import ToolOutcome

#: A turn whose step calls echo twice, then answers; checks that pass whatever reached the model.
TWO_ECHOES = scripted_fixture(
    [
        (
            "Echo a and b",
            [
                tools_step(
                    tool_call("echo", {"message": "a"}, "c1"), tool_call("echo", {"message": "b"}, "c2")
                ),
                text_step("a and b"),
            ],
        )
    ],
    {"exact_tool_calls": 2, "tool_results_contain": [{"tool": "echo", "needle": "a"}]},
)


def test_an_agent_that_sends_garbage_in_place_of_a_result_fails_at_the_call(tmp_path: Path) -> None:
    case = admit_case(tmp_path, TWO_ECHOES)
    report = run_replay(case, agent_factory=rewriting(rewrite=lambda content, success: "garbage"))
    assert report.error is not None, report.grades
    assert report.error.field.pointer == "/turns/0/steps/0/response/tool_calls/0"
    assert report.error.message == (
        "turn 1, step 2: the result sent to the model for echo (call c1) is not what the tool returned:"
        ' the tool returned "a", the request sends "garbage"'
    )
    assert not report.passed
    # The tools ran and returned the right text: only what reached the model was wrong.
    assert report.record is not None
    assert [call.result for call in report.record.calls] == ["a", "b"]


def test_one_garbled_result_among_several_is_named(tmp_path: Path) -> None:
    case = admit_case(tmp_path, TWO_ECHOES)
    garble_b = rewriting(rewrite=lambda content, success: "B?" if content == "b" else content)
    report = run_replay(case, agent_factory=garble_b)
    assert report.error is not None
    assert report.error.field.pointer == "/turns/0/steps/0/response/tool_calls/1"
    assert "for echo (call c2) is not what the tool returned" in report.error.message


@pytest.mark.parametrize(
    "rewrite",
    [
        lambda content, success: content,
        lambda content, success: f"  {content}\n",  # whitespace around it
    ],
    ids=["as_returned", "trimmed"],
)
def test_the_result_as_the_tool_returned_it_passes(
    tmp_path: Path, rewrite: Callable[[str, bool], str]
) -> None:
    assert run_replay(admit_case(tmp_path, TWO_ECHOES), agent_factory=rewriting(rewrite=rewrite)).passed


def test_a_json_result_written_another_way_is_the_same_result(tmp_path: Path) -> None:
    # A dict a project's tool returns becomes compact JSON text; a framework that reads it
    # and writes it again (indented, keys reordered) sends the same value.
    fixture = scripted_fixture(
        [("Look it up", [tools_step(tool_call("lookup", {"id": 7}, "c1")), text_step("found")])],
        {"tools_used": ["lookup"]},
        tools=["lookup"],
    )
    lookup = ProjectTool("lookup", "Look up.", lambda id: {"name": "widget", "id": id})
    case = admit_with_project_tools(tmp_path, fixture)
    indented = rewriting(
        rewrite=lambda content, success: json.dumps(json.loads(content), indent=2, sort_keys=True)
    )
    assert run_replay(case, agent_factory=indented, tools=(lookup,)).passed
    other = rewriting(rewrite=lambda content, success: json.dumps({"name": "gadget", "id": 7}))
    report = run_replay(case, agent_factory=other, tools=(lookup,))
    assert report.error is not None
    assert 'the tool returned "{\\"name\\":\\"widget\\",\\"id\\":7}"' in report.error.message


def test_a_failed_call_may_be_reported_in_words_holding_its_failure(tmp_path: Path) -> None:
    # The reference loop sends "error: <the failure>"; frameworks wrap it in a retry prompt.
    fixture = scripted_fixture(
        [("Read it", [tools_step(tool_call("file_read", {"path": "missing.txt"}, "c1")), text_step("gone")])],
        {"all_tools_succeeded": False},
        tools=["file_read"],
    )
    case = admit_case(tmp_path, fixture)
    assert run_replay(case).passed  # the reference loop's "error: no such file: missing.txt"
    retry = rewriting(
        rewrite=lambda content, success: f"Tool failed: {content}. Fix the errors and try again."
    )
    assert run_replay(case, agent_factory=retry).passed
    # Words that do not read as a failure at all: the message is there, the model reads it.
    plain = rewriting(rewrite=lambda content, success: f"Tool failed: {content} (please retry)")
    assert run_replay(case, agent_factory=plain).passed
    vague = rewriting(rewrite=lambda content, success: "something went wrong")
    report = run_replay(case, agent_factory=vague)
    assert report.error is not None
    assert "is not what the tool returned" in report.error.message


def test_a_result_for_a_call_no_tool_ran_is_made_up(tmp_path: Path) -> None:
    report = run_replay(admit_case(tmp_path, TWO_ECHOES), agent_factory=rewriting(dispatch=False))
    assert report.error is not None
    assert report.error.field.pointer == "/turns/0/steps/0/response/tool_calls/0"
    assert "the result sent to the model for echo (call c1) was returned by no tool" in report.error.message


def test_calls_dispatched_without_their_ids_are_matched_in_order(tmp_path: Path) -> None:
    case = admit_case(tmp_path, TWO_ECHOES)
    assert run_replay(case, agent_factory=rewriting(with_ids=False)).passed
    swapped = rewriting(with_ids=False, rewrite=lambda content, success: {"a": "b", "b": "a"}[content])
    report = run_replay(case, agent_factory=swapped)
    assert report.error is not None
    assert 'the tool returned "a", the request sends "b"' in report.error.message


def test_calls_dispatched_without_ids_in_any_order_are_matched_by_tool_and_arguments(tmp_path: Path) -> None:
    # Calls run at once finish in any order: each dispatch is its own call's.
    case = admit_case(tmp_path, TWO_ECHOES)
    assert run_replay(case, agent_factory=rewriting(with_ids=False, reverse=True)).passed
    swapped = rewriting(
        with_ids=False, reverse=True, rewrite=lambda content, success: {"a": "b", "b": "a"}[content]
    )
    report = run_replay(case, agent_factory=swapped)
    assert report.error is not None
    assert 'the tool returned "a", the request sends "b"' in report.error.message


@pytest.mark.parametrize(
    ("redirect", "words"),
    [
        (
            lambda name, arguments: ("echo", {"message": "zzz"}),
            'the result of echo with "{\\"message\\":\\"zzz\\"}"',
        ),
        (lambda name, arguments: ("file_read", {"path": "x"}), "the result of file_read with"),
    ],
)
def test_a_result_of_another_dispatch_under_the_calls_id_is_refused(
    tmp_path: Path, redirect: Callable[[str, str], tuple[str, Any]], words: str
) -> None:
    # The dispatch list says what ran; the model asked for echo {"message": "a"}.
    report = run_replay(admit_case(tmp_path, TWO_ECHOES), agent_factory=rewriting(redirect=redirect))
    assert report.error is not None
    assert report.error.field.pointer == "/turns/0/steps/0/response/tool_calls/0"
    assert words in report.error.message
    assert 'not of the call the model asked for (echo with "{\\"message\\":\\"a\\"}")' in report.error.message


def test_a_success_marked_is_error_is_not_the_result(tmp_path: Path) -> None:
    case = admit_case(tmp_path, TWO_ECHOES)
    assert run_replay(case, agent_factory=rewriting(mark=lambda success: not success)).passed
    report = run_replay(case, agent_factory=rewriting(mark=lambda success: True))
    assert report.error is not None
    assert 'the tool returned "a", the request sends "a" marked is_error' in report.error.message


@pytest.mark.parametrize(
    "told",
    ["The tool succeeded: the answer is 42", "SUCCESS. file content: 'hello'.", "no such file"],
)
def test_a_failure_sent_without_its_message_is_not_the_result(tmp_path: Path, told: str) -> None:
    fixture = scripted_fixture(
        [("Read it", [tools_step(tool_call("file_read", {"path": "missing.txt"}, "c1")), text_step("gone")])],
        {"all_tools_succeeded": False},
        tools=["file_read"],
    )
    report = run_replay(
        admit_case(tmp_path, fixture), agent_factory=rewriting(rewrite=lambda content, success: told)
    )
    assert report.error is not None
    assert '"no such file: missing.txt" (a failure)' in report.error.message


def test_an_empty_failure_is_matched_only_as_it_was_returned(tmp_path: Path) -> None:
    fixture = scripted_fixture(
        [("Do it", [tools_step(tool_call("flaky", {}, "c1")), text_step("done")])],
        {"tools_used": ["flaky"]},
        tools=["flaky"],
    )
    loaded = admit_with_project_tools(tmp_path, fixture)
    flaky = ProjectTool("flaky", "Fails saying nothing.", lambda: ToolOutcome("", False))
    assert run_replay(loaded, tools=(flaky,), agent_factory=rewriting()).passed
    lie = rewriting(rewrite=lambda content, success: "Error: the answer is 42")
    report = run_replay(loaded, tools=(flaky,), agent_factory=lie)
    assert report.error is not None
    assert 'the tool returned "" (a failure)' in report.error.message


def test_a_json_result_with_a_key_given_twice_is_not_the_result(tmp_path: Path) -> None:
    fixture = scripted_fixture(
        [("Look it up", [tools_step(tool_call("lookup", {"id": 7}, "c1")), text_step("found")])],
        {"tools_used": ["lookup"]},
        tools=["lookup"],
    )
    loaded = admit_with_project_tools(tmp_path, fixture)
    lookup = ProjectTool("lookup", "Look up.", lambda id: {"name": "widget", "id": id})
    twice = rewriting(rewrite=lambda content, success: '{"name":"GARBAGE","name":"widget","id":7}')
    report = run_replay(loaded, agent_factory=twice, tools=(lookup,))
    assert report.error is not None
    assert "is not what the tool returned" in report.error.message


def test_a_result_rewritten_in_a_later_request_is_refused(tmp_path: Path) -> None:
    fixture = scripted_fixture(
        [
            ("Echo a", [tools_step(tool_call("echo", {"message": "a"}, "c1")), text_step("a")]),
            ("Now say bye", [text_step("bye")]),
        ],
        {"exact_tool_calls": 1, "tool_results_contain": [{"tool": "echo", "needle": "a"}]},
    )

    class RewritesHistory(Rewriting):
        async def run_turn(self, user_input: str) -> str:
            for message in self.messages:
                if message.get("role") == "tool":
                    message["content"] = "GARBAGE"
            return await super().run_turn(user_input)

    report = run_replay(admit_case(tmp_path, fixture), agent_factory=RewritesHistory)
    assert report.error is not None
    assert report.error.field.pointer == "/turns/1"
    assert report.error.message == (
        'turn 2: the request sends the result of call c1 as "GARBAGE", but an earlier request sent it as "a":'
        " a result the model has seen must not change"
    )


def test_an_agent_that_swallows_the_refusal_still_fails(tmp_path: Path) -> None:
    class Swallowing(Rewriting):
        rewrite = staticmethod(lambda content, success: "garbage")

        async def run_turn(self, user_input: str) -> str:
            try:
                return await super().run_turn(user_input)
            except Exception:
                return "a and b"  # as if all went well

    report = run_replay(admit_case(tmp_path, TWO_ECHOES), agent_factory=Swallowing)
    assert report.error is not None
    assert "is not what the tool returned" in report.error.message


def test_a_structured_result_sent_again_unchanged_is_not_a_rewrite(tmp_path: Path) -> None:
    # An agent that sends a JSON result as structured content (the object, not its text)
    # sends it again, unchanged, with the next turn: its text is the same JSON, not none.
    fixture = scripted_fixture(
        [
            ("Look it up", [tools_step(tool_call("lookup", {"id": 7}, "c1")), text_step("found")]),
            ("Now say bye", [text_step("bye")]),
        ],
        {"tools_used": ["lookup"]},
        tools=["lookup"],
    )
    lookup = ProjectTool("lookup", "Look up.", lambda id: {"name": "widget", "id": id})
    structured = rewriting(rewrite=lambda content, success: json.loads(content))
    report = run_replay(
        admit_with_project_tools(tmp_path, fixture), agent_factory=structured, tools=(lookup,)
    )
    assert report.error is None, report.error
    assert report.passed


def _live_requests(replies: list[ModelResponse], record: RunRecord) -> Callable[[list[Any]], Any]:
    """The checks of an agent's requests as a run stacks them (the recorder reading each
    request first, then the check of the results sent back), over a provider double that
    answers `replies` in order, in live mode (no script to follow)."""

    class Answers:
        async def complete(self, messages: list[Any], tools: list[Any], choice: Any = None) -> ModelResponse:
            return replies.pop(0)

    history = SentHistory()
    recording = RecordingProvider(ResultsChecked(Answers(), record, history, scripted=False), record, history)
    return lambda messages: asyncio.run(recording.complete(messages, []))


def _called(call_id: str, message: str) -> ModelResponse:
    return ModelResponse(None, (ToolCallRequest(call_id, "echo", json.dumps({"message": message})),))


def test_a_result_no_call_awaited_is_read_again_once_its_id_is_a_calls() -> None:
    # A result for an id no call had yet is nothing to check when it is first sent; once a
    # later reply calls that id and its result is accepted, the old one, sent again
    # unchanged, is a result of that call the model read otherwise: a rewrite.
    record = RunRecord(turns=[TurnRecord(0, "go")])
    send = _live_requests([_called("x", "a"), _called("y", "b"), ModelResponse("done", ())], record)
    user = {"role": "user", "content": "go"}
    asked_x = {
        "role": "assistant",
        "content": None,
        "tool_calls": [_called("x", "a").tool_calls[0].as_openai()],
    }
    asked_y = {
        "role": "assistant",
        "content": None,
        "tool_calls": [_called("y", "b").tool_calls[0].as_openai()],
    }
    send([user])
    record.calls.append(RecordedCall(0, "x", "echo", {"message": "a"}, "a", True))
    early = {"role": "tool", "tool_call_id": "y", "content": "made up"}
    send([user, asked_x, {"role": "tool", "tool_call_id": "x", "content": "a"}, early])
    record.calls.append(RecordedCall(0, "y", "echo", {"message": "b"}, "b", True))
    conversation = [user, asked_x, {"role": "tool", "tool_call_id": "x", "content": "a"}, early]
    send([*conversation, asked_y, {"role": "tool", "tool_call_id": "y", "content": "b"}])
    with pytest.raises(
        RunError, match='the result of call y as "made up", but an earlier request sent it as "b"'
    ):
        send(
            [
                *conversation,
                asked_y,
                {"role": "tool", "tool_call_id": "y", "content": "b"},
                {"role": "assistant", "content": "done"},
                {"role": "user", "content": "more"},
            ]
        )


def test_a_structured_result_read_again_whole_is_the_result_it_was() -> None:
    # A request whose start changed (a system message dropped) is read whole: a result
    # sent as structured content is still the text of its JSON, accepted before.
    record = RunRecord(turns=[TurnRecord(0, "go")])
    send = _live_requests([_called("x", "a"), ModelResponse("done", ()), ModelResponse("bye", ())], record)
    system, user = {"role": "system", "content": "Be brief."}, {"role": "user", "content": "go"}
    asked = {
        "role": "assistant",
        "content": None,
        "tool_calls": [_called("x", "a").tool_calls[0].as_openai()],
    }
    send([system, user])
    record.calls.append(RecordedCall(0, "x", "echo", {"message": "a"}, '{"said": "a"}', True))
    result = {"role": "tool", "tool_call_id": "x", "content": {"said": "a"}}
    send([system, user, asked, result])
    answer = send(
        [user, asked, result, {"role": "assistant", "content": "done"}, {"role": "user", "content": "bye"}]
    )
    assert answer.content == "bye"
