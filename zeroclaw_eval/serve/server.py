"""`zeroclaw eval serve`: fixtures' scripted steps behind an OpenAI-compatible endpoint.

Any agent, in any language, can be tested against scripted traces by pointing its base
URL here, through Chat Completions or Responses, plain or streamed. Where a request
stands in the script, and whether it kept to it, is read from the conversation it
carries (`routing`); the server keeps only which steps each run has been served, so that
a step asked for again is refused, and the log of a run's requests (`exchange` answers
each). `POST /_zeroclaw/reset` starts a new run. Faults can be injected (`faults`) for
testing clients. The standard library's threading HTTP server is enough for a loopback
test server; no web framework is needed.
"""

from __future__ import annotations

import ipaddress
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.run.http_reply import QuietServer
from zeroclaw_eval.run.openai_endpoint import Endpoint
from zeroclaw_eval.serve.faults import Fault
from zeroclaw_eval.serve.handler import handler_for
from zeroclaw_eval.serve.routing import Router, Served

#: Log entries kept: a long-running server keeps the newest, not every request ever.
MAX_LOG = 1000


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
    #: The requests of the current run, the newest `MAX_LOG` (see `exchange` for an entry).
    log: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_LOG))

    def __post_init__(self) -> None:
        if not is_loopback(self.host):
            raise UsageError(f"--host {self.host}: the replay server listens on loopback only")
        self._lock = threading.Lock()
        self._count = 0
        self.run = 1
        #: (fixture, turn, step) -> the number of the request that was served it.
        self._served: dict[tuple[str, int, int], int] = {}
        self.router = Router(self.cases, single=self.single)
        self.endpoint = Endpoint()
        self._server: QuietServer | None = None

    @property
    def url(self) -> str:
        """The base URL clients use (`…/v1`)."""
        assert self._server is not None, "start() the server first"
        return self._server.base_url

    def bind(self) -> ReplayServer:
        """Open the listening socket (so the URL is known before serving)."""
        if self._server is None:
            self._server = QuietServer((self.host, self.port), handler_for(self))
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

    def number(self) -> tuple[int, int]:
        """Count a model request: (the run, its number in the run, from 1)."""
        with self._lock:
            self._count += 1
            return self.run, self._count

    def answer(self, model: str, messages: list[Any]) -> Served:
        """The case, position and step a request asks for (see `Router.answer`)."""
        return self.router.answer(model, messages)

    def claim(self, served: Served, number: int) -> int | None:
        """Mark the step served by request `number`; the number that served it before, if any."""
        key = (served.case.name, served.position.turn, served.position.step)
        with self._lock:
            before = self._served.get(key)
            if before is None:
                self._served[key] = number
            return before

    def case_named(self, name: str | None) -> Case | None:
        """The served case of that name, if any."""
        return next((case for case in self.cases if case.name == name), None)

    def models(self) -> Iterable[str]:
        """Model names a client may ask for."""
        return self.router.models()

    def record(self, entry: dict[str, Any]) -> None:
        """Add one entry to the request log (the oldest goes once it holds `MAX_LOG`)."""
        with self._lock:
            self.log.append(entry)

    def requests(self) -> list[dict[str, Any]]:
        """A copy of the request log, taken under the lock."""
        with self._lock:
            return list(self.log)

    def reset(self) -> int:
        """Start a new run: steps may be served again, the log and the request numbers start
        over, and stored Responses conversations are forgotten. Returns the new run's id."""
        with self._lock:
            self.run += 1
            self._count = 0
            self._served.clear()
            self.log.clear()
            self.endpoint.forget()
            return self.run
