"""`wire.bedrock`'s client half, which live mode speaks to a real Bedrock: the request
signed with AWS Signature Version 4 exactly as botocore signs it, the conversation as
Converse messages, the reply read (the server half is tested with boto3 itself,
tests/serve/test_bedrock.py, and the two together in tests/cli/commands/test_run_live.py)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from botocore import auth as botocore_auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from zeroclaw_eval.boundary.provider import ToolChoice, ToolSpec
from zeroclaw_eval.wire import bedrock

WHEN = datetime(2026, 12, 7, 9, 30, 15, tzinfo=timezone.utc)


@pytest.mark.parametrize("token", [None, "a-session-token"])
@pytest.mark.parametrize(
    "url",
    [
        "https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse",
        "http://127.0.0.1:8080/model/m/converse",
    ],
)
def test_a_request_is_signed_as_botocore_signs_it(
    monkeypatch: pytest.MonkeyPatch, url: str, token: str | None
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    if token:
        monkeypatch.setenv("AWS_SESSION_TOKEN", token)
    else:
        monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    body = b'{"messages": [{"role": "user", "content": [{"text": "hi"}]}]}'
    headers = {"Content-Type": "application/json"}
    ours = bedrock.client_signed(url, headers, body, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", now=WHEN)
    # botocore's own signer, at the same moment, over the same request.
    monkeypatch.setattr(botocore_auth, "get_current_datetime", lambda: WHEN.replace(tzinfo=None))
    request = AWSRequest(method="POST", url=url, data=body, headers=dict(headers))
    region = "eu-west-1" if "eu-west-1" in url else "us-east-1"
    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token)
    botocore_auth.SigV4Auth(credentials, "bedrock", region).add_auth(request)
    assert ours["Authorization"] == request.headers["Authorization"]
    assert ours["X-Amz-Date"] == request.headers["X-Amz-Date"]
    assert ours.get("X-Amz-Security-Token") == request.headers.get("X-Amz-Security-Token")


def test_a_conversation_is_sent_as_converse_messages_with_each_steps_results_together() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris and Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "t1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": "t2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "t1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "t2", "content": "no data", "is_error": True},
    ]
    spec = ToolSpec("get_weather", "The weather.", {"type": "object"})
    body = bedrock.client_request(
        "m", messages, [spec], ToolChoice("required"), temperature=0.2, max_tokens=99
    )
    assert body["system"] == [{"text": "Be brief."}]
    assert body["messages"][2] == {
        "role": "user",
        "content": [
            {"toolResult": {"toolUseId": "t1", "content": [{"text": "sunny"}]}},
            {"toolResult": {"toolUseId": "t2", "content": [{"text": "no data"}], "status": "error"}},
        ],
    }
    assert body["toolConfig"]["toolChoice"] == {"any": {}}
    assert body["inferenceConfig"] == {"temperature": 0.2, "maxTokens": 99}
    # Read back by the server half, the same conversation.
    assert bedrock.request_messages(body) == messages
    assert bedrock.tool_choice_of(body) == ToolChoice("required")


def test_a_choice_of_no_tool_sends_none_since_converse_cannot_forbid_them() -> None:
    body = bedrock.client_request(
        "m",
        [{"role": "user", "content": "hi"}],
        [ToolSpec("a", "", {})],
        ToolChoice("none"),
        temperature=None,
        max_tokens=None,
    )
    assert "toolConfig" not in body


def test_a_reply_is_read_with_its_tool_uses_and_usage() -> None:
    reply = bedrock.read_reply(
        {
            "output": {
                "message": {
                    "role": "assistant",
                    "content": [
                        {"text": "Checking."},
                        {"toolUse": {"toolUseId": "t9", "name": "w", "input": {"c": 1}}},
                    ],
                }
            },
            "stopReason": "tool_use",
            "usage": {"inputTokens": 10, "outputTokens": 4, "totalTokens": 14},
        }
    )
    assert (reply.content, [(c.id, c.name, c.arguments) for c in reply.tool_calls]) == (
        "Checking.",
        [("t9", "w", '{"c":1}')],
    )
    assert (reply.input_tokens, reply.output_tokens) == (10, 4)
