"""`zeroclaw_eval.wire.http`: the loopback server every endpoint answers on, over real
sockets: each request's method, path and body reach the answer and its reply goes back
whole; what it will not read (no length, a bad length, too large) is refused in the
request's API's shape; connections over the cap get 503, slow ones are dropped."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, cast

import httpx
import pytest

from zeroclaw_eval.boundary.provider import ModelResponse
from zeroclaw_eval.wire.base import Reply
from zeroclaw_eval.wire.endpoint import Endpoint
from zeroclaw_eval.wire.http import EndpointServer

Answer = Callable[[str, str, bytes], Reply]


def model_says_hi(method: str, path: str, body: bytes) -> Reply:
    """An endpoint whose model answers every request "hi"."""
    endpoint = Endpoint()
    taken = endpoint.take(method, path, body, ["m"])
    return taken if isinstance(taken, Reply) else endpoint.reply(taken, ModelResponse("hi", (), 3, 1))


@pytest.fixture
def serving() -> Iterator[Callable[..., EndpointServer]]:
    """Start `EndpointServer`s on loopback (`serving(answer, **options)`), stopped when the test ends."""
    started: list[EndpointServer] = []

    def start(answer: Answer = model_says_hi, **options: Any) -> EndpointServer:
        server = EndpointServer(("127.0.0.1", 0), answer, **{"slots": 4, **options})
        threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


def _address(server: EndpointServer) -> tuple[str, int]:
    host, port = server.server_address[:2]
    return str(host), int(port)


def _exchange(server: EndpointServer, raw: bytes) -> bytes:
    """What the server answers `raw`, up to when it closes the connection."""
    with socket.create_connection(_address(server), timeout=10) as connection:
        connection.sendall(raw)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    return received


def test_the_base_url_names_the_loopback_address_and_v1(serving: Callable[..., EndpointServer]) -> None:
    server = serving()
    host, port = _address(server)
    assert server.base_url == f"http://{host}:{port}/v1"


def test_a_model_request_gets_its_reply_whole_with_its_headers(
    serving: Callable[..., EndpointServer],
) -> None:
    seen: list[tuple[str, str, bytes]] = []

    def answer(method: str, path: str, body: bytes) -> Reply:
        seen.append((method, path, body))
        return Reply(429, b'{"error": "slow down"}', headers={"Retry-After": "2"})

    server = serving(answer)
    sent = b'{"model": "m", "messages": []}'
    response = httpx.post(server.base_url + "/chat/completions?x=1", content=sent, timeout=10)
    assert seen == [("POST", "/v1/chat/completions?x=1", sent)]
    assert (response.status_code, response.content) == (429, b'{"error": "slow down"}')
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["Content-Length"] == "22"
    assert response.headers["Retry-After"] == "2"
    again = httpx.get(server.base_url + "/models", timeout=10)
    assert seen[1] == ("GET", "/v1/models", b"")
    assert again.status_code == 429


def test_requests_on_one_kept_alive_connection_are_each_answered(
    serving: Callable[..., EndpointServer],
) -> None:
    server = serving()
    with httpx.Client(base_url=server.base_url, timeout=10) as client:
        for _ in range(3):
            reply = client.post(
                "/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "x"}]}
            )
            assert reply.json()["choices"][0]["message"]["content"] == "hi"
        assert client.get("/models").json()["data"][0]["id"] == "m"


@pytest.mark.parametrize(
    ("path", "error"),
    [
        (
            "/v1/chat/completions",
            {
                "error": {
                    "message": "malformed request: KeyError: 'x'",
                    "type": "invalid_request_error",
                    "code": 400,
                }
            },
        ),
        (
            "/v1/messages",
            {
                "type": "error",
                "error": {"type": "invalid_request_error", "message": "malformed request: KeyError: 'x'"},
            },
        ),
    ],
)
def test_a_request_the_answer_chokes_on_is_a_400_in_its_apis_shape(
    serving: Callable[..., EndpointServer], path: str, error: dict[str, Any]
) -> None:
    def answer(method: str, path: str, body: bytes) -> Reply:
        raise KeyError("x")

    response = httpx.post(serving(answer).base_url.removesuffix("/v1") + path, content=b"{}", timeout=10)
    assert (response.status_code, response.json()) == (400, error)


@pytest.mark.parametrize(
    ("path", "error"),
    [
        (
            "/v1/chat/completions",
            {
                "error": {
                    "message": "send the request with a Content-Length",
                    "type": "length_required",
                    "code": 411,
                }
            },
        ),
        (
            "/v1/messages",
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "send the request with a Content-Length",
                },
            },
        ),
    ],
)
def test_a_body_without_a_length_is_refused_411_in_its_apis_shape(
    serving: Callable[..., EndpointServer], path: str, error: dict[str, Any]
) -> None:
    sent = f"POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
    head, _, body = _exchange(serving(), sent.encode()).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 411 ")
    # The header names as HTTP writes them, whatever a client's reader makes of their case.
    assert b"\r\nContent-Type: application/json\r\nContent-Length: " + str(len(body)).encode() in head
    assert json.loads(body) == error


@pytest.mark.parametrize("length", [b"abc", b"-1"])
def test_a_length_that_is_no_number_of_bytes_is_a_400(
    serving: Callable[..., EndpointServer], length: bytes
) -> None:
    answer = _exchange(
        serving(), b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + b"\r\n\r\n"
    )
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert json.loads(body) == {
        "error": {"message": "Content-Length is not a number", "type": "invalid_request_error", "code": 400}
    }
    sent = b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + b"\r\n\r\n"
    assert json.loads(_exchange(serving(), sent).partition(b"\r\n\r\n")[2]) == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "Content-Length is not a number"},
    }


def test_an_empty_post_is_answered_with_an_empty_body(serving: Callable[..., EndpointServer]) -> None:
    seen: list[bytes] = []

    def answer(method: str, path: str, body: bytes) -> Reply:
        seen.append(body)
        return Reply(200, b"{}")

    answer_bytes = _exchange(
        serving(answer), b"POST /v1/responses HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    assert answer_bytes.startswith(b"HTTP/1.1 200 ")
    assert seen == [b""]


def test_a_body_over_the_limit_is_refused_413_after_the_client_has_sent_it(
    serving: Callable[..., EndpointServer],
) -> None:
    # Closed at once, the socket would reset the connection under a client still sending
    # (as HTTP clients send the whole body before they read), which would see the reset
    # (a broken pipe) and not the answer.
    server = serving(max_body=1000)
    size = 20 * 1024 * 1024
    with socket.create_connection(_address(server), timeout=10) as connection:
        head = f"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n".encode()
        connection.sendall(head + b"x" * size)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 ")
    assert json.loads(body) == {
        "type": "error",
        "error": {
            "type": "request_too_large",
            "message": f"the request body is {size} bytes; the limit is 1000",
        },
    }


def test_a_refused_client_that_keeps_its_connection_open_is_let_go_within_a_second(
    serving: Callable[..., EndpointServer],
) -> None:
    server = serving(slots=1, max_body=1000)
    with socket.create_connection(_address(server), timeout=10) as connection:
        connection.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n")
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 413 ")
        # The connection held open, silent: its slot comes back once the linger is over.
        time.sleep(1.5)
        assert httpx.get(server.base_url + "/models", timeout=10).status_code == 200


def test_a_connection_over_the_cap_is_answered_503_at_once(
    serving: Callable[..., EndpointServer], capsys: pytest.CaptureFixture[str]
) -> None:
    server = serving(slots=1)
    held = socket.create_connection(_address(server), timeout=10)
    try:
        time.sleep(0.1)  # the held connection takes the one slot
        # Answered at once even when it sends nothing: the server waits on nothing it reads.
        answer = _exchange(server, b"")
        # What one sends is read away, so the 503 is not lost to a reset.
        assert _exchange(server, b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 503 ")
    finally:
        held.close()
    assert capsys.readouterr().err == ""  # turning a client away is no error
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split(b"\r\n") == [
        b"HTTP/1.1 503 Service Unavailable",
        b"Content-Type: application/json",
        b"Content-Length: " + str(len(body)).encode(),
        b"Retry-After: 1",
        b"Connection: close",
    ]
    assert json.loads(body) == {
        "error": {
            "message": "too many connections at once; retry shortly",
            "type": "server_busy",
            "code": 503,
        }
    }
    # The slot comes back once the held connection's thread sees it closed.
    for _ in range(200):
        status = httpx.get(server.base_url + "/models", timeout=10).status_code
        if status != 503:
            break
        time.sleep(0.02)
    assert status == 200


def test_a_request_that_drips_in_is_dropped_at_its_deadline(serving: Callable[..., EndpointServer]) -> None:
    server = serving(timeout=0.5)
    with socket.create_connection(_address(server), timeout=10) as connection:
        started = time.monotonic()
        closed = False
        for byte in b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" * 10:
            try:
                connection.sendall(bytes([byte]))
            except OSError:
                closed = True
                break
            connection.settimeout(0.1)
            try:
                if connection.recv(1024) == b"":
                    closed = True
                    break
            except TimeoutError:
                pass
        assert closed
        assert time.monotonic() - started < 3
    # And the server, which dropped it, goes on serving.
    time.sleep(0.1)
    assert httpx.get(server.base_url + "/models", timeout=10).status_code == 200


def test_a_silent_connection_is_dropped_after_the_timeout(serving: Callable[..., EndpointServer]) -> None:
    server = serving(timeout=0.3)
    with socket.create_connection(_address(server), timeout=10) as connection:
        started = time.monotonic()
        assert connection.recv(1024) == b""
        assert time.monotonic() - started < 3


def test_an_answer_that_takes_longer_than_the_timeout_is_still_sent(
    serving: Callable[..., EndpointServer],
) -> None:
    # The timeout bounds the request's arrival, not the answer (a delay fault takes its time).
    def slow(method: str, path: str, body: bytes) -> Reply:
        time.sleep(0.6)
        return model_says_hi(method, path, body)

    server = serving(slow, timeout=0.3)
    chat = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    assert httpx.post(server.base_url + "/chat/completions", json=chat, timeout=10).status_code == 200
    assert httpx.get(server.base_url + "/models", timeout=10).status_code == 200
    time.sleep(0.4)  # past every deadline set so far: the server still serves
    assert httpx.post(server.base_url + "/chat/completions", json=chat, timeout=10).status_code == 200


def test_a_kept_alive_connection_serves_a_request_sent_a_moment_after_the_last(
    serving: Callable[..., EndpointServer],
) -> None:
    server = serving(timeout=5)
    connection = http.client.HTTPConnection(*_address(server), timeout=10)  # one connection, no retries
    try:
        for _ in range(2):
            connection.request("GET", "/v1/models")
            response = connection.getresponse()
            assert (response.status, json.loads(response.read())["data"][0]["id"]) == (200, "m")
            time.sleep(0.2)  # the next request comes a moment later, within the timeout
    finally:
        connection.close()


def test_a_client_that_stops_reading_its_answer_is_dropped_freeing_its_slot(
    serving: Callable[..., EndpointServer],
) -> None:
    def huge(method: str, path: str, body: bytes) -> Reply:
        return (
            Reply(200, b"x" * (64 * 1024 * 1024))
            if path.endswith("/huge")
            else model_says_hi(method, path, body)
        )

    server = serving(huge, slots=1, timeout=0.3)
    with socket.create_connection(_address(server), timeout=10) as stalled:
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.sendall(b"GET /v1/huge HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(1.0)  # never reading: the server's write times out
        assert httpx.get(server.base_url + "/models", timeout=10).status_code == 200


def test_an_unexpected_error_is_reported_on_stderr_naming_the_client(
    serving: Callable[..., EndpointServer], capsys: pytest.CaptureFixture[str]
) -> None:
    def unwritable(method: str, path: str, body: bytes) -> Reply:
        return Reply(200, cast(bytes, "a body that is text, not bytes"))

    server = serving(unwritable)
    with socket.create_connection(_address(server), timeout=10) as connection:
        host, port = connection.getsockname()[:2]
        connection.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
        while connection.recv(65536):
            pass  # the server reports the error, then ends the connection it could not answer
    err = capsys.readouterr().err
    assert f"Exception occurred during processing of request from ('{host}', {port})" in err
    assert "TypeError" in err
