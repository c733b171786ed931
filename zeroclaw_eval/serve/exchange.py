"""One model request to `zeroclaw eval serve`, start to finish: read it, find its fixture
and step, apply faults, check it, answer it, and log what happened.

A request is never answered with a silent 200 it does not deserve: one that leaves the
script, offers no tool named like the scripted call, or asks again for a step already
served gets a 400 naming the fixture, the turn and step, what the script expected and
what arrived, and the fixture field as `path:line:col`.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from zeroclaw_eval.agent.permitted import check_choice, check_offered
from zeroclaw_eval.agent.replay import OWN_TOOLS_HINT
from zeroclaw_eval.boundary.sent import fed_back, roles_and_system_prompt
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.cases.model import ECHO_TOOL
from zeroclaw_eval.collect.suite import display_path
from zeroclaw_eval.errors import Divergence, WireError
from zeroclaw_eval.serve.faults import Fault
from zeroclaw_eval.serve.routing import Served
from zeroclaw_eval.wire.base import Reply, WireRequest
from zeroclaw_eval.wire.endpoint import Endpoint, Route, error_reply, model_named, refusal


class Backend(Protocol):
    """What an exchange needs of the server behind it (`ReplayServer`)."""

    faults: list[Fault]
    endpoint: Endpoint

    def number(self) -> tuple[int, int]:
        """Count a model request: (the run, the request's number in it, from 1)."""
        ...

    def answer(self, model: str, messages: list[Any]) -> Served:
        """The case, position and step a request asks for (`Router.answer`)."""
        ...

    def claim(self, served: Served, number: int) -> int | None:
        """Mark the step served by request `number`; the number that served it before, if any."""
        ...

    def broke(self, case: Case) -> None:
        """The run of `case` ended early (a fault or a refusal answered it)."""
        ...

    def record(self, entry: dict[str, Any]) -> None:
        """Add one entry to the request log."""
        ...

    def case_named(self, name: str | None) -> Case | None:
        """The served case of that name, if any."""
        ...

    def fixture_of(self, model: str) -> Case | None:
        """The one case a request's `model` names, if any (`Router.named`)."""
        ...


def exchange(server: Backend, found: Route, body: bytes) -> Reply:
    """The reply to one model request of the route `found` (its API one of
    `wire.endpoint.WIRES`), read as every endpoint reads one (`Endpoint.parse`) and
    written as every endpoint writes its answer (`Endpoint.reply`)."""
    api = found.api
    assert api is not None
    run, number = server.number()
    entry: dict[str, Any] = {"run": run, "number": number, "api": api, "model": None, "fixture": None}
    try:
        request = server.endpoint.parse(api, body, number, found.model, found.flags)
    except WireError as refused:
        # The request could not be read whole; its model may still say whose it was.
        model = model_named(body)
        if model is not None:
            case = server.fixture_of(model)
            entry.update(model=model, fixture=case.name if case is not None else None)
        return _logged(server, entry, refusal(refused, api), refused.message)
    entry.update(_what_was_sent(request))
    served: Served | None = None
    divergence: Divergence | None = None
    try:
        served = server.answer(request.model, request.messages)
    except Divergence as diverged:
        divergence = diverged
    case = served.case if served is not None else None
    if served is not None:
        entry.update(
            fixture=case.name if case else None, turn=served.position.turn, step=served.position.step
        )
    fault = _apply_faults(server.faults, number, case, api)
    if fault is not None:
        if case is not None:
            server.broke(case)
        entry["fault"] = fault[0]
        reply = fault[1]
        if fault[0] == "malformed" and request.stream and served is not None:
            reply = _cut_off(server.endpoint.reply(request, served.step, keep=False))
        return _logged(server, entry, reply)
    if served is not None:
        divergence = _check(server, served, request, number)
    if divergence is not None or served is None:
        if served is not None:
            server.broke(served.case)
        why = divergence or Divergence("no fixture")
        message = _refusal(why, served, request.model, server)
        entry["fixture"] = entry["fixture"] or why.fixture
        return _logged(server, entry, error_reply(400, message, "divergence", api=api), str(why))
    return _logged(server, entry, server.endpoint.reply(request, served.step))


def _what_was_sent(request: WireRequest) -> dict[str, Any]:
    roles, system = roles_and_system_prompt(request.messages)
    return {
        "model": request.model,
        "stream": request.stream,
        "sent_roles": roles,
        "system_prompt": system,
        "offered_tools": [spec.name for spec in request.tools],
        "tool_results": [
            {"call_id": r.call_id, "name": r.name, "content": r.content} for r in fed_back(request.messages)
        ],
    }


def _check(server: Backend, served: Served, request: WireRequest, number: int) -> Divergence | None:
    """Why the routed request may not be answered, if it may not."""
    case, position = served.case, served.position
    pointer = f"/turns/{position.turn}/steps/{position.step}"
    try:
        # As in replay: the case offers its `tools` (and echo); a call to anything else is a
        # hallucination the fixture scripts on purpose, which needs no offer.
        required = frozenset({ECHO_TOOL, *case.trace.tools})
        check_offered(served.step, required, request.tools, OWN_TOOLS_HINT)
        check_choice(served.step, request.choice)
    except Divergence as diverged:
        return Divergence(f"{position}: {diverged}", case.name, pointer)
    before = server.claim(served, number)
    if before is not None:
        return Divergence(
            f"{position} was already served (request {before}); an agent that asks for it again is"
            " looping or retrying a request it got an answer to (POST /_zeroclaw/reset starts a new run)",
            case.name,
            pointer,
        )
    return None


def _refusal(why: Divergence, served: Served | None, model: str, server: Backend) -> str:
    """The 400's message: the fixture and field (`path:line:col`), then what went wrong."""
    case = served.case if served is not None else server.case_named(why.fixture)
    if case is None:
        return f"diverged from the script of {why.fixture or model}: {why}"
    where = display_path(case.path)
    if where.startswith("../"):  # outside the working directory: the full path says more
        where = case.path.as_posix()
    if why.pointer:
        where = case.locate(why.pointer, at_key=True).where(where)
    return f"diverged from the script of {case.name} at {where}: {why}"


def _apply_faults(faults: list[Fault], number: int, case: Case | None, api: str) -> tuple[str, Reply] | None:
    """Wait out the delays for this request; the first other fault that applies, if any."""
    stem = case.path.stem if case is not None else None
    for delay in faults:
        if delay.kind == "delay" and delay.applies_to(number, stem):
            time.sleep(delay.arg / 1000)
    fault = next((f for f in faults if f.kind != "delay" and f.applies_to(number, stem)), None)
    if fault is None:
        return None
    if fault.kind == "429":
        retry = {"Retry-After": f"{fault.arg:g}"}
        return fault.kind, error_reply(429, "rate limited (injected fault)", "rate_limit", retry, api=api)
    if fault.kind == "500":
        return fault.kind, error_reply(500, "server error (injected fault)", "server_error", api=api)
    return fault.kind, Reply(200, b'{"choices": [{"message": ')  # malformed: a body cut off mid-way


def _cut_off(stream: Reply) -> Reply:
    """A stream that stops after its first two events: no finish, no completed response."""
    events = stream.body.split(b"\n\n")
    return Reply(200, b"\n\n".join(events[:2]) + b"\n\n", stream.content_type)


def _logged(server: Backend, entry: dict[str, Any], reply: Reply, divergence: str | None = None) -> Reply:
    entry["status"] = reply.status
    if divergence is not None:
        entry["divergence"] = divergence
    server.record(entry)
    return reply
