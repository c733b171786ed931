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
        "http://127.0.0.1:8080",
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
    headers = {"Content-Type": "application/json", "X-Zeroclaw-Note": "  a   spaced  value "}
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


def _signed_region(url: str) -> str:
    """The region the signature's credential scope names."""
    signed = bedrock.client_signed(url, {}, b"{}", "secret", now=WHEN)
    return signed["Authorization"].split("Credential=")[1].split("/")[2]


@pytest.mark.parametrize(
    ("host", "env", "region"),
    [
        ("bedrock-runtime.eu-west-1.amazonaws.com", {"AWS_REGION": "us-west-2"}, "eu-west-1"),
        ("bedrock-runtime-fips.us-gov-west-1.amazonaws.com", {}, "us-gov-west-1"),
        ("127.0.0.1:8080", {"AWS_REGION": "ap-south-1", "AWS_DEFAULT_REGION": "eu-north-1"}, "ap-south-1"),
        ("127.0.0.1:8080", {"AWS_DEFAULT_REGION": "eu-north-1"}, "eu-north-1"),
        ("127.0.0.1:8080", {}, "us-east-1"),
    ],
)
def test_the_region_signed_is_the_hosts_else_the_environments(
    monkeypatch: pytest.MonkeyPatch, host: str, env: dict[str, str], region: str
) -> None:
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert _signed_region(f"https://{host}/model/m/converse") == region


def test_the_signed_headers_keep_those_given_and_add_the_date_and_signature(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    signed = bedrock.client_signed(
        "http://127.0.0.1:8080/model/m/converse", {"Accept": "x"}, b"", "k", now=WHEN
    )
    assert sorted(signed) == ["Accept", "Authorization", "X-Amz-Date"]
    assert signed["Accept"] == "x"
    assert signed["X-Amz-Date"] == "20261207T093015Z"
    assert signed["Authorization"].startswith(
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261207/us-east-1/bedrock/aws4_request,"
        " SignedHeaders=accept;host;x-amz-date, Signature="
    )


@pytest.mark.parametrize(
    ("base", "url"),
    [
        (
            "https://bedrock-runtime.us-east-1.amazonaws.com",
            "https://bedrock-runtime.us-east-1.amazonaws.com",
        ),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080"),
        ("https://example.com/LLMBOX", "https://example.com/LLMBOX"),
    ],
)
def test_the_model_id_goes_in_the_path_percent_encoded(base: str, url: str) -> None:
    assert (
        bedrock.client_url(base, "anthropic.claude-v2:1/x")
        == f"{url}/model/anthropic.claude-v2%3A1%2Fx/converse"
    )
    assert bedrock.client_headers("secret") == {}


def test_only_the_allowed_tools_are_offered_and_a_function_choice_names_its_tool() -> None:
    tools = [ToolSpec("a", "", {}), ToolSpec("b", "B.", {"type": "object"}), ToolSpec("c", "C.", {})]
    body = bedrock.client_request(
        "m",
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}],
        tools,
        ToolChoice("function", "b", allowed=frozenset({"a", "b"})),
        temperature=None,
        max_tokens=0,
    )
    assert body == {
        "messages": [
            {"role": "user", "content": [{"text": "hi"}]},
            {"role": "assistant", "content": [{"text": "Hello."}]},
        ],
        "toolConfig": {
            "tools": [
                {"toolSpec": {"name": "a", "description": "a", "inputSchema": {"json": {"type": "object"}}}},
                {"toolSpec": {"name": "b", "description": "B.", "inputSchema": {"json": {"type": "object"}}}},
            ],
            "toolChoice": {"tool": {"name": "b"}},
        },
        "inferenceConfig": {"maxTokens": 0},
    }


@pytest.mark.parametrize("choice", [ToolChoice(), ToolChoice("function", None)])
def test_a_choice_converse_has_no_words_for_sends_none(choice: ToolChoice) -> None:
    body = bedrock.client_request(
        "m",
        [{"role": "user", "content": None}],
        [ToolSpec("a", "", {})],
        choice,
        temperature=0,
        max_tokens=None,
    )
    assert body["messages"] == [{"role": "user", "content": [{"text": ""}]}]
    assert "toolChoice" not in body["toolConfig"]
    assert body["inferenceConfig"] == {"temperature": 0}
    assert "system" not in body


def test_a_reply_of_calls_alone_without_usage_says_so() -> None:
    reply = bedrock.read_reply(
        {"output": {"message": {"content": [{"toolUse": {"toolUseId": 7, "name": "w"}}, {"toolUse": None}]}}}
    )
    assert (reply.content, [(c.id, c.name, c.arguments) for c in reply.tool_calls]) == (
        None,
        [("7", "w", "{}")],
    )
    assert (reply.input_tokens, reply.output_tokens, reply.usage_known) == (0, 0, False)


def test_without_an_access_key_id_the_credential_names_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    signed = bedrock.client_signed("http://127.0.0.1:8080/model/m/converse", {}, b"", "k", now=WHEN)
    assert signed["Authorization"].startswith(
        "AWS4-HMAC-SHA256 Credential=/20261207/us-east-1/bedrock/aws4_request,"
    )


def test_a_request_signed_now_is_dated_in_utc_whatever_the_local_time_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import time

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        before = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        signed = bedrock.client_signed("http://127.0.0.1:8080/model/m/converse", {}, b"", "k")
        after = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    finally:
        monkeypatch.undo()
        time.tzset()
    assert before <= signed["X-Amz-Date"] <= after


def test_an_assistant_step_of_calls_alone_is_sent_without_a_text_block() -> None:
    call = {"id": "t1", "type": "function", "function": {"name": "echo", "arguments": '{"m":"x"}'}}
    body = bedrock.client_request(
        "m",
        [{"role": "user", "content": "go"}, {"role": "assistant", "content": None, "tool_calls": [call]}],
        [],
        ToolChoice(),
        temperature=None,
        max_tokens=None,
    )
    assert body == {
        "messages": [
            {"role": "user", "content": [{"text": "go"}]},
            {
                "role": "assistant",
                "content": [{"toolUse": {"toolUseId": "t1", "name": "echo", "input": {"m": "x"}}}],
            },
        ]
    }
