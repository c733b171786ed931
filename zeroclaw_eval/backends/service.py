"""An agent that runs as a long-lived HTTP service (`--agent-service`): a starlette or
FastAPI app, an agno or LangGraph server, anything that answers a turn over HTTP.

The harness starts the service once per run (and again after it died or stopped
answering), with the same environment an agent command gets (`OPENAI_BASE_URL`,
`ANTHROPIC_BASE_URL`, `GOOGLE_GEMINI_BASE_URL`, dummy keys, `ZEROCLAW_EVAL_PROJECT`) plus
`PORT`, a free loopback port to listen on. Its working directory is the project folder.
The model URL it gets stays the same for the whole run: one loopback server whose
requests are answered by the case that is running, with the same endpoint, script
checks and recording as an agent command's front (`backends.front.CaseFront`).

Ready is `GET ready_path` answered with a 2xx, or, without a ready path, the port
accepting a connection; bounded by `startup_secs`. Each turn is one request to the
service, by `protocol`:

- `json`: `POST path` (default `/turn`) with `{"session": S, "turn": N, "input": TEXT,
  "workspace": DIR}`, answered by `{"output": TEXT}` (or `{"error": TEXT}` to fail the
  turn). `session` is new for each run of a case, so a stateful service keeps one
  conversation per session.
- `chat`: `POST path` (default `/v1/chat/completions`), an OpenAI Chat Completions request
  with the conversation so far (every user input and every earlier answer), answered by a
  chat completion whose first choice's message content is the answer. The model must see
  the tool calls of earlier turns too (the script checks every request carries them),
  which only the service knows: it keeps them by session.

Every turn request carries the session in the `X-Zeroclaw-Session` header and the case
workspace (percent-encoded) in `X-Zeroclaw-Workspace`, the folder workspace checks read.

Cases run one at a time: the service's model calls carry nothing that tells one case
from another (its model name and key are its own), so the harness serves one case at a
time and knows whose request each is. A case stays open for `quiet_secs` after its last
answer: a model request the service makes then (a title, a summary, in the background)
is that case's, which the script has no step for, so it fails the case. A request later
than that, while no case is open, fails the next case, naming the case it came after.
Both are answered with a status no official client retries (`NO_CASE_STATUS`), so a
retry cannot land in the next case. A turn that times out, or a service that stops
answering, is that case's run error (with the service's last stderr lines); the service
is then ended and the next case starts a new one. At the run's end the service and every
process it started (its process group) are ended.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from threading import Thread
from typing import Any
from urllib.parse import quote

from zeroclaw_eval._support.json.text import loads_untrusted
from zeroclaw_eval.agent import deadline
from zeroclaw_eval.agent.loop import AgentContext, AgentFactory
from zeroclaw_eval.backends import a2a
from zeroclaw_eval.backends.command import AgentCommand
from zeroclaw_eval.backends.front import CaseFront
from zeroclaw_eval.backends.loopback import free_port, request
from zeroclaw_eval.backends.process import AgentProcess, tail_line
from zeroclaw_eval.boundary.provider import AUTO
from zeroclaw_eval.boundary.sent import request_words
from zeroclaw_eval.boundary.text_echo import ToolEcho
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.errors import A2AError, RunError, UsageError, exception_words
from zeroclaw_eval.tools.toolbox import ToolBox
from zeroclaw_eval.wire import chat

PROTOCOLS = ("json", "chat", "a2a")
#: Where each protocol's turns go (A2A's: where the agent card says).
DEFAULT_PATHS = {"json": "/turn", "chat": "/v1/chat/completions", "a2a": ""}
#: How long ending the service may wait for it to exit by itself.
EXIT_GRACE_SECS = 2.0
#: The characters of a refused answer's body quoted in the case's error.
_QUOTED = 300
_sessions = itertools.count(1)
_DAEMONIZED = (
    "the agent service exited (code 0), but its port is served: it put itself in the background"
    " (daemonized), beyond the harness's reach; run it in the foreground"
)


@dataclass(frozen=True)
class AgentService:
    """The command line of an agent service, and how the harness talks to it."""

    command: AgentCommand
    protocol: str = "json"
    path: str = ""
    ready_path: str = ""
    startup_secs: float = 30.0
    quiet_secs: float = 0.5
    #: The running service, shared by every case of the run (not part of the value).
    host: ServiceHost = field(default_factory=lambda: ServiceHost(), compare=False, repr=False)
    #: Cases run one at a time (see the module).
    serial: bool = field(default=True, init=False)

    @classmethod
    def parse(
        cls,
        text: str,
        *,
        protocol: str = "json",
        path: str = "",
        ready_path: str = "",
        startup_secs: float = 30.0,
        quiet_secs: float = 0.5,
        project_dir: Path | None = None,
        option: str = "--agent-service",
        echo: ToolEcho = "messages",
    ) -> AgentService:
        """`text` split like a shell command line, as `--agent-cmd`'s is; `UsageError`
        for a protocol it does not know or a path that is not one."""
        if protocol not in PROTOCOLS:
            raise UsageError(f"--agent-service-protocol {protocol!r}: expected one of {', '.join(PROTOCOLS)}")
        for name, value in (("agent_service_path", path), ("agent_service_ready_path", ready_path)):
            if value and not value.startswith("/"):
                fixed = "/" + value
                raise UsageError(
                    f"[eval].{name} {value!r}: a path on the service starts with /; did you mean {fixed!r}?"
                )
        command = AgentCommand.parse(text, "jsonl", project_dir, option=option, echo=echo)
        if protocol == "a2a":
            if path:
                raise UsageError(
                    "[eval].agent_service_path is not read for an A2A agent: its card says where its"
                    " endpoint is; leave it out"
                )
            ready_path = ready_path or a2a.CARD_PATH  # ready once it serves its card
        return cls(command, protocol, path or DEFAULT_PATHS[protocol], ready_path, startup_secs, quiet_secs)

    def factory(self, case: Case, workspace: Path) -> AgentFactory:
        """The factory of the agent that runs `case`: a session of the running service."""

        def make(context: AgentContext) -> ServiceAgent:
            return ServiceAgent(self, case, workspace, context)

        return make

    async def aclose(self) -> None:
        """End the service and its server: the run is over."""
        await self.host.close()


class ServiceHost:
    """The service process of a run and the one model server it talks to, which answers
    with the case that is running (`begin`/`end`)."""

    def __init__(self) -> None:
        self._server: Any = None  # wire.http.EndpointServer, imported when first needed
        self._case: CaseFront | None = None
        self._process: AgentProcess | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.port = 0
        #: The service stopped answering (a timeout): end it before the next case.
        self.broken = False
        #: Why the service could not start: every later case fails at once with it,
        #: rather than waiting out the start-up again.
        self.failed_start: RunError | None = None
        #: The model requests the service made while no case was running (after a case's
        #: last answer), with the case that ran last: the next case fails for them.
        self.strays: list[str] = []
        self._last_case = ""
        #: An A2A agent's card, read once it is ready.
        self.card: a2a.AgentCard | None = None

    @property
    def stderr(self) -> list[str]:
        return list(self._process.stderr) if self._process is not None else []

    def _answer(self, method: str, path: str, body: bytes) -> Any:
        case = self._case
        if case is None:
            from zeroclaw_eval.wire.endpoint import NO_CASE_STATUS, error_reply

            after = f" after {self._last_case} ended" if self._last_case else ""
            self.strays.append(f"{method} {path}{after} ({_stray_words(body)})")
            return error_reply(
                NO_CASE_STATUS, "no case is running: the service called the model between cases", "no_case"
            )
        return case.answer(method, path, body)

    def _serve(self) -> str:
        if self._server is None:
            from zeroclaw_eval.wire.http import EndpointServer
            from zeroclaw_eval.wire.limits import FRONT_CONNECTIONS

            self._server = EndpointServer(("127.0.0.1", 0), self._answer, slots=FRONT_CONNECTIONS)
            Thread(
                target=self._server.serve_forever, args=(0.05,), name="zeroclaw-service", daemon=True
            ).start()
        url: str = self._server.base_url
        return url

    async def begin(self, service: AgentService, case: CaseFront, mcp_url: str | None = None) -> None:
        """Make `case` the one the model server answers for, starting the service first if
        it is not running (or died, or stopped answering); `mcp_url`: the run's MCP
        server of the case's tools, the same for every case."""
        if self.failed_start is not None:
            raise RunError(f"{self.failed_start.message} (as for an earlier case: not started again)")
        if self.strays:
            strays, self.strays = self.strays, []
            raise RunError(
                f"the agent service called the model while no case was running: {'; '.join(strays[:3])};"
                " a service must not call the model once a turn is answered (a background call"
                " later than agent_service_quiet_secs after a case's last answer cannot be graded"
                " with that case, so this one fails for it)"
            )
        loop = asyncio.get_running_loop()
        alive = self._process is not None and self._process.returncode is None
        exited_quietly = self._process is not None and not alive and self._process.returncode == 0
        if exited_quietly and await self._accepting():
            raise RunError(_DAEMONIZED)
        if self._process is not None and (not alive or self.broken or self._loop is not loop):
            await self._end()
        self._case = case
        if self._process is None:
            await self._start(service, loop, mcp_url)

    def end(self, case: CaseFront | None, name: str) -> None:
        """The case `name` is over: its requests are no longer answered."""
        if self._case is case:
            self._case = None
            self._last_case = name

    async def _start(
        self, service: AgentService, loop: asyncio.AbstractEventLoop, mcp_url: str | None
    ) -> None:
        self.port = free_port()
        environment = service.command.environment(self._serve(), None, mcp_url)
        environment["PORT"] = str(self.port)
        argv = service.command.resolved()
        try:
            self._process = await AgentProcess.start(
                argv, service.command.project_dir, environment, _ignored, stdin=False
            )
        except OSError as exc:
            raise RunError(f"cannot start the agent service {argv[0]!r}: {exc.strerror or exc}") from None
        self._loop, self.broken = loop, False
        deadline = time.monotonic() + service.startup_secs
        seen = f"nothing accepted a connection on port {self.port} (does it listen on $PORT?)"
        while True:
            ready, seen = await self._ready(service, seen)
            code = self._process.returncode
            if ready and code is not None:
                self.failed_start = RunError(_DAEMONIZED)
                raise self.failed_start
            if ready:
                if service.protocol == "a2a":
                    await self._read_card()
                return
            # Code 0: perhaps a service that forked into the background and is still
            # starting there; the probe says so once it answers (or the deadline passes).
            if code not in (None, 0):
                self.failed_start = RunError(
                    f"the agent service exited with code {self._process.returncode} before it was ready",
                    traceback=self.diagnostics(),
                )
                raise self.failed_start
            if time.monotonic() > deadline:
                self.broken = True
                exited = " (it exited with code 0)" if code == 0 else ""
                self.failed_start = RunError(
                    f"the agent service was not ready within {service.startup_secs:g}s"
                    f" (agent_service_startup_secs){exited}: {seen}",
                    traceback=self.diagnostics(),
                )
                raise self.failed_start
            await asyncio.sleep(0.05)

    async def _read_card(self) -> None:
        """Read the A2A agent's card; a card the harness cannot talk to fails every case."""
        try:
            status, text = await deadline.wait_for(request(self.port, "GET", a2a.CARD_PATH), 5.0)
            if status != 200:
                raise A2AError(f"GET {a2a.CARD_PATH} answered {status}")
            self.card = a2a.read_card(text)
        except Exception as exc:  # whatever the card was, every case says why
            self.broken = True
            said = str(exc) if isinstance(exc, A2AError) else exception_words(exc)
            self.failed_start = RunError(
                f"the A2A agent cannot be talked to: {said}", traceback=self.diagnostics()
            )
            raise self.failed_start from None

    async def _accepting(self) -> bool:
        try:
            _, writer = await deadline.wait_for(asyncio.open_connection("127.0.0.1", self.port), 1.0)
        except (OSError, asyncio.TimeoutError):
            return False
        writer.close()
        return True

    async def _ready(self, service: AgentService, seen: str) -> tuple[bool, str]:
        """Whether the service is ready, and what the probe saw (kept when it saw nothing)."""
        if not service.ready_path:
            return await self._accepting(), seen
        import httpx

        url = f"http://127.0.0.1:{self.port}{service.ready_path}"

        async def probe() -> tuple[int, str | None]:
            async with (
                httpx.AsyncClient(timeout=1.0, trust_env=False) as client,
                client.stream("GET", url) as answered,
            ):
                return answered.status_code, answered.headers.get("location")

        try:
            # Only the status is read, and the whole probe is bounded: a ready path that
            # answers slowly, or forever, is not ready.
            status, where = await deadline.wait_for(probe(), 1.0)
        except httpx.ConnectError:
            return False, seen
        except (httpx.HTTPError, asyncio.TimeoutError):
            return False, f"GET {service.ready_path} did not answer within a second"
        if 200 <= status < 300:
            return True, seen
        moved = f" (redirects are not followed; Location: {where})" if where else ""
        return False, f"GET {service.ready_path} answered {status}{moved}, not 2xx"

    def diagnostics(self) -> str | None:
        """The service's last stderr lines, for the report."""
        lines = self.stderr
        return "stderr (last lines):\n" + "\n".join(lines) if lines else None

    async def _end(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            await process.end(EXIT_GRACE_SECS if not self.broken else 0.0)
        self.broken = False

    async def close(self) -> None:
        """End the service (and its process group) and stop the model server."""
        self._case = None
        try:
            await self._end()
        finally:
            if self._server is not None:
                self._server.shutdown()
                self._server.server_close()
                self._server = None


class ServiceAgent:
    """One case's session with the running service."""

    def __init__(self, service: AgentService, case: Case, workspace: Path, context: AgentContext) -> None:
        if not isinstance(context.tools, ToolBox) or context.loop is None:
            raise TypeError("an agent service runs under the harness only")  # pragma: no cover
        self._service = service
        self._case = case
        self._workspace = workspace
        self._front = CaseFront(
            context.provider, context.tools, context.loop, case.trace.model_name, service.command.echo
        )
        # The service outlives the case: it gets the server's URL without the case's token,
        # which the one case running answers.
        self._mcp_url = context.mcp_url.split("?", 1)[0] if context.mcp_url else None
        self._session = f"{case.name}#{next(_sessions)}"
        self._traceparent = context.traceparent
        self._history: list[dict[str, str]] = []
        self._turn = 0
        self._began = False

    @property
    def refused(self) -> str | None:
        """What the endpoint refused the service before the script saw it, if anything."""
        return self._front.refused

    def diagnostics(self) -> str | None:
        return self._service.host.diagnostics()

    async def run_turn(self, user_input: str) -> str:
        host = self._service.host
        if not self._began:
            self._began = True
            try:
                await host.begin(self._service, self._front, self._mcp_url)
            except asyncio.CancelledError:
                host.broken = True  # its start-up outlasted the turn: not known to be ready
                raise
        turn, self._turn = self._turn, self._turn + 1
        try:
            answer = await self._send(turn, user_input)
        except asyncio.CancelledError:
            host.broken = True  # it did not answer in time: the next case gets a new one
            raise
        self._history += [{"role": "user", "content": user_input}, {"role": "assistant", "content": answer}]
        return answer

    async def _send(self, turn: int, user_input: str) -> str:
        service, host = self._service, self._service.host
        path, extra = service.path, {}
        if service.protocol == "a2a":
            assert host.card is not None  # read when it became ready
            path, extra = host.card.path, a2a.headers(host.card)
            body: dict[str, Any] = a2a.request(host.card, user_input, self._session, str(self._workspace))
        elif service.protocol == "json":
            body = {
                "session": self._session,
                "turn": turn,
                "input": user_input,
                "workspace": str(self._workspace),
            }
        else:
            messages = [*self._history, {"role": "user", "content": user_input}]
            body = chat.client_request(
                self._case.trace.model_name, messages, [], AUTO, temperature=None, max_tokens=None
            )
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        import httpx

        # The workspace: a path of any characters, percent-encoded as a header value must be.
        extra |= {
            "X-Zeroclaw-Session": self._session,
            "X-Zeroclaw-Workspace": quote(str(self._workspace), safe="/"),
        }
        if self._traceparent:  # the case's span: a service's own spans join the run's trace
            extra["traceparent"] = self._traceparent
        try:
            status, text = await request(host.port, "POST", path, payload, extra)
        except (OSError, httpx.HTTPError) as exc:
            host.broken = True
            raise self._failure(f"stopped answering: {exc}") from None
        return self._answer_of(status, text, path, body)

    def _answer_of(self, status: int, text: str, path: str, sent: dict[str, Any]) -> str:
        where = f"POST {path}"
        if 300 <= status < 400:
            raise self._failure(f"answered {where} with HTTP {status}, a redirect, which is not followed")
        if not 200 <= status < 300:
            raise self._failure(f"answered {where} with HTTP {status}: {_quoted(text)}")
        if self._service.protocol == "a2a":
            assert self._service.host.card is not None
            try:
                return a2a.answer_of(self._service.host.card, text, sent)
            except A2AError as exc:
                raise RunError(
                    f"the A2A agent {exc}{self._refused()}", traceback=self.diagnostics()
                ) from None
        try:
            data = loads_untrusted(text)
        except ValueError:
            raise self._failure(f"answered {where} with a body that is not JSON: {_quoted(text)}") from None
        if self._service.protocol == "json":
            if isinstance(data, dict) and isinstance(data.get("output"), str):
                return str(data["output"])
            if isinstance(data, dict) and "error" in data:
                raise self._failure(f"reported an error: {_quoted(str(data['error']))}")
            raise self._failure(f'answered {where} without a string "output": {_quoted(text)}')
        try:
            content = chat.read_reply(data).content
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            content = None
        if not isinstance(content, str):
            raise self._failure(f"answered {where} with no choices[0].message.content text: {_quoted(text)}")
        return content

    def _refused(self) -> str:
        return f" ({self.refused})" if self.refused else ""

    def _failure(self, what: str) -> RunError:
        return RunError(f"the agent service {what}{self._refused()}", traceback=self.diagnostics())

    async def aclose(self) -> None:
        """The case is over: it stays open for `quiet_secs` (its requests then are its
        own, and fail it), then the service stays up for the next one (ended at the
        run's end, or now if it stopped answering)."""
        host = self._service.host
        if self._began and not host.broken and self._service.quiet_secs > 0:
            await asyncio.sleep(self._service.quiet_secs)
        host.end(self._front, self._case.name)
        if host.broken:
            await host._end()


def _ignored(line: str | int) -> None:
    """A service's stdout is its log, not its answers: read (so it never blocks) and dropped."""


def _stray_words(body: bytes) -> str:
    """A model request no case was open for, in words: what its last message says."""
    try:
        data = loads_untrusted(body)
    except ValueError:
        return "a body that is not JSON"
    messages = data.get("messages", data.get("input")) if isinstance(data, dict) else None
    return request_words(messages)


def _quoted(text: str) -> str:
    line = tail_line(text.replace("\r", " ").replace("\n", " "))
    return repr(line[:_QUOTED] + ("…" if len(line) > _QUOTED else ""))
