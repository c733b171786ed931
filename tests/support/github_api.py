"""A loopback double of the GitHub REST API endpoints the sticky comment calls: list an
issue's comments (paged, 100 at most a page), create one, update one. It answers as
GitHub does: each token is some login; a token that may write may edit *anyone's*
comment (its author, or anyone with write access, may); a read-only token (a fork's
pull request) may read but not write (403 "Resource not accessible by integration");
`rate_limited` answers as GitHub's primary rate limit does. Every request is kept.

Two ways it answers as GitHub never does, for the client's defences: `odd` answers a
method's requests with a success of any bytes (an object for the list, a comment without
its id, no JSON), and `drip` answers every request one byte at a time, its head or its
body, each byte well within any per-read timeout and the whole taking 20 s and more."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

READ_ONLY = "read-only-token"
_LIST = re.compile(r"^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$")
_ONE = re.compile(r"^/repos/([^/]+)/([^/]+)/issues/comments/(\d+)$")
#: How a dripped answer drips: a byte every DRIP_SECS, DRIP_BYTES and more of them (20 s
#: and more in all), each far within a per-read timeout.
DRIP_SECS = 0.2
DRIP_BYTES = 100


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any = None


@dataclass
class GitHubDouble:
    """The comments of one repository's pull requests, and the requests made."""

    #: token -> login; a token not here is refused with 401.
    tokens: dict[str, str] = field(
        default_factory=lambda: {"bot-token": "github-actions[bot]", READ_ONLY: "reader"}
    )
    comments: list[dict[str, Any]] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    #: Answer every request with this status (a GitHub outage), when set.
    failing: int | None = None
    #: Answer each request of a method ("POST", "PATCH") with this status, when set.
    failing_on: dict[str, int] = field(default_factory=dict)
    #: Answer every request as a spent primary rate limit does (403, no requests left).
    rate_limited: bool = False
    #: Answer each request of a method ("GET", "POST", "PATCH") with a success (200) of
    #: these bytes: a shape GitHub's API never gives.
    odd: dict[str, bytes] = field(default_factory=dict)
    #: Drip every answer a byte at a time: its "head" (status line and headers) or its
    #: "body" (after a head sent whole), when set.
    drip: str | None = None
    #: Set when the server stops: a drip still going ends.
    stopped: threading.Event = field(default_factory=threading.Event)

    def add(self, number: int, body: str, login: str) -> dict[str, Any]:
        comment_id = 1000 + len(self.comments)
        comment = {
            "id": comment_id,
            "issue": number,
            "body": body,
            "user": {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"},
            "html_url": f"https://github.com/zeroclaw_user/agent/pull/{number}#issuecomment-{comment_id}",
        }
        self.comments.append(comment)
        return comment

    def on(self, number: int) -> list[dict[str, Any]]:
        return [comment for comment in self.comments if comment["issue"] == number]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def _answer(self, status: int, data: Any) -> None:
        body = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _raw(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _drip(self, part: str, stopped: threading.Event) -> None:
        """A 200 with an empty list, its head (a long header in it) or its body (padded
        with blanks) sent one byte at a time, the rest at once."""
        ok = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        if part == "head":
            before, after = b"", b"Content-Length: 2\r\n\r\n[]"
            slow = ok + b"X-Drip: " + b"." * DRIP_BYTES + b"\r\n"
        else:
            slow, after = b"[" + b" " * (DRIP_BYTES - 2) + b"]", b""
            before = ok + f"Content-Length: {len(slow)}\r\n\r\n".encode()
        self.close_connection = True
        try:
            self.wfile.write(before)
            for byte in slow:
                if stopped.wait(DRIP_SECS):
                    return
                self.wfile.write(bytes([byte]))
            self.wfile.write(after)
        except OSError:  # the client hung up, as a deadline makes it
            return

    def _handle(self) -> None:
        double = self.server.double
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        payload = json.loads(self.rfile.read(length)) if length else None
        double.requests.append(Request(self.command, self.path, dict(self.headers), payload))
        if double.drip is not None:
            return self._drip(double.drip, double.stopped)
        if double.failing is not None:
            return self._answer(double.failing, {"message": "Server Error"})
        if self.command in double.failing_on:
            return self._answer(double.failing_on[self.command], {"message": "Server Error"})
        if self.command in double.odd:
            return self._raw(200, double.odd[self.command])
        if double.rate_limited:
            body = json.dumps({"message": "API rate limit exceeded for installation ID 1."}).encode()
            self.send_response(403)
            self.send_header("x-ratelimit-remaining", "0")
            self.send_header("x-ratelimit-reset", "1796115600")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return None
        token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        login = double.tokens.get(token)
        if login is None:
            return self._answer(401, {"message": "Bad credentials"})
        listed, one = _LIST.match(url.path), _ONE.match(url.path)
        if self.command == "GET" and listed:
            query = parse_qs(url.query)
            size, page = int(query.get("per_page", ["30"])[0]), int(query.get("page", ["1"])[0])
            mine = double.on(int(listed.group(3)))
            return self._answer(200, mine[(page - 1) * size : page * size])
        if token == READ_ONLY and self.command in ("POST", "PATCH"):
            return self._answer(403, {"message": "Resource not accessible by integration"})
        if self.command == "POST" and listed:
            return self._answer(201, double.add(int(listed.group(3)), payload["body"], login))
        if self.command == "PATCH" and one:
            found = next((c for c in double.comments if c["id"] == int(one.group(3))), None)
            if found is None:
                return self._answer(404, {"message": "Not Found"})
            found["body"] = payload["body"]  # write access edits anyone's comment
            return self._answer(200, found)
        return self._answer(404, {"message": "Not Found"})

    do_GET = do_POST = do_PATCH = _handle


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, double: GitHubDouble) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.double = double


class GitHubApi:
    """The double serving on loopback: `with GitHubApi() as api: api.url, api.double`."""

    def __init__(self) -> None:
        self.double = GitHubDouble()
        self._server = _Server(self.double)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        # Polled often: `shutdown` waits a poll for the loop to stop, half a second a test.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> GitHubApi:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.double.stopped.set()
        self._server.shutdown()
        self._server.server_close()
