"""`zeroclaw_eval.serve.server` over real HTTP on loopback, and the official openai client against it."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
import openai
import pytest

from tests.support.scripts import (
    CALL_1,
    OTHER,
    RESULT_1,
    TWO_TURNS,
    USER_1,
    load,
    post,
)
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.serve.request_log import RequestLog
from zeroclaw_eval.serve.server import ReplayServer
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS


def test_a_divergence_is_a_400_saying_where(two_turns: Case, serve: Callable[..., ReplayServer]) -> None:
    server = serve([two_turns])
    reply = post(server, "two_turns", [USER_1, CALL_1])
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert error["type"] == "divergence"
    assert error["message"].startswith("diverged from the script of two_turns")
    assert error["message"].endswith("the request does not carry the results of echo (id call_1)")
    assert server.log[0]["status"] == 400
    assert "does not carry the results" in server.log[0]["divergence"]


def test_a_divergence_names_the_fixture_it_was_checked_against(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    # The agent names a real model; the server picked two_turns.json by the first user
    # message, so that is the script the agent diverged from and the one to name.
    server = serve([two_turns])
    reply = post(server, "gpt-4o-mini", [USER_1, CALL_1])
    assert reply.status_code == 400
    assert "two_turns.json" in reply.json()["error"]["message"]


def test_a_body_that_is_not_json_is_a_400(two_turns: Case, serve: Callable[..., ReplayServer]) -> None:
    server = serve([two_turns])
    reply = httpx.post(server.url + "/chat/completions", content=b"{not json", timeout=5)
    assert reply.status_code == 400
    assert "not a JSON object" in reply.json()["error"]["message"]


def test_unknown_routes_are_404_naming_the_route(two_turns: Case, serve: Callable[..., ReplayServer]) -> None:
    server = serve([two_turns])
    for method, path in [
        ("GET", "/v1/nothing?x=1"),
        ("POST", "/v1/completions"),
        ("GET", "/_zeroclaw/reset"),
    ]:
        reply = httpx.request(method, server.url.removesuffix("/v1") + path, json={}, timeout=5)
        assert reply.status_code == 404
        assert reply.json()["error"]["message"] == f"no route {method} {path}"
    assert server.requests() == []  # no model request: nothing numbered, nothing logged


def test_get_models_lists_the_fixture_stems(tmp_path: Path, serve: Callable[..., ReplayServer]) -> None:
    server = serve(load(tmp_path, weather=OTHER, two_turns=TWO_TURNS))
    listed = httpx.get(server.url + "/models", timeout=5).json()
    assert listed["object"] == "list"
    assert [model["id"] for model in listed["data"]] == ["two_turns", "weather"]


def test_the_request_log_holds_every_request_and_the_tool_results_fed_back(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    assert post(server, "two_turns", [USER_1]).status_code == 200
    assert post(server, "two_turns", [USER_1, CALL_1, RESULT_1]).status_code == 200
    assert post(server, "two_turns", [USER_1, CALL_1]).status_code == 400
    base = server.url.removesuffix("/v1")
    log = httpx.get(base + "/_zeroclaw/requests", timeout=5).json()
    assert [(e["number"], e["status"], e["fixture"], e["model"]) for e in log] == [
        (1, 200, "two_turns.json", "two_turns"),
        (2, 200, "two_turns.json", "two_turns"),
        (3, 400, "two_turns.json", "two_turns"),
    ]
    # Which step each request was served, what it offered, and the results it fed back.
    assert [(e["turn"], e["step"], e["stream"], e["offered_tools"]) for e in log[:2]] == [
        (0, 0, False, ["echo"]),
        (0, 1, False, ["echo"]),
    ]
    assert log[0]["tool_results"] == []
    assert log[1]["tool_results"] == [{"call_id": "call_1", "name": "echo", "content": "hello"}]
    assert log[1]["sent_roles"] == ["user", "assistant", "tool"]
    assert "does not carry the results" in log[2]["divergence"]
    assert all(e["run"] == 1 for e in log)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "example.com", "::"])
def test_a_host_that_is_not_loopback_is_refused(two_turns: Case, host: str) -> None:
    with pytest.raises(UsageError, match="loopback only"):
        ReplayServer([two_turns], host=host)


def test_a_hostname_that_merely_starts_with_127_is_refused(two_turns: Case) -> None:
    # "127.example.com" is a DNS name, not an address in 127.0.0.0/8: it may resolve to
    # any interface, so it must not pass the loopback check by its prefix.
    with pytest.raises(UsageError, match="loopback only"):
        ReplayServer([two_turns], host="127.example.com")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_hosts_are_served(two_turns: Case, host: str) -> None:
    server = ReplayServer([two_turns], host=host).start()
    try:
        assert post(server, "two_turns", [USER_1]).status_code == 200
    finally:
        server.stop()


def test_a_kept_alive_connection_answers_without_stalling(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    # Each answer is a few milliseconds of work. Headers and body sent as separate small
    # writes without TCP_NODELAY meet the client's delayed ACK: ~40 ms per request.
    server = serve([two_turns])
    with httpx.Client(timeout=5) as client:
        client.get(server.url + "/models")  # open the connection
        started = time.perf_counter()
        for _ in range(10):
            assert client.get(server.url + "/models").status_code == 200
        elapsed = time.perf_counter() - started
    assert elapsed < 0.25, f"10 requests on one connection took {elapsed * 1000:.0f} ms"


ECHO_TOOL: Any = BUILTIN_TOOLS["echo"].spec.as_openai()


def test_the_openai_client_gets_the_scripted_tool_call_then_the_scripted_text(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "Echo hello"}]
    first = client.chat.completions.create(model="two_turns", messages=messages, tools=[ECHO_TOOL])
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls is not None
    [call] = choice.message.tool_calls
    assert call.type == "function"
    assert call.id == "call_1"
    assert call.function.name == "echo"
    assert json.loads(call.function.arguments) == {"message": "hello"}
    assert first.usage is not None
    assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (20, 10)

    # Feed back the assistant message exactly as the client returned it, then the result.
    messages.append(choice.message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": "hello"})
    second = client.chat.completions.create(model="two_turns", messages=messages, tools=[ECHO_TOOL])
    assert second.choices[0].message.content == "The echo tool said: hello"
    assert second.choices[0].finish_reason == "stop"
    assert server.log[1]["tool_results"] == [{"call_id": "call_1", "name": "echo", "content": "hello"}]


def test_the_openai_client_lists_the_models(tmp_path: Path, serve: Callable[..., ReplayServer]) -> None:
    server = serve(load(tmp_path, two_turns=TWO_TURNS, weather=OTHER))
    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=0)
    assert [model.id for model in client.models.list()] == ["two_turns", "weather"]


def test_a_divergence_reaches_the_openai_client_as_a_bad_request_error(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=0)
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="two_turns", messages=[{"role": "user", "content": "Echo bye"}])
    assert caught.value.status_code == 400
    assert 'turn 1\'s user input is "Echo hello"; the request has "Echo bye"' in str(caught.value)


def test_injected_faults_reach_the_openai_client_as_its_own_errors(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns], "429:1@1", "500@2")
    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=0)
    user: list[Any] = [{"role": "user", "content": "Echo hello"}]
    with pytest.raises(openai.RateLimitError):
        client.chat.completions.create(model="two_turns", messages=user, tools=[ECHO_TOOL])
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="two_turns", messages=user, tools=[ECHO_TOOL])
    reply = client.chat.completions.create(model="two_turns", messages=user, tools=[ECHO_TOOL])
    assert reply.choices[0].message.tool_calls


def test_the_openai_client_retries_through_a_429_honouring_retry_after(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns], "429:0.1@1")
    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=1)
    reply = client.chat.completions.create(
        model="two_turns", messages=[{"role": "user", "content": "Echo hello"}], tools=[ECHO_TOOL]
    )
    assert reply.choices[0].message.tool_calls is not None
    assert [e["status"] for e in server.log] == [429, 200]


@pytest.mark.parametrize(
    "body",
    [
        {
            "model": "two_turns",
            "messages": [USER_1, {"role": "assistant", "tool_calls": [{"id": "a", "function": "zz"}]}],
        },
        {"model": "two_turns", "messages": [USER_1, {"role": "assistant", "tool_calls": "zz"}]},
        {"model": "two_turns", "messages": "not a list"},
        {"model": "two_turns", "messages": [1, 2, 3]},
    ],
)
def test_a_malformed_request_gets_a_400_not_a_dropped_connection(
    two_turns: Case, serve: Callable[..., ReplayServer], body: dict[str, Any]
) -> None:
    server = serve([two_turns])
    response = httpx.post(server.url + "/chat/completions", json=body, timeout=5)
    assert response.status_code == 400
    assert response.json()["error"]["message"]


def test_a_bad_content_length_gets_a_400(two_turns: Case, serve: Callable[..., ReplayServer]) -> None:
    import http.client
    from urllib.parse import urlparse

    server = serve([two_turns])
    where = urlparse(server.url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=5)
    connection.putrequest("POST", "/v1/chat/completions")
    connection.putheader("Content-Length", "abc")
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 400
    assert b"Content-Length" in response.read()
    connection.close()


# --- hostile clients ---------------------------------------------------------------------------


def _address(server: ReplayServer) -> tuple[str, int]:
    where = urlparse(server.url)
    return where.hostname or "", where.port or 0


def _closed_by_the_server(connection: socket.socket) -> bool:
    """True once the server closes `connection` (it sends nothing first); the client's own
    timeout is a generous bound, reached only when the server never closes it."""
    connection.settimeout(10)
    try:
        return connection.recv(1024) == b""
    except TimeoutError:
        return False


def test_a_client_that_never_reads_the_log_holds_up_no_request(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    big = {"role": "system", "content": "x" * 1_000_000}
    for _ in range(8):  # a log far larger than the socket buffers between the two ends
        post(server, "nothing", [big, {"role": "user", "content": "nothing"}])
    stalled = socket.create_connection(_address(server))
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.sendall(b"GET /_zeroclaw/requests HTTP/1.1\r\nHost: x\r\n\r\n")
    try:
        # The stalled client's answer is being written; the log is still open to others.
        assert post(server, "two_turns", [USER_1]).status_code == 200
        assert (
            httpx.get(server.url.removesuffix("/v1") + "/_zeroclaw/requests", timeout=10).status_code == 200
        )
    finally:
        stalled.close()


def test_a_lone_surrogate_in_a_request_leaves_the_log_readable(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    body = b'{"model": "two_turns", "messages": [{"role": "system", "content": "\\ud800"}, ' + (
        b'{"role": "user", "content": "Echo hello"}]}'
    )
    httpx.post(server.url + "/chat/completions", content=body, timeout=5)
    assert post(server, "two_turns", [USER_1]).status_code in (200, 400)
    reply = httpx.get(server.url.removesuffix("/v1") + "/_zeroclaw/requests", timeout=5)
    assert reply.status_code == 200
    assert [entry["system_prompt"] for entry in reply.json()] == ["\ud800", None]
    assert server.requests()[0]["system_prompt"] == "\ud800"


def test_a_body_over_the_servers_own_limit_is_refused_with_413(two_turns: Case) -> None:
    server = ReplayServer([two_turns], max_body=100).start()
    try:
        reply = post(server, "two_turns", [{"role": "user", "content": "x" * 200}])
        assert reply.status_code == 413
        assert "the limit is 100" in reply.json()["error"]["message"]
        assert server.requests() == []  # refused unread: nothing to log
    finally:
        server.stop()


def test_the_log_is_bounded_in_bytes_over_http(two_turns: Case) -> None:
    server = ReplayServer([two_turns], log=RequestLog(max_bytes=50_000)).start()
    try:
        for _ in range(5):
            post(server, "nothing", [{"role": "system", "content": "x" * 20_000}, USER_1])
        assert [entry["number"] for entry in server.requests()] == [4, 5]
    finally:
        server.stop()


@pytest.mark.parametrize(
    "sent",
    [
        b"",
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n",
        b'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"model"',
    ],
    ids=["silent", "headers-unfinished", "body-unfinished"],
)
def test_a_client_silent_past_the_timeout_is_dropped_quietly(
    two_turns: Case, sent: bytes, capfd: pytest.CaptureFixture[str]
) -> None:
    server = ReplayServer([two_turns], timeout_secs=0.2).start()
    try:
        slow = socket.create_connection(_address(server))
        slow.sendall(sent)
        assert _closed_by_the_server(slow)
        slow.close()
        assert post(server, "two_turns", [USER_1]).status_code == 200
    finally:
        server.stop()
    assert "Traceback" not in capfd.readouterr().err


def test_a_request_that_drips_in_is_dropped_at_its_deadline_not_kept_alive(two_turns: Case) -> None:
    # Each byte comes well within the per-read timeout; the request as a whole does not.
    server = ReplayServer([two_turns], timeout_secs=0.5).start()
    try:
        slow = socket.create_connection(_address(server))
        slow.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        closed = False
        while time.monotonic() - started < 10:
            try:
                slow.sendall(b"X")  # a header that never ends
            except OSError:
                closed = True
                break
            time.sleep(0.1)
        assert closed, "the server kept a dripping request for 10 s"
        assert time.monotonic() - started < 3
        slow.close()
        assert post(server, "two_turns", [USER_1]).status_code == 200
    finally:
        server.stop()


def test_connections_over_the_cap_are_answered_503_at_once(two_turns: Case) -> None:
    server = ReplayServer([two_turns], max_connections=2).start()
    held = [socket.create_connection(_address(server)) for _ in range(2)]
    try:
        extra = socket.create_connection(_address(server))
        extra.settimeout(10)
        answer = extra.recv(4096)
        extra.close()
        assert answer.startswith(b"HTTP/1.1 503 ")
        assert b"Retry-After: 1" in answer
        assert b"too many connections" in answer
    finally:
        for connection in held:
            connection.close()
    try:
        # The held connections' slots come back once their threads see them closed.
        status = 503
        for _ in range(500):
            status = post(server, "two_turns", [USER_1]).status_code
            if status != 503:
                break
        assert status == 200
    finally:
        server.stop()
