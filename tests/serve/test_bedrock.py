"""The Bedrock Converse wire (`wire.bedrock`) over real HTTP, spoken by AWS's own SDK,
`boto3`: a conversation plain and streamed (AWS's binary event stream, read by
botocore's own parser, its checksums and all), a model id percent-encoded in the path,
and what serve refuses, as the exception boto3 raises."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.config import Config

from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.serve.server import ReplayServer

ECHO: Any = {
    "tools": [
        {
            "toolSpec": {
                "name": "echo",
                "description": "Echo.",
                "inputSchema": {"json": {"type": "object", "properties": {"message": {"type": "string"}}}},
            }
        }
    ]
}


def bedrock(server: ReplayServer) -> Any:
    """boto3's bedrock-runtime client pointed at `server`, as `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`
    would point it; any credentials sign (the signature is not checked)."""
    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=server.url.removesuffix("/v1"),
        aws_access_key_id="zeroclaw",
        aws_secret_access_key="replay",
        config=Config(retries={"max_attempts": 1}),
    )


def test_boto3_follows_the_script_streamed_then_plain(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    client = bedrock(server)
    messages: list[Any] = [{"role": "user", "content": [{"text": "Echo hello"}]}]
    stream = client.converse_stream(modelId="two_turns", messages=messages, toolConfig=ECHO)["stream"]
    events = list(stream)
    kinds = [next(iter(event)) for event in events]
    assert kinds[0] == "messageStart"
    assert kinds[-2:] == ["messageStop", "metadata"]
    start = next(e["contentBlockStart"]["start"]["toolUse"] for e in events if "contentBlockStart" in e)
    arguments = "".join(
        e["contentBlockDelta"]["delta"]["toolUse"]["input"] for e in events if "contentBlockDelta" in e
    )
    assert (start["toolUseId"], start["name"], arguments) == ("call_1", "echo", '{"message":"hello"}')
    assert next(e["messageStop"]["stopReason"] for e in events if "messageStop" in e) == "tool_use"
    use = {"toolUseId": "call_1", "name": "echo", "input": {"message": "hello"}}
    messages += [
        {"role": "assistant", "content": [{"toolUse": use}]},
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "call_1", "content": [{"text": "hello"}]}}],
        },
    ]
    second = client.converse(modelId="two_turns", messages=messages, toolConfig=ECHO)
    assert second["output"]["message"]["content"] == [{"text": "The echo tool said: hello"}]
    assert second["stopReason"] == "end_turn"
    log = server.requests()
    assert [(e["api"], e["status"], e["stream"], e["step"]) for e in log] == [
        ("converse", 200, True, 0),
        ("converse", 200, False, 1),
    ]
    assert log[1]["tool_results"] == [{"call_id": "call_1", "name": "echo", "content": "hello"}]


def test_a_failed_tool_result_and_a_json_result_are_read(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    client = bedrock(server)
    use = {"toolUseId": "call_1", "name": "echo", "input": {"message": "hello"}}
    result = {"toolUseId": "call_1", "content": [{"json": {"said": "hello"}}], "status": "error"}
    messages: list[Any] = [
        {"role": "user", "content": [{"text": "Echo hello"}]},
        {"role": "assistant", "content": [{"toolUse": use}]},
        {"role": "user", "content": [{"toolResult": result}]},
    ]
    client.converse(modelId="two_turns", messages=messages, toolConfig=ECHO)
    (entry,) = [e for e in server.requests() if e["step"] == 1]
    assert entry["tool_results"] == [{"call_id": "call_1", "name": "echo", "content": '{"said":"hello"}'}]


def test_a_model_id_the_sdk_percent_encodes_is_read_whole(
    tmp_path: Any, serve: Callable[..., ReplayServer]
) -> None:
    from tests.support.builders import write_fixture
    from tests.support.scripts import TWO_TURNS
    from zeroclaw_eval.collect.suite import discover
    from zeroclaw_eval.serve.routing import load_cases

    write_fixture(tmp_path, "case.json", {**TWO_TURNS, "model_name": "anthropic.claude-v2:1"})
    server = serve(load_cases(discover(tmp_path)))
    messages: list[Any] = [{"role": "user", "content": [{"text": "Echo hello"}]}]
    first = bedrock(server).converse(modelId="anthropic.claude-v2:1", messages=messages, toolConfig=ECHO)
    assert first["stopReason"] == "tool_use"
    assert server.requests()[0]["model"] == "anthropic.claude-v2:1"


def test_a_request_that_left_the_script_is_boto3s_validation_exception(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    client = bedrock(server)
    messages: list[Any] = [{"role": "user", "content": [{"text": "Echo goodbye"}]}]
    with pytest.raises(client.exceptions.ValidationException) as raised:
        client.converse(modelId="two_turns", messages=messages, toolConfig=ECHO)
    assert "Echo hello" in raised.value.response["Error"]["Message"]


def test_a_tool_choice_that_forbids_the_step_is_refused(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    client = bedrock(server)
    messages: list[Any] = [{"role": "user", "content": [{"text": "Echo hello"}]}]
    other = {"toolSpec": {"name": "other", "inputSchema": {"json": {"type": "object"}}}}
    config = {"tools": [*ECHO["tools"], other], "toolChoice": {"tool": {"name": "other"}}}
    with pytest.raises(client.exceptions.ValidationException) as raised:
        client.converse(modelId="two_turns", messages=messages, toolConfig=config)
    assert (
        'the script calls echo, but the request\'s toolConfig.toolChoice {"tool":{"name":"other"}}:'
        " the model may call no other tool"
    ) in raised.value.response["Error"]["Message"]
