"""The HTTP side of `zeroclaw eval serve`: routes, request bodies, faults, answers."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

from zeroclaw_eval.errors import Divergence
from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.run.openai_wire import completion, error_body
from zeroclaw_eval.run.provider import ModelResponse
from zeroclaw_eval.serve.faults import Fault


class Backend(Protocol):
    """What the handler needs of the server behind it (`ReplayServer`)."""

    faults: list[Fault]

    def number(self) -> int:
        """Count a chat request; the number faults refer to."""
        ...

    def answer(self, model: str, messages: list[Any]) -> tuple[Case, ModelResponse]:
        """The case a request belongs to and its next scripted step."""
        ...

    def models(self) -> Iterable[str]:
        """Model names a client may ask for."""
        ...

    def record(self, entry: dict[str, Any]) -> None:
        """Add one request to the log."""
        ...

    def requests(self) -> list[dict[str, Any]]:
        """A copy of the request log."""
        ...


def handler_for(server: Backend) -> type[BaseHTTPRequestHandler]:
    """The request handler class of `server`."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out as two small writes; with Nagle's algorithm on, a client
        # that delays its ACK would stall every request on a kept-alive connection ~40 ms.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the request log is data (GET /_zeroclaw/requests), not stderr noise

        def _send(
            self, status: int, body: Any, headers: dict[str, str] | None = None, raw: bytes = b""
        ) -> None:
            data = raw or json.dumps(body, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> None:
            self._send(status, error_body(status, message, kind), headers)

        def do_GET(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            if path in ("/v1/models", "/models"):
                data = [
                    {"id": name, "object": "model", "owned_by": "zeroclaw-eval"} for name in server.models()
                ]
                self._send(200, {"object": "list", "data": data})
            elif path == "/_zeroclaw/requests":
                self._send(200, server.requests())
            else:
                self._error(404, f"no route {self.path}", "not_found")

        def do_POST(self) -> None:
            try:
                self._post()
            except Exception as exc:  # a malformed request is the client's problem: tell it
                self._error(400, f"malformed request: {type(exc).__name__}: {exc}", "invalid_request_error")

        def _post(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                self._error(400, "Content-Length is not a number", "invalid_request_error")
                return
            raw = self.rfile.read(length)
            if path not in ("/v1/chat/completions", "/chat/completions"):
                self._error(404, f"no route {self.path}", "not_found")
                return
            number = server.number()
            entry: dict[str, Any] = {"number": number, "model": None, "fixture": None, "messages": None}
            try:
                request = json.loads(raw)
                entry["model"] = model = str(request.get("model", ""))
                entry["messages"] = messages = request.get("messages")
            except (ValueError, AttributeError):
                entry["status"] = 400
                self._log(entry)
                self._error(400, "the request body is not a JSON object", "invalid_request_error")
                return
            # Routed first, so that a fault can name the fixture it is for.
            case: Case | None = None
            divergence: Divergence | None = None
            try:
                if not isinstance(messages, list):
                    raise Divergence("the request has no messages list")
                case, answer = server.answer(model, messages)
            except Divergence as diverged:
                divergence = diverged
            stem = case.path.stem if case is not None else None
            for delay in server.faults:
                if delay.kind == "delay" and delay.applies_to(number, stem):
                    time.sleep(delay.arg / 1000)
            fault = next((f for f in server.faults if f.kind != "delay" and f.applies_to(number, stem)), None)
            if fault is not None:
                entry["status"] = {"429": 429, "500": 500}.get(fault.kind, 200)
                entry["fault"] = fault.kind
                self._log(entry)
                if fault.kind == "429":
                    retry = f"{fault.arg:g}"
                    self._error(429, "rate limited (injected fault)", "rate_limit", {"Retry-After": retry})
                elif fault.kind == "500":
                    self._error(500, "server error (injected fault)", "server_error")
                else:
                    self._send(200, None, raw=b'{"choices": [{"message": ')
                return
            if divergence is not None or case is None:
                why = divergence or Divergence("no fixture")
                entry["fixture"] = why.fixture
                entry["status"] = 400
                entry["divergence"] = str(why)
                self._log(entry)
                self._error(
                    400, f"diverged from the script of {entry['fixture'] or model}: {why}", "divergence"
                )
                return
            entry["fixture"] = case.name
            entry["status"] = 200
            self._log(entry)
            self._send(200, completion(answer, model, number))

        def _log(self, entry: dict[str, Any]) -> None:
            server.record(entry)

    return Handler
