"""`zeroclaw eval serve`: fixtures' scripted steps behind an OpenAI-compatible endpoint.

Any agent, in any language, can be tested against scripted traces by pointing its base
URL here. The server is stateless about conversations: each request carries the whole
conversation, so its position in the script (turn = user messages so far, step =
assistant messages since the last user message) and its faithfulness to the script are
both read from the request. A request that diverges gets a 400 saying where. It records
every request it receives, and can inject faults (429 with Retry-After, 500, delays,
malformed bodies) for testing clients. The standard library's threading HTTP server is
enough for a loopback test server; no web framework is needed.
"""

from __future__ import annotations

import ipaddress
import json
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from zeroclaw_eval.admission import Case
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.provider import ModelResponse
from zeroclaw_eval.replay import Divergence, next_step

FAULT_KINDS = ("429", "500", "delay", "malformed")


@dataclass(frozen=True)
class Fault:
    """A fault for some requests: `KIND[:ARG][@WHICH,...]`, where WHICH is a request
    number (counted from 1) or a fixture (file stem), and no `@` means every request.
    `429:S` sets Retry-After to S seconds; `delay:MS` waits."""

    kind: str
    arg: float = 0.0
    requests: frozenset[int] | None = None
    fixtures: frozenset[str] = frozenset()

    def applies_to(self, number: int, fixture: str | None = None) -> bool:
        """Whether request `number` (1-based), for `fixture` (a file stem), gets this fault."""
        if self.requests is None and not self.fixtures:
            return True
        return (self.requests is not None and number in self.requests) or fixture in self.fixtures


def parse_fault(spec: str) -> Fault:
    """Parse `--fault` text, e.g. `429:1@1`, `500@2,3`, `delay:200`, `delay:500@slow_case`."""
    head, _, which = spec.partition("@")
    kind, _, arg = head.partition(":")
    try:
        if kind not in FAULT_KINDS:
            raise ValueError(f"kind must be one of {', '.join(FAULT_KINDS)}")
        value = float(arg) if arg else (200.0 if kind == "delay" else 0.0)
        if value < 0:
            raise ValueError("the argument must not be negative")
        targets = which.split(",") if which else []
        if "" in targets or (spec.endswith("@")):
            raise ValueError("an empty request number or fixture name after @")
        numbers = frozenset(int(part) for part in targets if part.isdigit())
        if numbers and min(numbers) < 1:
            raise ValueError("requests count from 1")
    except ValueError as exc:
        raise UsageError(
            f"--fault {spec!r}: {exc} (expected KIND[:ARG][@N|FIXTURE,...], e.g. 429:1@1, 500@2,"
            " delay:200, delay:500@slow_case)"
        ) from None
    names = frozenset(part for part in targets if not part.isdigit())
    return Fault(kind, value, numbers or None, names)


def is_loopback(host: str) -> bool:
    """`localhost`, or a loopback address (127.0.0.0/8, ::1); never a name that merely
    looks like one, since a DNS name may resolve anywhere."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _next_step_of(case: Case, messages: list[dict[str, Any]]) -> ModelResponse:
    try:
        return next_step(case.trace, messages)
    except Divergence as exc:
        raise Divergence(str(exc), case.name) from None


def completion(response: ModelResponse, model: str, number: int) -> dict[str, Any]:
    """`response` as an OpenAI chat-completion body."""
    message: dict[str, Any] = {"role": "assistant", "content": response.content}
    if response.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in response.tool_calls
        ]
    return {
        "id": f"chatcmpl-zeroclaw-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if response.tool_calls else "stop"}
        ],
        "usage": {
            "prompt_tokens": response.input_tokens,
            "completion_tokens": response.output_tokens,
            "total_tokens": response.input_tokens + response.output_tokens,
        },
    }


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gives up mid-answer (a timeout, a cancelled request) is normal
        # here; it is not worth a traceback on the server's stderr.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@dataclass
class ReplayServer:
    """Serves admitted cases; `single` serves that one case whatever the model asked."""

    cases: list[Case]
    faults: list[Fault] = field(default_factory=list)
    host: str = "127.0.0.1"
    port: int = 0
    single: bool = False
    #: Every request received: {number, model, fixture, messages, status}.
    log: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not is_loopback(self.host):
            raise UsageError(f"--host {self.host}: the replay server listens on loopback only")
        self._lock = threading.Lock()
        self._count = 0
        self._by_name: dict[str, list[Case]] = {}
        for case in self.cases:
            for name in {case.path.stem, case.trace.model_name}:
                self._by_name.setdefault(name, []).append(case)
        self._server: _QuietServer | None = None

    @property
    def url(self) -> str:
        """The base URL clients use (`…/v1`)."""
        assert self._server is not None, "start() the server first"
        host, port = self._server.server_address[:2]
        shown = host.decode() if isinstance(host, bytes) else host
        return f"http://{shown}:{port}/v1"

    def bind(self) -> ReplayServer:
        """Open the listening socket (so the URL is known before serving)."""
        if self._server is None:
            self._server = _QuietServer((self.host, self.port), _handler(self))
        return self

    def start(self) -> ReplayServer:
        """Serve in a background thread (tests, benchmarks)."""
        self.bind()
        assert self._server is not None
        threading.Thread(target=self._server.serve_forever, name="zeroclaw-serve", daemon=True).start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (the CLI)."""
        self.bind()
        assert self._server is not None
        self._server.serve_forever()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def answer(self, model: str, messages: list[Any]) -> tuple[Case, ModelResponse]:
        """The case a request belongs to and its next scripted step.

        A request names its fixture by `model` (a file stem or model_name), or, when the
        model names none (an agent configured with a real model name), by its first
        user message; where several fixtures share that, the one whose script the whole
        conversation follows.
        """
        if self.single:
            return self.cases[0], _next_step_of(self.cases[0], messages)
        candidates = self._by_name.get(model) or self._by_first_input(messages)
        if not candidates:
            names = ", ".join(sorted(c.path.stem for c in self.cases))
            raise Divergence(
                f"no fixture is named {model!r} or starts with this user message; serving: {names}"
            )
        if len(candidates) == 1:
            return candidates[0], _next_step_of(candidates[0], messages)
        fitting: list[tuple[Case, ModelResponse]] = []
        for case in candidates:
            try:
                fitting.append((case, next_step(case.trace, messages)))
            except Divergence:
                continue
        if not fitting:
            raise Divergence(f"the conversation follows none of {', '.join(c.name for c in candidates)}")
        if any(answer != fitting[0][1] for _, answer in fitting[1:]):
            files = ", ".join(c.name for c, _ in fitting)
            raise Divergence(
                f"the conversation fits several fixtures ({files}); name one in the request's model"
            )
        return fitting[0]

    def _by_first_input(self, messages: list[Any]) -> list[Case]:
        first = next(
            (m.get("content") for m in messages if isinstance(m, dict) and m.get("role") == "user"), None
        )
        return [c for c in self.cases if c.trace.turns and c.trace.turns[0].user_input == first]

    def number(self) -> int:
        """Count a chat request; the number faults refer to."""
        with self._lock:
            self._count += 1
            return self._count

    def models(self) -> Iterable[str]:
        """Model names a client may ask for."""
        return sorted({c.path.stem for c in self.cases})


def _handler(server: ReplayServer) -> type[BaseHTTPRequestHandler]:
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
            self._send(status, {"error": {"message": message, "type": kind, "code": status}}, headers)

        def do_GET(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            if path in ("/v1/models", "/models"):
                data = [
                    {"id": name, "object": "model", "owned_by": "zeroclaw-eval"} for name in server.models()
                ]
                self._send(200, {"object": "list", "data": data})
            elif path == "/_zeroclaw/requests":
                with server._lock:
                    self._send(200, list(server.log))
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
            with server._lock:
                server.log.append(entry)

    return Handler


def load_cases(paths: Iterable[Path]) -> list[Case]:
    """Admit fixtures for serving; a rejected one is a usage error naming its problems."""
    from zeroclaw_eval.admission import load_fixture
    from zeroclaw_eval.tools import BUILTIN_TOOLS

    cases = []
    for path in paths:
        loaded = load_fixture(path, BUILTIN_TOOLS)
        if not isinstance(loaded, Case):
            first = loaded.problems[0]
            raise UsageError(
                f"{path}:{first.field.line}:{first.field.col}: {first.field.pointer}: {first.message}"
                " (fix the fixture before serving it)"
            )
        cases.append(loaded)
    return cases
