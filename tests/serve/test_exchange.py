"""`zeroclaw_eval.serve.exchange` over real HTTP: both APIs plain and streamed, and the
requests serve refuses instead of answering with a 200 they do not deserve."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

import anthropic
import httpx
import openai
import pytest

from tests.support.scripts import ANSWER_1, CALL_1, ECHO_TOOL, RESULT_1, USER_1, USER_2, post
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.serve.request_log import MAX_LOG, RequestLog
from zeroclaw_eval.serve.server import ReplayServer
from zeroclaw_eval.wire.endpoint import MAX_BODY

FLAT_ECHO: Any = {
    "type": "function",
    "name": "echo",
    "description": "Echo.",
    "parameters": {"type": "object"},
}


def client(server: ReplayServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key="x", max_retries=0)


def test_a_streamed_chat_conversation_follows_the_script(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    messages: list[Any] = [{"role": "user", "content": "Echo hello"}]
    with client(server).chat.completions.stream(model="two_turns", messages=messages, tools=[ECHO_TOOL]) as s:
        first = s.get_final_completion().choices[0].message
    assert first.tool_calls is not None
    assert (first.tool_calls[0].id, first.tool_calls[0].function.name) == ("call_1", "echo")
    messages += [first.model_dump(exclude_none=True), RESULT_1]
    stream = client(server).chat.completions.create(
        model="two_turns", messages=messages, tools=[ECHO_TOOL], stream=True
    )
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert text == "The echo tool said: hello"
    assert [(e["status"], e["stream"], e["step"]) for e in server.requests()] == [
        (200, True, 0),
        (200, True, 1),
    ]


def test_the_responses_api_plain_then_streamed_with_a_previous_response(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    first = client(server).responses.create(model="two_turns", input="Echo hello", tools=[FLAT_ECHO])
    (call,) = first.output
    assert call.type == "function_call"
    assert (call.call_id, call.name, json.loads(call.arguments)) == ("call_1", "echo", {"message": "hello"})
    result: Any = [{"type": "function_call_output", "call_id": "call_1", "output": "hello"}]
    with client(server).responses.stream(
        model="two_turns", input=result, previous_response_id=first.id, tools=[FLAT_ECHO]
    ) as stream:
        second = stream.get_final_response()
    assert second.output_text == "The echo tool said: hello"
    log = server.requests()
    assert [(e["api"], e["status"], e["stream"]) for e in log] == [
        ("responses", 200, False),
        ("responses", 200, True),
    ]
    assert log[1]["tool_results"] == [{"call_id": "call_1", "name": "echo", "content": "hello"}]


ECHO_ANTHROPIC: Any = {"name": "echo", "description": "Echo.", "input_schema": {"type": "object"}}


def test_the_anthropic_sdk_follows_the_script_streamed_then_plain(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    # The Anthropic SDKs add /v1 themselves: their base URL is the server's root.
    client = anthropic.Anthropic(base_url=server.url.removesuffix("/v1"), api_key="x", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "Echo hello"}]
    with client.messages.stream(
        model="two_turns", max_tokens=64, messages=messages, tools=[ECHO_ANTHROPIC]
    ) as s:
        first = s.get_final_message()
    assert [(b.type, getattr(b, "input", None)) for b in first.content] == [
        ("tool_use", {"message": "hello"})
    ]
    messages += [
        {"role": "assistant", "content": [block.model_dump() for block in first.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "hello"}]},
    ]
    second = client.messages.create(
        model="two_turns", max_tokens=64, messages=messages, tools=[ECHO_ANTHROPIC]
    )
    assert [block.text for block in second.content if block.type == "text"] == ["The echo tool said: hello"]
    log = server.requests()
    assert [(entry["api"], entry["status"], entry["fixture"]) for entry in log] == [
        ("messages", 200, "two_turns.json"),
        ("messages", 200, "two_turns.json"),
    ]
    assert log[1]["tool_results"] == [{"call_id": "call_1", "name": "echo", "content": "hello"}]


def test_an_anthropic_request_left_the_script_is_refused_in_anthropics_shape(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    client = anthropic.Anthropic(base_url=server.url.removesuffix("/v1"), api_key="x", max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as raised:
        client.messages.create(
            model="two_turns", max_tokens=64, messages=[{"role": "user", "content": "Echo hello"}], tools=[]
        )
    error: Any = raised.value.body
    assert error["type"] == "error"
    assert "offers the model no tool named echo" in error["error"]["message"]
    # The base URL given with /v1, which the SDK doubles, gets a 404 that says so.
    doubled = anthropic.Anthropic(base_url=server.url, api_key="x", max_retries=0)
    with pytest.raises(anthropic.NotFoundError, match="add /v1 themselves"):
        doubled.messages.create(model="two_turns", max_tokens=64, messages=[{"role": "user", "content": "x"}])


def test_a_messages_request_without_max_tokens_is_refused_as_the_api_refuses_it(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    # The real API answers such a request 400 "max_tokens: Field required": an agent that
    # never sends it must not be served the step it asks for.
    server = serve([two_turns])
    body = {"model": "two_turns", "messages": [{"role": "user", "content": "Echo hello"}], "tools": []}
    reply = httpx.post(server.url + "/messages", json=body, timeout=5)
    assert reply.status_code == 400
    assert reply.json()["error"]["type"] == "invalid_request_error"
    assert reply.json()["error"]["message"].startswith("max_tokens: Field required")
    (logged,) = server.requests()
    assert (logged["api"], logged["fixture"], logged["status"]) == ("messages", "two_turns.json", 400)
    assert "max_tokens: Field required" in logged["divergence"]


def test_an_unknown_previous_response_is_a_400(two_turns: Case, serve: Callable[..., ReplayServer]) -> None:
    reply = httpx.post(
        serve([two_turns]).url + "/responses",
        json={"model": "two_turns", "input": "Echo hello", "previous_response_id": "resp_gone"},
        timeout=5,
    )
    assert reply.status_code == 400
    assert "Previous response with id 'resp_gone' not found" in reply.json()["error"]["message"]


def test_a_request_that_does_not_offer_the_scripted_tool_is_refused_with_the_field(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    # An agent whose tool was renamed must not get the call and make up an answer.
    renamed = [{"type": "function", "function": {"name": "repeat", "parameters": {}}}]
    reply = post(serve([two_turns]), "two_turns", [USER_1], tools=renamed)
    assert reply.status_code == 400
    message = reply.json()["error"]["message"]
    assert message.startswith(f"diverged from the script of two_turns.json at {two_turns.path.as_posix()}:")
    field = two_turns.locate("/turns/0/steps/0", at_key=True)
    assert f"two_turns.json:{field.line}:{field.col}: turn 1, step 1: the script calls echo" in message
    assert "offers the model no tool named echo (it offers: repeat)" in message


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"tool_choice": "none"}, 'the script calls echo, but the request\'s tool_choice is "none"'),
        ({"tool_choice": {"type": "function", "function": {"name": "other"}}}, "tool_choice forces other"),
        ({"tool_choice": "sometimes"}, "tool_choice 'sometimes' is not none, auto, required"),
    ],
)
def test_a_request_whose_tool_choice_forbids_the_step_is_refused(
    two_turns: Case, serve: Callable[..., ReplayServer], extra: dict[str, Any], words: str
) -> None:
    server = serve([two_turns])
    reply = post(server, "two_turns", [USER_1], **extra)
    assert reply.status_code == 400
    assert words in reply.json()["error"]["message"]
    # The step was not served: the same request without the ban gets it.
    assert post(server, "two_turns", [USER_1]).status_code == 200


def test_a_request_the_endpoint_cannot_read_is_logged_with_its_fixture(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    body = {"model": "two_turns", "input": [{"type": "item_reference", "id": "msg_gone"}]}
    reply = httpx.post(server.url + "/responses", json=body, timeout=5)
    assert reply.status_code == 400
    (logged,) = server.requests()
    assert (logged["model"], logged["fixture"], logged["status"]) == ("two_turns", "two_turns.json", 400)
    assert "Item with id 'msg_gone' not found" in logged["divergence"]


def test_a_step_asked_for_again_is_refused_until_a_reset(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    assert post(server, "two_turns", [USER_1]).status_code == 200
    again = post(server, "two_turns", [USER_1])
    assert again.status_code == 400
    assert "turn 1, step 1 was already served (request 1)" in again.json()["error"]["message"]
    reset = httpx.post(server.url.removesuffix("/v1") + "/_zeroclaw/reset", timeout=5)
    assert reset.json() == {"run": 2}
    assert server.requests() == []  # the new run's log starts empty
    assert post(server, "two_turns", [USER_1]).status_code == 200
    assert [(e["run"], e["number"]) for e in server.requests()] == [(2, 1)]


def test_a_finished_case_may_run_again_from_its_first_step(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    # Every step served: asking for the first one again is a new run (a client that runs
    # each case several times), not a loop. Mid-run it is still refused.
    server = serve([two_turns])
    for _ in range(2):
        assert post(server, "two_turns", [USER_1]).status_code == 200
        assert post(server, "two_turns", [USER_1, CALL_1, RESULT_1]).status_code == 200
        assert post(server, "two_turns", [USER_1, CALL_1, RESULT_1, ANSWER_1, USER_2]).status_code == 200
    assert post(server, "two_turns", [USER_1]).status_code == 200
    assert post(server, "two_turns", [USER_1]).status_code == 400


def test_the_divergence_of_a_later_step_points_at_its_field(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    reply = post(serve([two_turns]), "two_turns", [USER_1, CALL_1])
    field = two_turns.locate("/turns/0/steps/0/response/tool_calls", at_key=True)
    assert (
        f"two_turns.json:{field.line}:{field.col}: the request does not carry the results of"
        in (reply.json()["error"]["message"])
    )


def test_a_body_over_the_limit_is_refused_with_413_unread(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    where = urlparse(serve([two_turns]).url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=5)
    connection.putrequest("POST", "/v1/chat/completions")
    connection.putheader("Content-Length", str(MAX_BODY + 1))
    connection.endheaders()  # no body follows: the server must answer without waiting for it
    response = connection.getresponse()
    assert response.status == 413
    assert f"the limit is {MAX_BODY}" in json.loads(response.read())["error"]["message"]
    connection.close()


def test_the_log_keeps_the_newest_entries_only(two_turns: Case) -> None:
    assert ReplayServer([two_turns]).log.max_entries == MAX_LOG
    server = ReplayServer([two_turns], log=RequestLog(max_entries=2)).start()
    try:
        for model in ("a", "b", "c"):
            post(server, model, [{"role": "user", "content": "nothing"}])
        assert [entry["model"] for entry in server.requests()] == ["b", "c"]
    finally:
        server.stop()


def test_a_chunked_body_without_a_length_is_refused_with_411(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    where = urlparse(serve([two_turns]).url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=5)
    connection.request(
        "POST", "/v1/chat/completions", body=iter([b'{"model": "two_turns"}']), encode_chunked=True
    )
    response = connection.getresponse()
    assert response.status == 411
    assert "Content-Length" in json.loads(response.read())["error"]["message"]
    connection.close()


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"Transfer-Encoding: chunked", b"411"),
        (f"Content-Length: {MAX_BODY + 1}".encode(), b"413"),
        (b"Content-Length: many", b"400"),
    ],
)
def test_a_client_still_sending_a_refused_body_gets_the_answer_not_a_reset(
    two_turns: Case, serve: Callable[..., ReplayServer], head: bytes, status: bytes
) -> None:
    # The server answers from the headers; closed at once with the body's first bytes
    # unread, its socket would reset the connection under a client still sending.
    where = urlparse(serve([two_turns]).url)
    with socket.create_connection((where.hostname or "", where.port or 0), timeout=5) as client:
        client.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + head + b"\r\n\r\n")
        time.sleep(0.05)  # the answer is written and the server has moved on meanwhile
        client.sendall(b"5\r\nhello\r\n")
        time.sleep(0.05)
        client.sendall(b"0\r\n\r\n")
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 " + status + b" ")


def test_a_request_with_fields_of_odd_types_is_a_logged_400(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    odd = [USER_1, {**CALL_1, "tool_calls": [{"id": ["call_1"], "function": {"name": 7}}]}]
    reply = post(server, "two_turns", [*odd, {"role": "tool", "tool_call_id": ["call_1"], "content": "x"}])
    assert reply.status_code == 400
    assert reply.json()["error"]["type"] == "divergence"
    assert server.requests()[0]["status"] == 400
