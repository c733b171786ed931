"""Answering HTTP on loopback with the standard library: the one server and request
handler of `zeroclaw eval serve` and of the front of an agent command. Each request's
method, path and body go to the server's `answer`, and its `Reply` goes back; the
connection bounds (`limits`) are kept here.

Why the standard library's threaded server and not an ASGI stack (uvicorn + starlette):
the harness answers requests synchronously (the front hands each to the harness's own
event loop from its thread; serve is a test double), every bound it needs is a few lines
here (connections at once, a body unread past its limit, a time limit per request, not
per read), and it adds no dependency to a package whose users install it into CI jobs.
An ASGI server would not bound a slow client by itself either: uvicorn times out idle
keep-alive connections, not a request whose headers drip in a byte at a time."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from zeroclaw_eval.errors import exception_words
from zeroclaw_eval.wire.base import Reply
from zeroclaw_eval.wire.endpoint import error_reply, route_of, too_large
from zeroclaw_eval.wire.limits import MAX_BODY

#: Seconds a refused request's unread body is read away for before its connection closes.
LINGER_SECS = 1.0


#: Answers one request: its method, path and body in, the reply out.
Answer = Callable[[str, str, bytes], Reply]


class EndpointServer(ThreadingHTTPServer):
    """A threaded loopback server that gives every request to `answer`, serving at most
    `slots` connections at once: one thread each, so a client that opens connections
    without end (a retry loop, a client made per request) would otherwise start threads
    without end; one over the cap is answered 503. Its threads never keep the process
    alive. A body over `max_body` is refused unread; a connection silent for `timeout`
    seconds (None: no limit) is dropped."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        answer: Answer,
        *,
        slots: int,
        max_body: int = MAX_BODY,
        timeout: float | None = None,
    ) -> None:
        super().__init__(address, _Handler)
        self.answer = answer
        self.max_body = max_body
        self.connection_timeout = timeout
        self._slots = threading.BoundedSemaphore(slots)
        #: The time by which each connection's request must have arrived whole.
        self._deadlines: dict[socket.socket, float] = {}
        self._deadlines_lock = threading.Lock()

    def arm(self, connection: socket.socket) -> None:
        """Start the clock on the request `connection` is about to send: it must arrive
        whole (request line, headers, body) within the timeout, however it drips in."""
        if self.connection_timeout is not None:
            with self._deadlines_lock:
                self._deadlines[connection] = time.monotonic() + self.connection_timeout

    def disarm(self, connection: socket.socket) -> None:
        """The request arrived (or the connection is over): its clock stops."""
        with self._deadlines_lock:
            self._deadlines.pop(connection, None)

    def service_actions(self) -> None:
        """Between polls of `serve_forever`: end each connection whose request is late.
        Shutting its socket ends the handler's read at once, whatever it was waiting on."""
        now = time.monotonic()
        with self._deadlines_lock:
            late = [connection for connection, deadline in self._deadlines.items() if deadline < now]
            for connection in late:
                del self._deadlines[connection]
        for connection in late:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already gone

    @property
    def base_url(self) -> str:
        """The base URL clients use (`http://HOST:PORT/v1`)."""
        host, port = self.server_address[:2]
        shown = host.decode() if isinstance(host, bytes) else host
        return f"http://{shown}:{port}/v1"

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gives up mid-answer (a timeout, a cancelled request) is normal
        # here; it is not worth a traceback on the server's stderr.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            _refuse(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)  # starts the connection's thread
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


def _refuse(request: socket.socket) -> None:
    """Answer 503 on a connection over the cap, without reading it or waiting on it (this
    runs in the thread that accepts connections)."""
    reply = error_reply(503, "too many connections at once; retry shortly", "server_busy")
    head = (
        f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: {reply.content_type}\r\n"
        f"Content-Length: {len(reply.body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
    )
    try:
        request.setblocking(False)
        request.send(head.encode("ascii") + reply.body)
        # What the client sent already is read away: closing a socket with unread data
        # resets the connection, and the client might see the reset instead of the 503.
        request.recv(1 << 16)
    except OSError:
        pass  # nothing (more) to read, the client is gone, or it is not reading


class _Handler(BaseHTTPRequestHandler):
    """Gives each request to the server's `answer` and writes its `Reply`, quietly, on
    kept-alive connections."""

    server: EndpointServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out as two small writes; with Nagle's algorithm on, a client
    # that delays its ACK would stall every request on a kept-alive connection ~40 ms.
    disable_nagle_algorithm = True

    def setup(self) -> None:
        super().setup()
        # The socket timeout of the connection: a read or write that times out drops the
        # connection (`handle_one_request` does that).
        if self.server.connection_timeout is not None:
            self.connection.settimeout(self.server.connection_timeout)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # what crosses the wire is recorded as data, not printed to stderr

    def handle_one_request(self) -> None:
        # The per-read socket timeout alone lets a client that sends a byte now and then
        # hold the connection (and its thread) for ever: the whole request has a deadline.
        self.server.arm(self.connection)
        try:
            super().handle_one_request()
        finally:
            self.server.disarm(self.connection)

    def do_GET(self) -> None:
        self.server.disarm(self.connection)
        self._answer(b"")

    def do_POST(self) -> None:
        body = self.read_body()
        self.server.disarm(self.connection)  # answering may take its time (a delay fault)
        if body is not None:
            self._answer(body)

    def _answer(self, body: bytes) -> None:
        try:
            reply = self.server.answer(self.command, self.path, body)
        except Exception as exc:  # a request shaped in a way nothing expected: the client's problem
            reply = error_reply(
                400,
                f"malformed request: {exception_words(exc)}",
                "invalid_request_error",
                api=self._api,
            )
        self.send(reply)

    def send(self, reply: Reply) -> None:
        """Write `reply` whole."""
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(reply.body)

    def read_body(self) -> bytes | None:
        """The request body; None after answering 400, 411 or 413 for a body it will not read."""
        given = self.headers.get("Content-Length")
        if given is None and self.headers.get("Transfer-Encoding"):
            self._refuse_unread(
                error_reply(411, "send the request with a Content-Length", "length_required", api=self._api)
            )
            return None
        try:
            length = int(given or 0)
        except ValueError:
            length = -1
        if length < 0:
            self._refuse_unread(
                error_reply(400, "Content-Length is not a number", "invalid_request_error", api=self._api)
            )
            return None
        refused = too_large(length, self.server.max_body, api=self._api)
        if refused is not None:
            self._refuse_unread(refused)
            return None
        return self.rfile.read(length)

    @property
    def _api(self) -> str | None:
        """The API the request speaks, if it asks for a model's answer: its errors take that API's shape."""
        return route_of(self.command, self.path)

    def _refuse_unread(self, reply: Reply) -> None:
        """Answer a request whose body will not be read, and end the connection (where the
        body ends is unknown, or it is too large to read) with a lingering close: the
        answer is sent, the sending side shut, and what the client goes on sending is read
        away for up to `LINGER_SECS`. Closed at once instead, a socket with unread data
        resets the connection, and a client still sending its body sees the reset (a
        broken pipe) rather than the answer."""
        self.close_connection = True
        self.send(reply)
        try:
            self.connection.shutdown(socket.SHUT_WR)
            ends = time.monotonic() + LINGER_SECS
            while (left := ends - time.monotonic()) > 0:
                self.connection.settimeout(left)
                if not self.connection.recv(1 << 16):
                    break  # the client has closed its side: all it sent is read
        except OSError:
            pass  # the client is gone, or still sending when the time is up
