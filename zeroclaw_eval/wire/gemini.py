"""Google's Gemini API wire format (`POST /v1beta/models/{model}:generateContent`, and
`:streamGenerateContent`), mapped onto chat messages, as `google-genai` and the frameworks
on it (Google ADK, pydantic-ai, LangChain, CrewAI, LlamaIndex) send it.

The model is named in the path, under the SDKs' API version (`v1`: google-genai 3;
`v1beta`: google-genai 2, which Google ADK pins). Keys come in either spelling the SDKs
write (`functionCall` or `function_call`, `parametersJsonSchema` or its snake case):

- `systemInstruction` (a content, or text) becomes a system message;
- each `contents` entry of role `model` becomes an assistant message: its `text` parts its
  content (a `thought` part, the model's reasoning, carries nothing the script checks),
  its `functionCall` parts its tool calls (`args` written as compact JSON text);
- each entry of role `user` (or `function`, as older clients wrote results) becomes, in
  order, a `tool` message per `functionResponse` part (its `response` object: the text of
  an `output` or `result` key, else its JSON; an `error` key marks the call failed, as
  google-genai's automatic function calling writes a tool's exception), then one user
  message of its text parts;
- `tools[].functionDeclarations` are the tools offered (a tool of another kind, Google
  Search or code execution, is no function the script can call);
- `toolConfig.functionCallingConfig` is what the request lets the model do: `AUTO`,
  `NONE`, `ANY` (call one at least; `VALIDATED` too), and `allowedFunctionNames`.

A function call carries the id of the scripted call (`functionCall.id`), which the SDKs
send back with the call and its result. One sent back without it (an older or
hand-written client) gets the id this endpoint sent with that call, found by name and
arguments among its replies (`Store`); a result without one, by position.

The reply is a `GenerateContentResponse`: one candidate holding the text and the function
calls, `finishReason` `STOP`, and `usageMetadata`; streamed, the same in chunks (the text
in pieces, the calls whole, the finish reason and usage last), as server-sent events
under `?alt=sse` (what the SDKs ask for) or one JSON array. An error is `{"error":
{"code", "message", "status"}}`, google-genai's `ClientError`.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Any

from zeroclaw_eval._support.json.text import compact_json
from zeroclaw_eval.boundary.provider import (
    AUTO,
    Message,
    ModelResponse,
    ToolCallRequest,
    ToolChoice,
    ToolSpec,
    decode_arguments,
)
from zeroclaw_eval.errors import WireError
from zeroclaw_eval.wire.base import (
    Reply,
    Store,
    Usage,
    WireRequest,
    client_turns,
    event_json,
    json_body,
    unsigned,
)
from zeroclaw_eval.wire.chat import TEXT_PIECE, tool_spec

API = "gemini"
#: `{version}/models/{model}:{method}`; the endpoint strips a leading `/v1` first, so the
#: rest of `v1beta` (`beta`) stands before `/models`. A model's name is one path segment
#: (a tuned model's, `tunedModels/…`, is not served).
ROUTES: tuple[str, ...] = (r"(?:beta)?/models/(?P<model>[^/:]+):(?P<stream>stream)?[gG]enerateContent",)

#: The `status` Google's APIs answer each HTTP status with.
_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    413: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}

#: Function calls sent, by (name, arguments as compact JSON), for the requests that send
#: one back without its id; the newest kept.
_SENT_LIMIT = 10_000


def _get(value: Any, camel: str) -> Any:
    """`value[camel]`, or its snake_case spelling (`functionCall`, `function_call`)."""
    if not isinstance(value, dict):
        return None
    if camel in value:
        return value[camel]
    return value.get(re.sub(r"(?<!^)([A-Z])", r"_\1", camel).lower())


def _parts(content: Any) -> list[dict[str, Any]]:
    parts = _get(content, "parts")
    if parts is None:
        return []
    if not isinstance(parts, list) or not all(isinstance(part, dict) for part in parts):
        raise WireError(400, "contents[].parts must be a list of parts")
    return parts


def _texts(parts: list[dict[str, Any]]) -> str | None:
    """The text of `parts` (their `text`s joined, the model's thoughts left out); None
    when they hold none."""
    texts = [part["text"] for part in parts if isinstance(part.get("text"), str) and not part.get("thought")]
    return "".join(texts) if texts else None


class _Ids:
    """The ids of function calls this endpoint sent, by name and arguments: a call sent
    back without its id is given the one it was sent with."""

    def __init__(self) -> None:
        self._sent: OrderedDict[tuple[str, str], list[str]] = OrderedDict()
        self._lock = threading.Lock()

    def sent(self, name: str, arguments: str, call_id: str) -> None:
        with self._lock:
            ids = self._sent.setdefault((name, arguments), [])
            if call_id not in ids:
                ids.append(call_id)
            while len(self._sent) > _SENT_LIMIT:
                self._sent.popitem(last=False)

    def of(self, name: str, arguments: str, taken: set[str]) -> str | None:
        with self._lock:
            ids = self._sent.get((name, arguments), [])
        return next((call_id for call_id in ids if call_id not in taken), None)


_IDS = _Ids()


def _call(part: dict[str, Any], taken: set[str]) -> dict[str, Any] | None:
    """The chat tool call of a `functionCall` part (None for another part)."""
    call = _get(part, "functionCall")
    if call is None:
        return None
    name = _get(call, "name")
    if not isinstance(name, str) or not name:
        raise WireError(400, "a functionCall part names no function")
    args = _get(call, "args")
    arguments = compact_json(args if args is not None else {})
    call_id = _get(call, "id")
    if not isinstance(call_id, str) or not call_id:
        call_id = _IDS.of(name, arguments, taken) or f"{name}_{len(taken)}"
    taken.add(call_id)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _result(part: dict[str, Any], calls: list[dict[str, Any]], answered: int) -> Message | None:
    """The `tool` message of a `functionResponse` part (None for another part); without
    an id, the id of the call of its name it answers, by position among `calls`."""
    response = _get(part, "functionResponse")
    if response is None:
        return None
    name = _get(response, "name")
    call_id = _get(response, "id")
    if not isinstance(call_id, str) or not call_id:
        named = [call for call in calls if call["function"]["name"] == name]
        earlier = sum(1 for call in calls[:answered] if call["function"]["name"] == name)
        call_id = named[earlier]["id"] if earlier < len(named) else name if isinstance(name, str) else ""
    body = _get(response, "response")
    message: Message = {"role": "tool", "tool_call_id": call_id, "content": _result_text(body)}
    if isinstance(body, dict) and body.get("error") not in (None, "") and set(body) == {"error"}:
        message["is_error"] = True
    return message


def _result_text(body: Any) -> str:
    """A function response's text: its `output` or `result` (or `error`) when that is its
    one key and text, else its JSON."""
    if isinstance(body, dict) and len(body) == 1:
        (value,) = body.values()
        if next(iter(body)) in ("output", "result", "error") and isinstance(value, str):
            return value
    return compact_json(body if body is not None else {})


def request_messages(request: dict[str, Any]) -> list[Message]:
    """The chat messages a `generateContent` request stands for: its system instruction,
    then its `contents`."""
    messages: list[Message] = []
    system = _get(request, "systemInstruction")
    if isinstance(system, str):
        messages.append({"role": "system", "content": system})
    elif system is not None:
        text = _texts(_parts(system))
        if text is not None:
            messages.append({"role": "system", "content": text})
    contents = _get(request, "contents")
    if isinstance(contents, dict):  # one content, as a client may send it
        contents = [contents]
    if not isinstance(contents, list) or not contents:
        raise WireError(400, "contents is not specified: the request needs one content at least")
    taken: set[str] = set()
    calls: list[dict[str, Any]] = []
    after_model = False
    for index, content in enumerate(contents):
        if not isinstance(content, dict):
            raise WireError(400, f"contents[{index}] must be a content object")
        role = _get(content, "role") or "user"
        parts = _parts(content)
        if role == "model":
            found = [call for part in parts if (call := _call(part, taken)) is not None]
            text = _texts(parts)
            if after_model:
                # One model turn in several contents: google-genai's chat sessions keep a
                # streamed reply as one content per chunk (its text, then its calls), and
                # the API reads them as one turn.
                message = messages[-1]
                if text is not None:
                    message["content"] = (message.get("content") or "") + text
                calls += found
            else:
                message = {"role": "assistant", "content": text}
                calls = found
                messages.append(message)
            if calls:
                message["tool_calls"] = calls
            after_model = True
            continue
        after_model = False
        if role in ("user", "function", "tool"):
            answered = 0
            for part in parts:
                result = _result(part, calls, answered)
                if result is not None:
                    messages.append(result)
                    answered += 1
            text = _texts(parts)
            if text is not None:
                messages.append({"role": "user", "content": text})
        else:
            raise WireError(400, f"contents[{index}].role must be user or model, not {role!r}")
    return messages


def offered(request: dict[str, Any]) -> list[ToolSpec]:
    """The function declarations of `tools`, with their schema in either spelling."""
    specs = []
    tools = _get(request, "tools")
    for tool in tools if isinstance(tools, list) else []:
        declarations = _get(tool, "functionDeclarations")
        for declaration in declarations if isinstance(declarations, list) else []:
            schema = _get(declaration, "parametersJsonSchema")
            if schema is None:
                schema = _get(declaration, "parameters")
            spec = tool_spec(_get(declaration, "name"), _get(declaration, "description"), schema)
            if spec is not None:
                specs.append(spec)
    return specs


def tool_choice_of(request: dict[str, Any]) -> ToolChoice:
    """What `toolConfig.functionCallingConfig` lets the model do; `WireError` for a mode
    the API does not have."""
    config = _get(_get(request, "toolConfig"), "functionCallingConfig")
    if config is None:
        return AUTO
    mode = _get(config, "mode")
    mode = mode.upper() if isinstance(mode, str) else "AUTO"
    allowed_names = _get(config, "allowedFunctionNames")
    allowed = (
        frozenset(name for name in allowed_names if isinstance(name, str))
        if isinstance(allowed_names, list) and allowed_names
        else None
    )
    said = f"toolConfig.functionCallingConfig {compact_json(config)}"
    if mode in ("AUTO", "MODE_UNSPECIFIED"):
        return ToolChoice("auto", allowed=allowed, said=said)
    if mode == "NONE":
        return ToolChoice("none", said=said)
    if mode in ("ANY", "VALIDATED"):
        return ToolChoice("required", allowed=allowed, said=said)
    raise WireError(400, f"functionCallingConfig.mode must be AUTO, ANY, NONE or VALIDATED, not {mode!r}")


def parse(request: dict[str, Any], number: int, model: str, store: Store) -> WireRequest:
    """A `generateContent` request: its conversation, the tools it declares and what it
    lets the model do with them. Whether it streams is the path's to say
    (`streamGenerateContent`), which the endpoint sets."""
    return WireRequest(
        API,
        number,
        model,
        request_messages(request),
        offered(request),
        False,
        True,
        request,
        choice=tool_choice_of(request),
    )


def _function_call(call: ToolCallRequest) -> dict[str, Any]:
    args = decode_arguments(call.arguments)
    _IDS.sent(call.name, compact_json(args if isinstance(args, dict) else {}), call.id)
    return {
        "functionCall": {"id": call.id, "name": call.name, "args": args if isinstance(args, dict) else {}}
    }


def response_id(number: int) -> str:
    """The `responseId` of the reply to request `number`."""
    return f"zeroclaw-{number}"


def _usage(response: ModelResponse) -> dict[str, int]:
    return {
        "promptTokenCount": response.input_tokens,
        "candidatesTokenCount": response.output_tokens,
        "totalTokenCount": response.input_tokens + response.output_tokens,
    }


def _response(
    parts: list[dict[str, Any]], model: str, number: int, last: bool, usage: dict[str, int]
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    body: dict[str, Any] = {
        "candidates": [candidate],
        "modelVersion": model,
        "responseId": f"zeroclaw-{number}",
    }
    if last:
        candidate["finishReason"] = "STOP"
        body["usageMetadata"] = usage
    return body


def response_body(response: ModelResponse, model: str, number: int) -> dict[str, Any]:
    """`response` as one `GenerateContentResponse`."""
    parts: list[dict[str, Any]] = [{"text": response.content}] if response.content else []
    parts += [_function_call(call) for call in response.tool_calls]
    return _response(parts, model, number, True, _usage(response))


def response_chunks(response: ModelResponse, model: str, number: int) -> list[dict[str, Any]]:
    """`response` as the chunks of a stream: the text in pieces, then the calls whole; the
    finish reason and the usage on the last chunk."""
    text = response.content or ""
    pieces = [text[i : i + TEXT_PIECE] for i in range(0, len(text), TEXT_PIECE)]
    parts: list[list[dict[str, Any]]] = [[{"text": piece}] for piece in pieces]
    if response.tool_calls:
        parts.append([_function_call(call) for call in response.tool_calls])
    if not parts:
        parts.append([])
    usage = _usage(response)
    return [_response(part, model, number, i == len(parts) - 1, usage) for i, part in enumerate(parts)]


def reply(request: WireRequest, response: ModelResponse, store: Store, *, keep: bool) -> Reply:
    """`response` as the request asked: one response, or its chunks as server-sent events
    (`?alt=sse`) or one JSON array."""
    if not request.stream:
        return Reply(200, json_body(response_body(response, request.model, request.number)))
    chunks = response_chunks(response, request.model, request.number)
    if "sse" in request.path_flags:
        return Reply(
            200,
            b"".join(b"data: " + event_json(chunk) + b"\r\n\r\n" for chunk in chunks),
            "text/event-stream",
        )
    return Reply(200, json_body(chunks))


def error_body(status: int, message: str, kind: str) -> dict[str, Any]:
    """An error of Google's APIs, which google-genai raises as `ClientError` (4xx) or
    `ServerError` (5xx)."""
    return {"error": {"code": status, "message": message, "status": _STATUS.get(status, "UNKNOWN")}}


# The live client's half (`wire.base.ClientWire`): the harness asks a real Gemini.

#: What a reply that cannot be read is not, for the error that says so.
SHAPE = "no candidates[0].content of the generateContent shape"
#: The key goes in a header (`client_headers`): nothing to sign.
client_signed = unsigned


def client_url(base_url: str, model: str) -> str:
    """Where `model`'s answers are asked for: the base URL's API version if it ends in
    one (`/v1`, `/v1beta`), else `v1beta`, the version google-genai 2 and ADK use."""
    base = base_url.rstrip("/")
    version = "" if re.search(r"/v1(?:beta|alpha)?$", base) else "/v1beta"
    return f"{base}{version}/models/{model}:generateContent"


def client_headers(key: str) -> dict[str, str]:
    """The key in `x-goog-api-key`, as google-genai sends it."""
    return {"x-goog-api-key": key} if key else {}


def _client_contents(messages: list[Message]) -> tuple[list[str], list[dict[str, Any]]]:
    """The system texts and the `contents` of chat `messages` (`client_turns`): a step's
    results one content of function responses, each named by the call it answers."""
    system, turns = client_turns(messages)
    contents: list[dict[str, Any]] = []
    for said in turns:
        if said.role == "assistant":
            parts: list[dict[str, Any]] = [{"text": said.text}] if said.text else []
            parts += [{"functionCall": {"id": i, "name": n, "args": a}} for i, n, a in said.calls]
            contents.append({"role": "model", "parts": parts})
        elif said.role == "results":
            responses = [
                {
                    "functionResponse": {
                        "id": i,
                        "name": n,
                        "response": {"error" if failed else "result": text},
                    }
                }
                for i, n, text, failed in said.results
            ]
            contents.append({"role": "user", "parts": responses})
        else:
            contents.append({"role": "user", "parts": [{"text": said.text or ""}]})
    return system, contents


def _client_tool_config(choice: ToolChoice) -> dict[str, Any] | None:
    """`toolConfig` saying what `choice` lets the model do (None: anything)."""
    if choice.mode == "none":
        return {"functionCallingConfig": {"mode": "NONE"}}
    config: dict[str, Any] = {"mode": "AUTO" if choice.mode == "auto" else "ANY"}
    allowed = (
        [choice.function] if choice.mode == "function" and choice.function else sorted(choice.allowed or ())
    )
    if allowed:
        config["allowedFunctionNames"] = allowed
    return None if config == {"mode": "AUTO"} else {"functionCallingConfig": config}


def client_request(
    model: str,
    messages: list[Message],
    tools: list[ToolSpec],
    choice: ToolChoice,
    *,
    temperature: float | None,
    max_tokens: int | None,
) -> dict[str, Any]:
    """A `generateContent` request asking what the chat `messages` ask (the model is in
    the URL), with `tools` declared and what `choice` lets the model do with them."""
    system, contents = _client_contents(messages)
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
    if tools:
        declared = [
            {
                "name": tool.name,
                "description": tool.description,
                "parametersJsonSchema": tool.parameters or {"type": "object"},
            }
            for tool in tools
        ]
        body["tools"] = [{"functionDeclarations": declared}]
        tool_config = _client_tool_config(choice)
        if tool_config is not None:
            body["toolConfig"] = tool_config
    generation: dict[str, Any] = {}
    if temperature is not None:
        generation["temperature"] = temperature
    if max_tokens is not None:
        generation["maxOutputTokens"] = max_tokens
    if generation:
        body["generationConfig"] = generation
    return body


_CACHE, _THOUGHTS = ("cachedContentTokenCount",), ("thoughtsTokenCount",)
USAGE = Usage("promptTokenCount", "candidatesTokenCount", _CACHE, _THOUGHTS, (), _THOUGHTS)


def read_reply(data: Any) -> ModelResponse:
    """The reply a `GenerateContentResponse` holds: its first candidate's text (thoughts
    left out), function calls (an id made from its place where the API gives none) and
    usage (thoughts counted beside the candidates' tokens, so added to the output)."""
    parts = _parts(data["candidates"][0]["content"])
    asked = [_get(part, "functionCall") for part in parts]
    calls = tuple(
        ToolCallRequest(
            str(_get(call, "id") or f"call_{index}"),
            str(call["name"]),
            compact_json(_get(call, "args") or {}),
        )
        for index, call in enumerate(call for call in asked if call is not None)
    )
    usage = _get(data, "usageMetadata")
    return ModelResponse(
        _texts(parts),
        calls,
        *USAGE.counts(usage),
    )
