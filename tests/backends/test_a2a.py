"""`zeroclaw_eval.backends.a2a`: the agent card read, the message sent and the answer put
together from what an A2A agent sends back, in both protocol versions (the whole run
through a real a2a-sdk agent is in tests/cli/commands/test_run_agent_a2a.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zeroclaw_eval.backends.a2a import V03, V1, AgentCard, answer_of, read_card, request
from zeroclaw_eval.errors import A2AError

CARD_V1 = {
    "name": "desk",
    "supportedInterfaces": [
        {"url": "https://agents.example.com/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
        {"url": "https://agents.example.com/a2a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
    ],
    "capabilities": {"streaming": True},
}
#: A card as a2a-sdk 0.3 writes it: one URL, its transport and the protocol version.
CARD_V03 = {"name": "desk", "url": "http://localhost:9999/", "protocolVersion": "0.3.0", "capabilities": {}}


def test_a_1_0_card_gives_its_json_rpc_interfaces_path_version_and_streaming() -> None:
    assert read_card(json.dumps(CARD_V1)) == AgentCard("/a2a/v1", V1, True, "desk")


def test_a_0_3_card_gives_its_urls_path_and_no_streaming_unless_it_says_so() -> None:
    assert read_card(json.dumps(CARD_V03)) == AgentCard("/", V03, False, "desk")


@pytest.mark.parametrize(
    ("card", "words"),
    [
        ("not json", "is not JSON"),
        ("[]", "is not a JSON object"),
        (json.dumps({"url": "http://h/", "preferredTransport": "GRPC"}), "offers no JSON-RPC interface"),
        (json.dumps({"supportedInterfaces": [{"protocolBinding": "HTTP+JSON"}]}), "offers no JSON-RPC"),
    ],
)
def test_a_card_the_harness_cannot_talk_to_is_refused_saying_why(card: str, words: str) -> None:
    with pytest.raises(A2AError, match=words):
        read_card(card)


def test_the_message_is_the_users_text_in_the_cases_context_with_its_workspace() -> None:
    sent = request(AgentCard("/", V1, False), "Where is order 42?", "case.json#1", "/tmp/w")
    assert sent["method"] == "SendMessage"
    message = sent["params"]["message"]
    assert message["role"] == "ROLE_USER"
    assert message["parts"] == [{"text": "Where is order 42?"}]
    assert message["contextId"] == "case.json#1"
    assert message["metadata"] == {"zeroclaw_workspace": "/tmp/w"}
    old = request(AgentCard("/", V03, True), "hi", "c", "/w")
    assert old["method"] == "message/stream"
    assert old["params"]["message"]["parts"] == [{"kind": "text", "text": "hi"}]
    assert old["params"]["message"]["role"] == "user"


def _response(result: Any, number: Any = 1) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": number, "result": result})


def _events(*results: Any) -> str:
    return "".join(f"data: {json.dumps({'jsonrpc': '2.0', 'id': 1, 'result': r})}\n\n" for r in results)


PLAIN, STREAMING = AgentCard("/", V1, False), AgentCard("/", V1, True)
#: The case's context, as the request sends it.
CONTEXT = "case.json#1"


def _answer(card: AgentCard, body: str) -> str:
    """The answer to request 1 in the case's context."""
    sent = request(card, "Where is order 42?", CONTEXT, "/tmp/w")
    sent["id"] = 1
    return answer_of(card, body, sent)


def test_a_tasks_answer_is_its_artifacts_text_once_completed() -> None:
    task = {
        "id": "t",
        "status": {"state": "TASK_STATE_COMPLETED"},
        "artifacts": [
            {"artifactId": "a", "parts": [{"text": "Order 42 "}, {"data": {"x": 1}}, {"text": "shipped."}]},
            {"artifactId": "b", "parts": [{"text": "Anything else?"}]},
        ],
    }
    assert _answer(PLAIN, _response({"task": task})) == "Order 42 shipped.\nAnything else?"


def test_a_task_asking_for_input_answers_with_its_status_message() -> None:
    status = {"state": "TASK_STATE_INPUT_REQUIRED", "message": {"parts": [{"text": "Which order?"}]}}
    assert _answer(PLAIN, _response({"task": {"id": "t", "status": status}})) == "Which order?"


def test_a_0_3_task_and_message_are_read_by_their_kind() -> None:
    old = AgentCard("/", V03, False)
    task = {
        "kind": "task",
        "status": {"state": "completed"},
        "artifacts": [{"parts": [{"kind": "text", "text": "ok"}]}],
    }
    assert _answer(old, _response(task)) == "ok"
    message = {"kind": "message", "role": "agent", "parts": [{"kind": "text", "text": "hello"}]}
    assert _answer(old, _response(message)) == "hello"


def test_a_stream_is_put_together_artifacts_appended_where_an_update_says_so() -> None:
    body = _events(
        {"task": {"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}}},
        {"statusUpdate": {"status": {"state": "TASK_STATE_WORKING"}}},
        {"artifactUpdate": {"artifact": {"artifactId": "a", "parts": [{"text": "Order 42 "}]}}},
        {
            "artifactUpdate": {
                "artifact": {"artifactId": "a", "parts": [{"text": "shipped."}]},
                "append": True,
            }
        },
        {"artifactUpdate": {"artifact": {"artifactId": "b", "parts": [{"text": "draft"}]}}},
        {"artifactUpdate": {"artifact": {"artifactId": "b", "parts": [{"text": "Bye."}]}}},
        {"statusUpdate": {"status": {"state": "TASK_STATE_COMPLETED"}}},
    )
    assert _answer(STREAMING, body) == "Order 42 shipped.\nBye."


@pytest.mark.parametrize(
    ("card", "body", "words"),
    [
        (PLAIN, _response({"task": {"status": {"state": "TASK_STATE_FAILED"}}}), "ended its task failed"),
        (PLAIN, _response({"task": {"status": {"state": "TASK_STATE_REJECTED"}}}), "ended its task rejected"),
        (PLAIN, _response({"task": {"status": {"state": "TASK_STATE_WORKING"}}}), "its task still working"),
        (PLAIN, _response({"task": {}}), "its task still without a state"),
        (PLAIN, _response({"weather": "sunny"}), "a result that is no message, task or update"),
        (
            PLAIN,
            json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "no task"}}),
            "JSON-RPC error -32001: 'no task'",
        ),
        (PLAIN, json.dumps({"jsonrpc": "2.0", "id": 1}), "neither result nor error"),
        (PLAIN, "<html>", "a body that is not JSON"),
        (STREAMING, ": keep-alive\n\n", "an event stream that holds no event"),
        (
            STREAMING,
            _events({"statusUpdate": {"status": {"state": "TASK_STATE_CANCELED"}}}),
            "ended its task canceled",
        ),
    ],
)
def test_what_is_no_answer_is_refused_saying_why(card: AgentCard, body: str, words: str) -> None:
    with pytest.raises(A2AError, match=words.replace("(", r"\(").replace(")", r"\)")):
        _answer(card, body)


def test_a_streaming_agent_that_answers_with_one_response_is_read_as_one() -> None:
    # The card says it streams, but the server answered with plain JSON.
    assert _answer(STREAMING, _response({"message": {"parts": [{"text": "hi"}]}})) == "hi"


def _status(state: str, **more: Any) -> dict[str, Any]:
    return {"statusUpdate": {"status": {"state": state}, **more}}


def _artifact(text: str, **more: Any) -> dict[str, Any]:
    return {"artifactUpdate": {"artifact": {"artifactId": "a", "parts": [{"text": text}]}, **more}}


@pytest.mark.parametrize(
    ("card", "body", "words"),
    [
        # A failure may not be taken back, nor an answer added to.
        (
            STREAMING,
            _events(_artifact("partial"), _status("TASK_STATE_FAILED"), _status("TASK_STATE_COMPLETED")),
            "with more after its task failed",
        ),
        (
            STREAMING,
            _events(_status("TASK_STATE_COMPLETED"), _artifact("more")),
            "with more after its task completed",
        ),
        (
            STREAMING,
            _events(_status("TASK_STATE_FAILED"), {"message": {"parts": [{"text": "fine"}]}}),
            "with more after its task failed",
        ),
        (
            STREAMING,
            _events({"message": {"parts": [{"text": "a"}]}}, {"message": {"parts": [{"text": "b"}]}}),
            "with more after a message",
        ),
        (
            STREAMING,
            _events({"task": {"id": "t1"}}, {"message": {"parts": [{"text": "hi"}]}}),
            "a message among the events of task t1",
        ),
        # What is not this request's answer: another request's, conversation's or task's.
        (
            PLAIN,
            _response({"message": {"parts": [{"text": "hi"}]}}, 999),
            "with the response to request id 999",
        ),
        (PLAIN, json.dumps({"result": {"message": {"parts": [{"text": "hi"}]}}}), "to request id null"),
        (
            PLAIN,
            _response({"task": {"contextId": "other.json#7", "status": {"state": "TASK_STATE_COMPLETED"}}}),
            "in context 'other.json#7', not the case's 'case.json#1'",
        ),
        (
            STREAMING,
            _events(_artifact("x", taskId="t1"), _status("TASK_STATE_COMPLETED", taskId="t2")),
            "with events of task 't2' and of 't1'",
        ),
        (
            PLAIN,
            _response({"message": {"role": "ROLE_USER", "parts": [{"text": "Where is order 42?"}]}}),
            "a message of role 'ROLE_USER', not the agent's",
        ),
        (
            PLAIN,
            _response(
                {"task": {"status": {"state": "TASK_STATE_FAILED"}}, "message": {"parts": [{"text": "ok"}]}}
            ),
            "a result that is no message, task or update",
        ),
    ],
)
def test_what_is_not_this_requests_answer_or_takes_back_a_failure_is_refused(
    card: AgentCard, body: str, words: str
) -> None:
    with pytest.raises(A2AError) as raised:
        _answer(card, body)
    assert words in str(raised.value)


def test_artifacts_without_ids_are_kept_apart_from_one_whose_id_is_a_number() -> None:
    body = _events(
        {"artifactUpdate": {"artifact": {"artifactId": "0", "parts": [{"text": "A"}]}}},
        {"artifactUpdate": {"artifact": {"parts": [{"text": "B"}]}}},
        {"artifactUpdate": {"artifact": {"parts": [{"text": "C"}]}}},
        _status("TASK_STATE_COMPLETED"),
    )
    assert _answer(STREAMING, body) == "A\nB\nC"


@pytest.mark.parametrize(
    ("card", "words"),
    [
        ({"supportedInterfaces": 5}, "offers no JSON-RPC interface"),
        ({"url": "http://[::1/rpc"}, "is no URL"),
        ({"url": "http://h/r\u0000pc"}, "has a path no request can carry"),
    ],
)
def test_a_card_with_an_endpoint_no_request_can_reach_is_refused(card: dict[str, Any], words: str) -> None:
    with pytest.raises(A2AError, match=words):
        read_card(json.dumps(card))


def test_a_card_endpoint_is_a_path_on_the_agents_own_port() -> None:
    assert read_card(json.dumps({"url": "http://h//evil?x=1"})).path == "/evil"
