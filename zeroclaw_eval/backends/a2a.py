"""The Agent2Agent (A2A) protocol, as the harness speaks it to an agent under test that
is an A2A server (`agent_service_protocol = "a2a"`, `--agent-a2a`).

The version is the one the official `a2a-sdk` implements: A2A 1.0, its JSON-RPC binding
(`SendMessage`, `SendStreamingMessage`, the `A2A-Version: 1.0` header), and 0.3 where an
agent's card says it speaks only that (`message/send`, `message/stream`, `kind`-tagged
objects), as agents on a2a-sdk 0.3 still do. The agent card, read from
`/.well-known/agent-card.json` once the agent is up, says where the JSON-RPC endpoint is
and whether the agent streams.

Each turn is one message of role user, one text part, in the case's own context (its
`contextId` is the case's session, so an agent keeps one conversation per case, and no
case sees another's); the message's `metadata` carries the case workspace
(`zeroclaw_workspace`) for an agent that writes files the workspace checks read. The
answer is what the agent sent back: a message's text, or a task's (its artifacts' text,
else its status message's) once the task is completed or asks for input; a task that
failed, was rejected or canceled, or wants authentication, and a JSON-RPC error, fail the
turn with what the agent said. A streamed answer (server-sent events) is read to its end
and put together the same way: artifacts by id, appended where an update says so, and the
last status.

Written here rather than on a2a-sdk's client: a turn is one JSON-RPC POST (or one event
stream) that the harness bounds as it bounds its other service protocols (the answer's
size, the turn's deadline, loopback only), and a run needs no protobuf or gRPC stack.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from zeroclaw_eval._support.json.text import compact_json, loads_untrusted
from zeroclaw_eval.errors import A2AError

#: Where an A2A agent serves its card (both versions).
CARD_PATH = "/.well-known/agent-card.json"
#: The protocol versions spoken, newest first.
V1, V03 = "1.0", "0.3"
_METHODS = {V1: ("SendMessage", "SendStreamingMessage"), V03: ("message/send", "message/stream")}
#: Task states that end a turn with an answer; the rest that end it are failures.
_ANSWERED = frozenset({"completed", "input-required"})
_ENDED = frozenset({"failed", "rejected", "canceled", "auth-required"})
_messages = itertools.count(1)
#: A 1.0 result's member, by what it is; a 0.3 result's `kind`, likewise.
_MEMBERS = {"message": "message", "task": "task", "statusUpdate": "status", "artifactUpdate": "artifact"}
_TAGGED = {"message": "message", "task": "task", "status-update": "status", "artifact-update": "artifact"}


@dataclass(frozen=True)
class AgentCard:
    """What the harness reads of an agent card."""

    #: The path of the JSON-RPC endpoint on the agent's own port.
    path: str
    version: str
    streaming: bool
    name: str = ""


def read_card(text: str) -> AgentCard:
    """The card an agent served; `A2AError` for one the harness cannot talk to."""
    try:
        card = loads_untrusted(text)
    except ValueError:
        raise A2AError(f"its agent card ({CARD_PATH}) is not JSON") from None
    if not isinstance(card, dict):
        raise A2AError(f"its agent card ({CARD_PATH}) is not a JSON object")
    capabilities = card.get("capabilities")
    streaming = isinstance(capabilities, dict) and capabilities.get("streaming") is True
    name = card.get("name") if isinstance(card.get("name"), str) else ""
    # 1.0: the interfaces it serves, each with its binding and version.
    interfaces = card.get("supportedInterfaces")
    for interface in interfaces if isinstance(interfaces, list) else ():
        if isinstance(interface, dict) and interface.get("protocolBinding") == "JSONRPC":
            version = V03 if str(interface.get("protocolVersion", V1)).startswith("0.") else V1
            return AgentCard(_path(interface.get("url")), version, streaming, str(name))
    # 0.3: one URL, its transport, and the card's protocol version.
    if isinstance(card.get("url"), str) and card.get("preferredTransport", "JSONRPC") == "JSONRPC":
        version = V03 if str(card.get("protocolVersion", "0.3")).startswith("0.") else V1
        return AgentCard(_path(card["url"]), version, streaming, str(name))
    raise A2AError(
        f"its agent card ({CARD_PATH}) offers no JSON-RPC interface (supportedInterfaces with"
        ' protocolBinding "JSONRPC", or a url with preferredTransport JSONRPC); the harness'
        " speaks A2A over JSON-RPC"
    )


def _path(url: Any) -> str:
    """The path of an interface's URL, which the harness reaches on the agent's loopback
    port whatever host the card names (an agent behind a proxy names the proxy's)."""
    if not isinstance(url, str) or not url:
        return "/"
    try:
        path = urlsplit(url).path or "/"
    except ValueError as exc:
        raise A2AError(f"its agent card's endpoint {_cut(url)!r} is no URL: {exc}") from None
    path = "/" + path.lstrip("/")
    if not path.isascii() or not path.isprintable() or " " in path:
        raise A2AError(f"its agent card's endpoint {_cut(url)!r} has a path no request can carry")
    return path


def headers(card: AgentCard) -> dict[str, str]:
    """The headers a request to `card`'s agent carries besides the harness's own."""
    if card.version == V1:
        return {"A2A-Version": V1, "Accept": "application/json, text/event-stream"}
    return {"Accept": "application/json, text/event-stream"}


def request(card: AgentCard, text: str, context: str, workspace: str) -> dict[str, Any]:
    """The JSON-RPC request sending `text` as the user's next message in `context`,
    streamed where the card says the agent streams."""
    number = next(_messages)
    message: dict[str, Any] = {
        "messageId": f"zeroclaw-{number}",
        "contextId": context,
        "metadata": {"zeroclaw_workspace": workspace},
    }
    if card.version == V1:
        message |= {"role": "ROLE_USER", "parts": [{"text": text}]}
        params: dict[str, Any] = {"message": message}
    else:
        message |= {"kind": "message", "role": "user", "parts": [{"kind": "text", "text": text}]}
        params = {"message": message, "configuration": {"blocking": True}}
    method = _METHODS[card.version][1 if card.streaming else 0]
    return {"jsonrpc": "2.0", "id": number, "method": method, "params": params}


def answer_of(card: AgentCard, body: str, sent: dict[str, Any]) -> str:
    """The answer in the agent's reply to the request `sent`: one JSON-RPC response, or
    the server-sent events of a streamed one. `A2AError` says why there is none."""
    reading = _Reading(sent)
    if card.streaming and body.lstrip().startswith(("data:", "event:", "id:", ":")):
        return reading.events(body)
    return reading.result(reading.response(body))


class _Reading:
    """One answer put together from what the agent sent back to one request: a message,
    or one task's artifacts (by id) and its last status, in the request's context."""

    def __init__(self, sent: dict[str, Any]) -> None:
        self._method = str(sent["method"])
        self._id = sent["id"]
        self._context = sent["params"]["message"]["contextId"]
        self._artifacts: dict[str, list[str]] = {}
        self._state = ""
        self._status_text = ""
        self._message: str | None = None
        self._task: str | None = None

    def response(self, text: str) -> Any:
        """The `result` of one JSON-RPC response to the request; `A2AError` for an
        error, no response, or the response to another request."""
        method = self._method
        try:
            response = loads_untrusted(text)
        except ValueError:
            raise A2AError(f"answered {method} with a body that is not JSON: {_cut(text)!r}") from None
        if not isinstance(response, dict):
            raise A2AError(f"answered {method} with JSON that is not a JSON-RPC response: {_cut(text)!r}")
        error = response.get("error")
        if error is not None:
            code = error.get("code") if isinstance(error, dict) else None
            said = error.get("message") if isinstance(error, dict) else error
            raise A2AError(f"answered {method} with JSON-RPC error {code}: {_cut(str(said))!r}")
        if "result" not in response:
            raise A2AError(f"answered {method} with neither result nor error: {_cut(text)!r}")
        if response.get("id") != self._id:
            raise A2AError(
                f"answered {method} (request id {self._id}) with the response to request id"
                f" {_cut(compact_json(response.get('id')))}"
            )
        return response["result"]

    def events(self, body: str) -> str:
        """The answer of a stream of server-sent events, each a JSON-RPC response."""
        seen = False
        for event in body.replace("\r\n", "\n").split("\n\n"):
            data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
            if data:
                seen = True
                self._take(self.response(data))
        if not seen:
            raise A2AError(f"answered {self._method} with an event stream that holds no event")
        return self._answer()

    def result(self, result: Any) -> str:
        self._take(result)
        return self._answer()

    def _take(self, result: Any) -> None:
        kind, value = _kind(result)
        if self._message is not None or self._state in _ANSWERED | _ENDED:
            # What comes after the answer (a "completed" after "failed", a second
            # message) would let an agent take back a failure: none may come.
            ended = "a message" if self._message is not None else f"its task {self._state}"
            raise A2AError(f"answered {self._method} with more after {ended}: {_cut(compact_json(result))}")
        self._belongs(kind, value)
        if kind == "message":
            if self._task is not None:
                raise A2AError(
                    f"answered {self._method} with a message among the events of task {self._task}"
                )
            self._message = _text(value.get("parts"))
        elif kind == "task":
            self._status(value.get("status"))
            for artifact in value.get("artifacts") or ():
                self._artifact(artifact, append=False)
        elif kind == "status":
            self._status(value.get("status"))
        elif kind == "artifact":
            self._artifact(value.get("artifact"), append=value.get("append") is True)
        else:
            raise A2AError(
                f"answered {self._method} with a result that is no message, task or update:"
                f" {_cut(str(result))!r}"
            )

    def _belongs(self, kind: str, value: dict[str, Any]) -> None:
        """`A2AError` for what is not the agent's answer to this request: another
        context's, another task's than the first the turn saw, or the user's own words."""
        context = value.get("contextId")
        if context is not None and context != self._context:
            raise A2AError(
                f"answered {self._method} in context {_cut(str(context))!r}, not the case's"
                f" {self._context!r}: an answer of another conversation"
            )
        task = value.get("id") if kind == "task" else value.get("taskId")
        if kind != "message" and task is not None:
            if self._task is None:
                self._task = str(task)
            elif str(task) != self._task:
                raise A2AError(f"answered {self._method} with events of task {task!r} and of {self._task!r}")
        role = value.get("role") if kind == "message" else None
        if role is not None and str(role).removeprefix("ROLE_").lower() != "agent":
            raise A2AError(
                f"answered {self._method} with a message of role {_cut(str(role))!r}, not the agent's"
            )

    def _status(self, status: Any) -> None:
        if not isinstance(status, dict):
            return
        state = str(status.get("state") or "")
        # CANCELLED: the spelling a hand-written agent may use for CANCELED.
        self._state = (
            state.removeprefix("TASK_STATE_").lower().replace("_", "-").replace("cancelled", "canceled")
        )
        message = status.get("message")
        if isinstance(message, dict):
            self._status_text = _text(message.get("parts"))

    def _artifact(self, artifact: Any, *, append: bool) -> None:
        if not isinstance(artifact, dict):
            return
        named = artifact.get("artifactId")
        # One without an id is an artifact of its own (`#N` is no id an agent sends).
        key = str(named) if named is not None else f"#{len(self._artifacts)}"
        text = _text(artifact.get("parts"))
        if append and key in self._artifacts:
            self._artifacts[key].append(text)
        else:
            self._artifacts[key] = [text]

    def _answer(self) -> str:
        if self._message is not None:
            return self._message
        said = f": {_cut(self._status_text)!r}" if self._status_text else ""
        if self._state in _ENDED:
            raise A2AError(f"ended its task {self._state}{said}")
        if self._state not in _ANSWERED:
            state = self._state or "without a state"
            raise A2AError(
                f"answered {self._method} with its task still {state}: a turn's answer is the"
                " task completed (or asking for input), within the request"
            )
        artifacts = "\n".join("".join(parts) for parts in self._artifacts.values())
        return artifacts or self._status_text


def _kind(result: Any) -> tuple[str, dict[str, Any]]:
    """What a result (or a streamed event) is, in either version, and its object; ""
    for none, or for one that holds more than one (which would it be?)."""
    if not isinstance(result, dict):
        return "", {}
    held = [(kind, result[key]) for key, kind in _MEMBERS.items() if isinstance(result.get(key), dict)]
    if len(held) == 1:
        return held[0]
    if held:
        return "", {}
    return _TAGGED.get(str(result.get("kind")), ""), result


def _text(parts: Any) -> str:
    """The text parts of a message or an artifact, joined (data and file parts are not
    the answer's words)."""
    if not isinstance(parts, list):
        return ""
    return "".join(
        part["text"] for part in parts if isinstance(part, dict) and isinstance(part.get("text"), str)
    )


def _cut(text: str, limit: int = 300) -> str:
    return text[:limit] + ("…" if len(text) > limit else "")
