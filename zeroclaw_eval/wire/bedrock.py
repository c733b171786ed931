"""Amazon Bedrock's Converse wire format (`POST /model/{modelId}/converse`, and
`/converse-stream`), mapped onto chat messages, as `boto3`'s `bedrock-runtime` client and
the frameworks on it (Strands Agents, LangChain, LlamaIndex, pydantic-ai, CrewAI) send it.

The model is named in the path, percent-encoded as the SDKs write it (`%3A` for `:`). A
request is signed with AWS Signature Version 4; the signature is not checked (the
harness holds no AWS secret to check it with, and no request leaves the machine), so
any credentials the agent is given will do.

- `system` (a list of text blocks) becomes a system message;
- an `assistant` message's `text` blocks become its content and its `toolUse` blocks its
  tool calls (the `input` object written as compact JSON text); `reasoningContent`
  blocks carry nothing the script checks;
- a `user` message's `toolResult` blocks become `tool` messages, in order (their `text`
  and `json` content as text; `status: "error"` marks the call failed), and its `text`
  blocks one user message after them;
- `toolConfig.tools[].toolSpec` (`name`, `description`, `inputSchema.json`) are the tools
  offered, and `toolConfig.toolChoice` (`auto`, `any`, `tool`) what the request lets the
  model do.

The reply is a `ConverseResponse`: the assistant message, `stopReason` (`tool_use` when it
calls tools, which boto3 loops and Strands run tools on; else `end_turn`), `usage` and
`metrics`. Streamed (`/converse-stream`), it is AWS's binary event stream
(`application/vnd.amazon.eventstream`): each event a message of a prelude (total and
headers lengths, their CRC32), headers (`:event-type`, `:content-type`,
`:message-type`), the JSON payload and a CRC32 of it all; the events `messageStart`,
per content block `contentBlockStart` (a tool use's id and name), `contentBlockDelta`
(text, or the tool input's JSON in pieces) and `contentBlockStop`, then `messageStop`
and `metadata`. An error is `{"__type": "ValidationException", "message": ...}`, which
boto3 raises as that exception.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import json
import os
import re
import struct
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote, urlsplit

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
from zeroclaw_eval.wire.base import Reply, Store, Usage, WireRequest, client_turns, json_body
from zeroclaw_eval.wire.chat import TEXT_PIECE, tool_spec

API = "converse"
#: `/model/{modelId}/converse` and `/converse-stream`; the model id is percent-decoded by
#: the endpoint.
ROUTES: tuple[str, ...] = (r"/model/(?P<model>[^/]+)/converse(?P<stream>-stream)?",)

#: The exception Bedrock answers each status with, as boto3 names it.
_ERRORS = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    413: "ValidationException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
}


def _blocks(message: dict[str, Any], index: int) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list) or not all(isinstance(block, dict) for block in content):
        raise WireError(400, f"messages.{index}.content must be a list of content blocks")
    return content


def _texts(blocks: list[dict[str, Any]]) -> str | None:
    texts = [block["text"] for block in blocks if isinstance(block.get("text"), str)]
    return "".join(texts) if texts else None


def _result(block: dict[str, Any]) -> Message | None:
    """The `tool` message of a `toolResult` block (None for another block)."""
    result = block.get("toolResult")
    if result is None:
        return None
    if not isinstance(result, dict):
        raise WireError(400, "a toolResult block must be an object")
    parts = []
    content = result.get("content")
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            parts.append(part["text"])
        elif isinstance(part, dict) and "json" in part:
            parts.append(compact_json(part["json"]))
    message: Message = {"role": "tool", "tool_call_id": result.get("toolUseId"), "content": "".join(parts)}
    if result.get("status") == "error":
        message["is_error"] = True
    return message


def request_messages(request: dict[str, Any]) -> list[Message]:
    """The chat messages a Converse request stands for: its `system`, then `messages`."""
    lead: list[Message] = []
    system = request.get("system")
    if system is not None:
        if not isinstance(system, list) or not all(isinstance(block, dict) for block in system):
            raise WireError(400, "system must be a list of system content blocks")
        text = _texts(system)
        if text is not None:
            lead.append({"role": "system", "content": text})
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        raise WireError(400, "1 validation error detected: messages must have at least 1 message")
    converted = list(lead)
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            raise WireError(400, f"messages.{index}.role must be user or assistant")
        assert isinstance(message, dict)
        blocks = _blocks(message, index)
        if role == "assistant":
            calls = [
                {
                    "id": use.get("toolUseId"),
                    "type": "function",
                    "function": {"name": use.get("name"), "arguments": compact_json(use.get("input", {}))},
                }
                for block in blocks
                if isinstance(use := block.get("toolUse"), dict)
            ]
            said: Message = {"role": "assistant", "content": _texts(blocks)}
            if calls:
                said["tool_calls"] = calls
            converted.append(said)
            continue
        converted.extend(result for block in blocks if (result := _result(block)) is not None)
        text = _texts(blocks)
        if text is not None:
            converted.append({"role": "user", "content": text})
    return converted


def offered(request: dict[str, Any]) -> list[ToolSpec]:
    """The tool specs of `toolConfig.tools` (a cache point or another kind of tool left out)."""
    config = request.get("toolConfig")
    tools = config.get("tools") if isinstance(config, dict) else None
    specs = []
    for tool in tools if isinstance(tools, list) else []:
        spec = tool.get("toolSpec") if isinstance(tool, dict) else None
        if not isinstance(spec, dict):
            continue
        schema = spec.get("inputSchema")
        found = tool_spec(
            spec.get("name"),
            spec.get("description"),
            schema.get("json") if isinstance(schema, dict) else None,
        )
        if found is not None:
            specs.append(found)
    return specs


def tool_choice_of(request: dict[str, Any]) -> ToolChoice:
    """What `toolConfig.toolChoice` lets the model do: `auto`, `any` (call one at least)
    or `tool` (call that one)."""
    config = request.get("toolConfig")
    choice = config.get("toolChoice") if isinstance(config, dict) else None
    if choice is None:
        return AUTO
    if isinstance(choice, dict) and "auto" in choice:
        return AUTO
    said = f"toolConfig.toolChoice {compact_json(choice)}"
    if isinstance(choice, dict) and "any" in choice:
        return ToolChoice("required", said=said)
    named = choice.get("tool") if isinstance(choice, dict) else None
    name = named.get("name") if isinstance(named, dict) else None
    if isinstance(name, str) and name:
        return ToolChoice("function", name, said=said)
    raise WireError(400, "toolConfig.toolChoice must be one of auto, any or tool (with a name)")


def parse(request: dict[str, Any], number: int, model: str, store: Store) -> WireRequest:
    """A Converse request: its conversation, the tools it offers and what it lets the
    model do with them. Whether it streams is the path's to say (`/converse-stream`)."""
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


def _content(response: ModelResponse) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"text": response.content}] if response.content else []
    for call in response.tool_calls:
        decoded = decode_arguments(call.arguments)
        arguments = decoded if isinstance(decoded, dict) else {}  # a tool's input is an object
        blocks.append({"toolUse": {"toolUseId": call.id, "name": call.name, "input": arguments}})
    return blocks


def _stop_reason(response: ModelResponse) -> str:
    return "tool_use" if response.tool_calls else "end_turn"


def _usage(response: ModelResponse) -> dict[str, int]:
    return {
        "inputTokens": response.input_tokens,
        "outputTokens": response.output_tokens,
        "totalTokens": response.input_tokens + response.output_tokens,
    }


def response_body(response: ModelResponse) -> dict[str, Any]:
    """`response` as one `ConverseResponse`."""
    return {
        "output": {"message": {"role": "assistant", "content": _content(response)}},
        "stopReason": _stop_reason(response),
        "usage": _usage(response),
        "metrics": {"latencyMs": 0},
    }


def stream_events(response: ModelResponse) -> list[tuple[str, dict[str, Any]]]:
    """`response` as the events of a Converse stream, each (its type, its payload)."""
    events: list[tuple[str, dict[str, Any]]] = [("messageStart", {"role": "assistant"})]
    for index, block in enumerate(_content(response)):
        if "text" in block:
            text = block["text"]
            for start in range(0, len(text), TEXT_PIECE):
                delta = {"delta": {"text": text[start : start + TEXT_PIECE]}, "contentBlockIndex": index}
                events.append(("contentBlockDelta", delta))
        else:
            use = block["toolUse"]
            begin = {"toolUseId": use["toolUseId"], "name": use["name"]}
            events.append(("contentBlockStart", {"start": {"toolUse": begin}, "contentBlockIndex": index}))
            text = compact_json(use["input"])
            for start in range(0, len(text), TEXT_PIECE):
                piece = {"toolUse": {"input": text[start : start + TEXT_PIECE]}}
                events.append(("contentBlockDelta", {"delta": piece, "contentBlockIndex": index}))
        events.append(("contentBlockStop", {"contentBlockIndex": index}))
    events.append(("messageStop", {"stopReason": _stop_reason(response)}))
    events.append(("metadata", {"usage": _usage(response), "metrics": {"latencyMs": 0}}))
    return events


def _header(name: str, value: str) -> bytes:
    """One event-stream header of type string (7): name length, name, type, value length, value."""
    encoded_name, encoded = name.encode("utf-8"), value.encode("utf-8")
    return (
        struct.pack("B", len(encoded_name))
        + encoded_name
        + b"\x07"
        + struct.pack(">H", len(encoded))
        + encoded
    )


def event_message(event_type: str, payload: dict[str, Any]) -> bytes:
    """One message of AWS's event-stream framing, which botocore's reader checks byte for
    byte: the prelude (total length, headers length, their CRC32), the headers, the
    payload, and the CRC32 of everything before it."""
    headers = (
        _header(":event-type", event_type)
        + _header(":content-type", "application/json")
        + _header(":message-type", "event")
    )
    body = json.dumps(payload).encode("ascii")
    total = 12 + len(headers) + len(body) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    message = prelude + headers + body
    return message + struct.pack(">I", binascii.crc32(message))


def reply(request: WireRequest, response: ModelResponse, store: Store, *, keep: bool) -> Reply:
    """`response` as one `ConverseResponse`, or as the event stream of one."""
    if not request.stream:
        return Reply(200, json_body(response_body(response)))
    body = b"".join(event_message(kind, payload) for kind, payload in stream_events(response))
    return Reply(200, body, "application/vnd.amazon.eventstream")


def error_body(status: int, message: str, kind: str) -> dict[str, Any]:
    """An error as Bedrock answers one, which boto3 raises as the exception `__type` names."""
    return {"__type": _ERRORS.get(status, "InternalServerException"), "message": message}


# The live client's half (`wire.base.ClientWire`): the harness asks a real Bedrock.

#: What a reply that cannot be read is not, for the error that says so.
SHAPE = "no output.message of the Converse shape"
#: The service name Bedrock's runtime signs requests under.
_SERVICE = "bedrock"


def client_url(base_url: str, model: str) -> str:
    """Where `model`'s answers are asked for: its id percent-encoded, as the SDKs send it."""
    return f"{base_url.rstrip('/')}/model/{quote(model, safe='')}/converse"


def client_headers(key: str) -> dict[str, str]:
    """None: the key signs each request instead (`client_signed`)."""
    return {}


def _region(host: str) -> str:
    """The region a Bedrock host names (`bedrock-runtime.eu-west-1.amazonaws.com`), else
    the environment's, else us-east-1."""
    named = re.match(r"bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com", host)
    if named is not None:
        return named.group(1)
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()


def client_signed(
    url: str, headers: dict[str, str], body: bytes, key: str, now: datetime | None = None
) -> dict[str, str]:
    """`headers` with the request signed by AWS Signature Version 4, as botocore signs it
    (the secret `key`, the id in `AWS_ACCESS_KEY_ID`, a session's `AWS_SESSION_TOKEN`):
    every header given, the host and the time signed, the body by its SHA-256, the path
    encoded once more as AWS wants it for every service but S3. Written here, not taken
    from botocore: the harness does not depend on it, and the signature is a page of
    the AWS documentation."""
    when = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    parts = urlsplit(url)
    signed = {name.lower(): " ".join(value.split()) for name, value in headers.items()}
    signed.update({"host": parts.netloc, "x-amz-date": when})
    token = os.environ.get("AWS_SESSION_TOKEN")
    if token:
        signed["x-amz-security-token"] = token
    names = sorted(signed)
    canonical = "\n".join(
        [
            "POST",
            quote(parts.path or "/", safe="/~"),
            parts.query,
            "".join(f"{name}:{signed[name]}\n" for name in names),
            ";".join(names),
            hashlib.sha256(body).hexdigest(),
        ]
    )
    region = _region(parts.hostname or "")
    scope = f"{when[:8]}/{region}/{_SERVICE}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", when, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    signing = _hmac(_hmac(_hmac(_hmac(f"AWS4{key}".encode(), when[:8]), region), _SERVICE), "aws4_request")
    signature = hmac.new(signing, to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
    access = os.environ.get("AWS_ACCESS_KEY_ID", "")
    credential = f"Credential={access}/{scope}, SignedHeaders={';'.join(names)}"
    authorization = f"AWS4-HMAC-SHA256 {credential}, Signature={signature}"
    extra = {"X-Amz-Date": when, "Authorization": authorization}
    if token:
        extra["X-Amz-Security-Token"] = token
    return {**headers, **extra}


def _messages_of(messages: list[Message]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The `system` blocks and Converse `messages` of chat `messages` (`client_turns`): a
    step's results one user message of `toolResult` blocks, as the API asks."""
    system, turns = client_turns(messages)
    converted: list[dict[str, Any]] = []
    for said in turns:
        if said.role == "assistant":
            blocks: list[dict[str, Any]] = [{"text": said.text}] if said.text else []
            blocks += [{"toolUse": {"toolUseId": i, "name": n, "input": a}} for i, n, a in said.calls]
            converted.append({"role": "assistant", "content": blocks})
        elif said.role == "results":
            results = []
            for call_id, _name, text, failed in said.results:
                result: dict[str, Any] = {"toolUseId": call_id, "content": [{"text": text}]}
                if failed:
                    result["status"] = "error"
                results.append({"toolResult": result})
            converted.append({"role": "user", "content": results})
        else:
            converted.append({"role": "user", "content": [{"text": said.text or ""}]})
    return [{"text": text} for text in system], converted


def client_request(
    model: str,
    messages: list[Message],
    tools: list[ToolSpec],
    choice: ToolChoice,
    *,
    temperature: float | None,
    max_tokens: int | None,
) -> dict[str, Any]:
    """A Converse request asking what the chat `messages` ask (the model is in the URL).
    Converse cannot forbid tools: a choice of none sends none."""
    system, converted = _messages_of(messages)
    body: dict[str, Any] = {"messages": converted}
    if system:
        body["system"] = system
    if tools and choice.mode != "none":
        offered = [tool for tool in tools if choice.allowed is None or tool.name in choice.allowed]
        specs = [
            {
                "toolSpec": {
                    "name": tool.name,
                    "description": tool.description or tool.name,
                    "inputSchema": {"json": tool.parameters or {"type": "object"}},
                }
            }
            for tool in offered
        ]
        config: dict[str, Any] = {"tools": specs}
        if choice.mode == "required":
            config["toolChoice"] = {"any": {}}
        elif choice.mode == "function" and choice.function:
            config["toolChoice"] = {"tool": {"name": choice.function}}
        body["toolConfig"] = config
    inference: dict[str, Any] = {}
    if temperature is not None:
        inference["temperature"] = temperature
    if max_tokens is not None:
        inference["maxTokens"] = max_tokens
    if inference:
        body["inferenceConfig"] = inference
    return body


_READ, _WRITE = "cacheReadInputTokens", "cacheWriteInputTokens"
USAGE = Usage("inputTokens", "outputTokens", cached=(_READ,), more_input=(_READ, _WRITE))


def read_reply(data: Any) -> ModelResponse:
    """The reply a `ConverseResponse` holds: its message's text and tool uses, the usage."""
    blocks = data["output"]["message"]["content"]
    calls = tuple(
        ToolCallRequest(str(use["toolUseId"]), str(use["name"]), compact_json(use.get("input", {})))
        for block in blocks
        if isinstance(use := block.get("toolUse"), dict)
    )
    usage = data.get("usage")
    return ModelResponse(
        _texts(blocks),
        calls,
        *USAGE.counts(usage),
    )
