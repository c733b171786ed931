"""`zeroclaw eval serve`: fixtures' scripted steps behind an OpenAI-compatible endpoint.

Any agent, in any language, can be tested against scripted traces by pointing its base
URL here, through Chat Completions or Responses, plain or streamed. Where a request
stands in the script, and whether it kept to it, is read from the conversation it
carries (`routing`); the server keeps only which steps each run has been served, so that
a step asked for again is refused, and the log of a run's requests. Its routes are
`routes`; `exchange` answers each model request. `POST /_zeroclaw/reset` starts a new
run. Faults can be injected (`faults`) for testing clients.

A client cannot hold the server: it is the endpoint's own loopback server (`wire.http`,
with the bounds of `wire.limits`), and the request log is bounded in entries and bytes
(`request_log`).
"""

from __future__ import annotations

import ipaddress
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval.agent.conversation import InputMatch
from zeroclaw_eval.boundary.text_echo import ToolEcho
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.serve import routes
from zeroclaw_eval.serve.faults import Fault
from zeroclaw_eval.serve.request_log import MAX_LOG, RequestLog, joined
from zeroclaw_eval.serve.routing import Router, Served
from zeroclaw_eval.wire.base import Reply
from zeroclaw_eval.wire.endpoint import Endpoint
from zeroclaw_eval.wire.http import EndpointServer
from zeroclaw_eval.wire.limits import CONNECTION_TIMEOUT, MAX_BODY, MAX_CONNECTIONS

__all__ = ["MAX_LOG", "ReplayServer", "is_loopback"]


def is_loopback(host: str) -> bool:
    """`localhost`, or a loopback address (127.0.0.0/8, ::1); never a name that merely
    looks like one, since a DNS name may resolve anywhere."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class ReplayServer:
    """Serves admitted cases; `single` serves that one case whatever the model asked."""

    cases: list[Case]
    faults: list[Fault] = field(default_factory=list)
    host: str = "127.0.0.1"
    port: int = 0
    single: bool = False
    #: The requests of the current run, the newest that fit its bounds (an entry: `exchange`).
    log: RequestLog = field(default_factory=RequestLog)
    #: Bytes a request body may have; a larger one is refused with 413 before it is read.
    max_body: int = MAX_BODY
    #: See `CONNECTION_TIMEOUT` and `MAX_CONNECTIONS`.
    timeout_secs: float = CONNECTION_TIMEOUT
    max_connections: int = MAX_CONNECTIONS
    #: `[eval].user_input_match`: how a user message carries its input where a fixture
    #: does not say.
    user_input_match: InputMatch = "exact"
    #: `[eval].tool_echo` and `[eval].history`: how the agents served write the conversation.
    tool_echo: ToolEcho = "messages"
    per_turn: bool = False

    def __post_init__(self) -> None:
        if not is_loopback(self.host):
            raise UsageError(f"--host {self.host}: the replay server listens on loopback only")
        self._lock = threading.Lock()
        self.run = 1
        #: (fixture, turn, step) -> the number of the request that was served it.
        self._served: dict[tuple[str, int, int], int] = {}
        #: Cases whose run ended early (a fault or a refusal answered one of its requests).
        self._broken: set[str] = set()
        self.router = Router(
            self.cases, single=self.single, match=self.user_input_match, per_turn=self.per_turn
        )
        self.endpoint = Endpoint(self.tool_echo)
        self._server: EndpointServer | None = None

    @property
    def url(self) -> str:
        """The base URL clients use (`…/v1`)."""
        assert self._server is not None, "start() the server first"
        return self._server.base_url

    def bind(self) -> ReplayServer:
        """Open the listening socket (so the URL is known before serving)."""
        if self._server is None:
            self._server = EndpointServer(
                (self.host, self.port),
                self.reply_to,
                slots=self.max_connections,
                max_body=self.max_body,
                timeout=self.timeout_secs,
            )
        return self

    def start(self) -> ReplayServer:
        """Serve in a background thread (tests, benchmarks); `stop()` returns within 50 ms."""
        self.bind()
        assert self._server is not None
        # serve_forever checks for shutdown once per poll interval (0.5 s by default), and
        # stop() waits for that check: a short interval keeps stopping quick.
        threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="zeroclaw-serve", daemon=True
        ).start()
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

    def reply_to(self, method: str, path: str, body: bytes) -> Reply:
        """The reply to one HTTP request (from a handler thread): see `routes`."""
        return routes.answer(self, method, path, body)

    def number(self) -> tuple[int, int]:
        """Count a model request as every endpoint does (`Endpoint.number`): (the run, its
        number in the run, from 1)."""
        with self._lock:
            return self.run, self.endpoint.number()

    def answer(self, model: str, messages: list[Any]) -> Served:
        """The case, position and step a request asks for (see `Router.answer`)."""
        return self.router.answer(model, messages)

    def claim(self, served: Served, number: int) -> int | None:
        """Mark the step served by request `number`; the number that served it before, if any.

        A case whose every step was served, or whose run was broken (`broke`), may start
        again from its first step: that is a new run of it (a client running each case
        several times, `--repeat`), not a loop. Asking again for a step mid-run is still
        a repeat of that run.
        """
        name = served.case.name
        key = (name, served.position.turn, served.position.step)
        with self._lock:
            first = (served.position.turn, served.position.step) == (0, 0)
            if first and (name in self._broken or self._finished(served)):
                self._served = {k: v for k, v in self._served.items() if k[0] != name}
                self._broken.discard(name)
            before = self._served.get(key)
            if before is None:
                self._served[key] = number
            return before

    def broke(self, case: Case) -> None:
        """The run of `case` ended early: a request of it got a fault or a refusal, which
        a client does not go on from (its next run starts from the first step)."""
        with self._lock:
            self._broken.add(case.name)

    def _finished(self, served: Served) -> bool:
        """Whether every scripted step of the case was served in this run (lock held)."""
        name = served.case.name
        steps = [
            (name, t, s)
            for t, turn in enumerate(served.case.trace.turns)
            for s in range(len(turn.steps or []))
        ]
        return bool(steps) and all(step in self._served for step in steps)

    def case_named(self, name: str | None) -> Case | None:
        """The served case of that name, if any."""
        return next((case for case in self.cases if case.name == name), None)

    def fixture_of(self, model: str) -> Case | None:
        """The one case a request's `model` names, if any."""
        return self.router.named(model)

    def models(self) -> Iterable[str]:
        """Model names a client may ask for."""
        return self.router.models()

    def record(self, entry: dict[str, Any]) -> None:
        """Add one entry to the request log (the oldest go once it is full)."""
        text = self.log.prepare(entry)  # encoding a large entry takes a while: not under the lock
        with self._lock:
            self.log.append(text)

    def requests(self) -> list[dict[str, Any]]:
        """A copy of the request log."""
        return [json.loads(text) for text in self._snapshot()]

    def requests_json(self) -> bytes:
        """The request log as a JSON array, the same bytes for every reader until the log
        changes; only the copy of the entry list is taken under the lock, so joining it
        holds up no request."""
        with self._lock:
            cached = self.log.cached()
            if cached is not None:
                return cached
            version, texts = self.log.version, self.log.snapshot()
        body = joined(texts)
        with self._lock:
            self.log.keep_joined(version, body)
        return body

    def _snapshot(self) -> list[bytes]:
        with self._lock:
            return self.log.snapshot()

    def reset(self) -> int:
        """Start a new run: steps may be served again, the log and the request numbers start
        over, and stored Responses conversations are forgotten. Returns the new run's id."""
        with self._lock:
            self.run += 1
            self._served.clear()
            self._broken.clear()
            self.log.clear()
            self.endpoint.forget()
            return self.run
