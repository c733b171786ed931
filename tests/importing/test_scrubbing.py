"""Scrubbing an import: every place a secret can sit in a trace (messages, replies, tool
arguments as text, objects or escaped JSON, their keys, results, URLs and their query
strings, the names of the service, the agent and the provider) is scrubbed before the
fixture is written, whatever the case of the environment variable that holds it; what
is no secret is left as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.importing.otlp_docs import (
    ANSWER,
    QUESTION,
    TRACE,
    chat,
    document,
    execute_tool,
    message,
    span,
    text,
    tool_call,
    tool_response,
    weather_spans,
)
from tests.support.invoke import Result, invoke

FIRST, TOOL, LAST = "b2b2b2b2b2b2b2b2", "c3c3c3c3c3c3c3c3", "d4d4d4d4d4d4d4d4"
SECRET = "hunter2-very-secret-value"


def _import(tmp_path: Path, data: Any, *args: str, env: dict[str, str] | None = None) -> Result:
    source = tmp_path / "traces.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    return invoke("eval", "import", str(source), "--out", str(tmp_path / "out"), *args, cwd=tmp_path, env=env)


def _written(tmp_path: Path) -> str:
    (path,) = (tmp_path / "out").glob("*.json")
    return path.read_text(encoding="utf-8")


def _run_saying(
    question: str, arguments: Any, result: str, answer: str = "Done.", *, raw: str | None = None
) -> list[dict[str, Any]]:
    """A run whose user says `question`, whose model calls `lookup` with `arguments` (or
    the argument text `raw`), whose tool answers `result`, whose model answers `answer`."""
    asked = message("user", text(question))
    part = tool_call("call_1", "lookup", arguments)
    if raw is not None:
        part["arguments"] = raw
    call = message("assistant", part)
    fed = message("tool", tool_response("call_1", result))
    return [
        span(
            "a1a1a1a1a1a1a1a1",
            "invoke_agent",
            0,
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "desk"},
        ),
        chat(FIRST, 1, [asked], [call]),
        chat(LAST, 40, [asked, call, fed], [message("assistant", text(answer))]),
    ]


@pytest.mark.parametrize(
    "name",
    ["ACME_API_TOKEN", "acme_api_token", "Acme_Api_Key", "db_password", "SIGNING_SECRET", "github_token"],
)
def test_a_secret_in_a_variable_named_like_one_in_any_case_is_scrubbed(tmp_path: Path, name: str) -> None:
    spans = _run_saying(f"use {SECRET} please", {"key": SECRET}, f"ok {SECRET}", f"Used {SECRET}.")
    result = _import(tmp_path, document(spans), env={name: SECRET})
    assert result.code == 0, result.stderr
    written = _written(tmp_path)
    assert SECRET not in written
    fixture = json.loads(written)
    assert fixture["turns"][0]["user_input"] == "use [REDACTED] please"
    assert fixture["expects"]["trajectory"]["calls"][0]["args"] == {"key": "[REDACTED]"}
    assert fixture["tool_doubles"]["lookup"][0]["result"] == "ok [REDACTED]"
    assert fixture["turns"][0]["steps"][1]["response"]["content"] == "Used [REDACTED]."


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ACME_API_TOKENS", SECRET),
        ("ACME_TOKEN_FILE", SECRET),
        ("ACME_API_TOKEN", "short12"),
        ("ACME_TOKEN", " q7Zr2kL "),
    ],
    ids=["other-suffix", "token-not-last", "shorter-than-8", "short-once-stripped"],
)
def test_a_variable_not_named_like_a_secret_or_too_short_is_left(
    tmp_path: Path, name: str, value: str
) -> None:
    spans = _run_saying(f"use{value}please", {"key": "k"}, "ok")
    assert _import(tmp_path, document(spans), env={name: value}).code == 0
    assert json.loads(_written(tmp_path))["turns"][0]["user_input"] == f"use{value}please"


def test_a_secret_of_exactly_eight_characters_is_scrubbed(tmp_path: Path) -> None:
    spans = _run_saying("use q7Zr2kLm please", {"key": "k"}, "ok")
    assert _import(tmp_path, document(spans), env={"ACME_TOKEN": "q7Zr2kLm"}).code == 0
    assert json.loads(_written(tmp_path))["turns"][0]["user_input"] == "use [REDACTED] please"


def test_an_email_used_as_a_json_key_is_scrubbed(tmp_path: Path) -> None:
    arguments = {"recipients": {"alice.smith@corp.io": "cc"}, "bob@corp.io": ["x@corp.io"]}
    spans = _run_saying("Send it.", arguments, "sent")
    assert _import(tmp_path, document(spans)).code == 0
    written = _written(tmp_path)
    assert "corp.io" not in written
    args = json.loads(written)["expects"]["trajectory"]["calls"][0]["args"]
    assert args == {
        "recipients": {"zeroclaw_user@example.com": "cc"},
        "zeroclaw_user@example.com": ["zeroclaw_user@example.com"],
    }


def test_an_address_at_example_com_is_kept_and_any_other_replaced(tmp_path: Path) -> None:
    question = "Write to zeroclaw_user@example.com, ops@example.com.au and ana@sub.example.co"
    spans = _run_saying(question, {"a": 1}, "ok")
    assert _import(tmp_path, document(spans)).code == 0
    assert json.loads(_written(tmp_path))["turns"][0]["user_input"] == (
        "Write to zeroclaw_user@example.com, zeroclaw_user@example.com and zeroclaw_user@example.com"
    )


@pytest.mark.parametrize(
    ("url", "scrubbed"),
    [
        (
            "https://api.example.com/v1?API_KEY=abcdef123456&q=paris",
            "https://api.example.com/v1?API_KEY=[REDACTED]&q=paris",
        ),
        (
            "https://api.example.com/v1?q=paris&access_token=abcdef123456",
            "https://api.example.com/v1?q=paris&access_token=[REDACTED]",
        ),
        (
            "https://api.example.com/v1?apikey=abcdef123456#top",
            "https://api.example.com/v1?apikey=[REDACTED]#top",
        ),
        ("https://api.example.com/v1?Secret=abcdef123456", "https://api.example.com/v1?Secret=[REDACTED]"),
        ("https://api.example.com/v1?token=abcdef12 x", "https://api.example.com/v1?token=[REDACTED] x"),
        ("https://api.example.com/v1?key=abcdef12", "https://api.example.com/v1?key=[REDACTED]"),
        ("https://api.example.com/v1?token=short", "https://api.example.com/v1?token=short"),
        ("https://api.example.com/v1?city=abcdef123456", "https://api.example.com/v1?city=abcdef123456"),
    ],
)
def test_a_secret_in_a_urls_query_is_scrubbed(tmp_path: Path, url: str, scrubbed: str) -> None:
    spans = _run_saying("Fetch it.", {"url": url}, f"fetched {url}")
    assert _import(tmp_path, document(spans)).code == 0
    fixture = json.loads(_written(tmp_path))
    assert fixture["expects"]["trajectory"]["calls"][0]["args"] == {"url": scrubbed}
    assert fixture["tool_doubles"]["lookup"][0]["result"] == f"fetched {scrubbed}"


@pytest.mark.parametrize(
    "credential",
    [
        "sk-proj-0123456789abcdefghij",
        "sk_live_0123456789abcdef",
        "rk_test_0123456789abcdef",
        "AKIA0123456789ABCDEF",
        "AIzaSyA0123456789abcdefghijklmnopqrstuv",
        "ya29.a0AfH6SMBx0123456789abcd",
        "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
        "github_pat_0123456789abcdefghijkl",
        "glpat-0123456789abcdefghij",
        "hf_0123456789abcdefghijklmnopqrstuv",
        "npm_0123456789abcdefghijklmnopqrstuvwxyz",
        "xoxb-0123456789-abcdef",
        "https://hooks.slack.com/services/T000/B000/XXXX",
        "eyJhbGciOiJIUzI1.eyJzdWIiOiIx.SflKxwRJSMeKKF2QT4",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
    ],
)
def test_text_shaped_like_a_credential_is_scrubbed(tmp_path: Path, credential: str) -> None:
    spans = _run_saying(f"key: {credential} ok", {"key": credential}, f"used {credential} ok")
    assert _import(tmp_path, document(spans)).code == 0
    fixture = json.loads(_written(tmp_path))
    assert fixture["turns"][0]["user_input"] == "key: [REDACTED] ok"
    assert fixture["expects"]["trajectory"]["calls"][0]["args"] == {"key": "[REDACTED]"}
    assert fixture["tool_doubles"]["lookup"][0]["result"] == "used [REDACTED] ok"


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "Basic", "basic"])
def test_a_bearer_or_basic_credential_is_scrubbed_and_its_scheme_kept(tmp_path: Path, scheme: str) -> None:
    spans = _run_saying(f"Authorization: {scheme} QWxhZGRpbjpvcGVuc2VzYW1l==", {"a": 1}, "ok")
    assert _import(tmp_path, document(spans)).code == 0
    assert json.loads(_written(tmp_path))["turns"][0]["user_input"] == f"Authorization: {scheme} [REDACTED]"


def test_text_almost_shaped_like_a_credential_is_left(tmp_path: Path) -> None:
    almost = "sk-short AKIA0123 ghp_short Bearer short task-0123456789abcdefghijk"
    spans = _run_saying(almost, {"a": 1}, "ok")
    assert _import(tmp_path, document(spans)).code == 0
    assert json.loads(_written(tmp_path))["turns"][0]["user_input"] == almost


def test_a_key_or_address_written_with_json_escapes_in_argument_text_is_scrubbed(tmp_path: Path) -> None:
    raw = '{"to": "alice\\u0040corp.io", "key": "sk\\u002dabcdefghijklmnopqrstuvwxyz"}'
    spans = _run_saying("Send it.", {}, "sent", raw=raw)
    assert _import(tmp_path, document(spans)).code == 0
    written = _written(tmp_path)
    assert "alice" not in written
    assert "abcdefghijklmnopqrstuvwxyz" not in written
    assert json.loads(written)["expects"]["trajectory"]["calls"][0]["args"] == {
        "to": "zeroclaw_user@example.com",
        "key": "[REDACTED]",
    }


def test_argument_text_that_is_not_json_is_scrubbed_as_text(tmp_path: Path) -> None:
    spans = _run_saying("Send it.", {}, "sent", raw="to alice@corp.io now")
    assert _import(tmp_path, document(spans)).code == 0
    expects = json.loads(_written(tmp_path))["expects"]
    assert expects["trajectory"]["calls"] == [{"tool": "lookup"}]
    assert expects["tool_arguments_contain"] == [
        {"tool": "lookup", "needle": "to zeroclaw_user@example.com now", "call_index": 0}
    ]


def test_argument_text_with_nothing_to_scrub_is_kept_as_written(tmp_path: Path) -> None:
    # Spaces and order as the agent wrote them: a raw-text check compares them.
    spans = _run_saying("Look it up.", {}, "found", raw='["Paris",  1]')
    assert _import(tmp_path, document(spans)).code == 0
    expects = json.loads(_written(tmp_path))["expects"]
    assert expects["tool_arguments_contain"] == [
        {"tool": "lookup", "needle": '["Paris",  1]', "call_index": 0}
    ]


def test_argument_text_that_is_no_object_is_scrubbed_as_it_was_written(tmp_path: Path) -> None:
    spans = _run_saying("Look it up.", {}, "found", raw='["ana@corp.io",  1]')
    assert _import(tmp_path, document(spans)).code == 0
    expects = json.loads(_written(tmp_path))["expects"]
    assert expects["tool_arguments_contain"] == [
        {"tool": "lookup", "needle": '["zeroclaw_user@example.com",  1]', "call_index": 0}
    ]


def test_a_tool_spans_arguments_and_result_are_scrubbed(tmp_path: Path) -> None:
    asked = message("user", text("Send it."))
    call = message("assistant", tool_call("call_1", "send", {"to": "ana@corp.io"}))
    spans = [
        span(
            "a1a1a1a1a1a1a1a1",
            "invoke_agent",
            0,
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "desk"},
        ),
        chat(FIRST, 1, [asked], [call]),
        execute_tool(TOOL, 20, "call_1", "send", {"to": "ana@corp.io"}, "sent to ana@corp.io"),
        chat(LAST, 40, [asked, call], [ANSWER]),
    ]
    assert _import(tmp_path, document(spans)).code == 0
    written = _written(tmp_path)
    assert "corp.io" not in written
    fixture = json.loads(written)
    assert fixture["tool_doubles"] == {
        "send": [{"when": {"to": "zeroclaw_user@example.com"}, "result": "sent to zeroclaw_user@example.com"}]
    }
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "send", "args": {"to": "zeroclaw_user@example.com"}, "status": "ok"}
    ]


def test_the_history_a_request_carries_is_scrubbed(tmp_path: Path) -> None:
    """The first request carries an earlier turn: its messages and calls are steps too."""
    earlier = message("user", text("Mail ana@corp.io"))
    called = message("assistant", tool_call("call_0", "send", {"to": "ana@corp.io", "key": SECRET}))
    fed = message("tool", tool_response("call_0", f"sent with {SECRET}"))
    done = message("assistant", text("Mailed ana@corp.io."))
    spans = [
        span(
            "a1a1a1a1a1a1a1a1",
            "invoke_agent",
            0,
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "desk"},
        ),
        chat(FIRST, 1, [earlier, called, fed, done, QUESTION], [ANSWER]),
    ]
    assert _import(tmp_path, document(spans), env={"MAIL_PASSWORD": SECRET}).code == 0
    written = _written(tmp_path)
    assert "corp.io" not in written
    assert SECRET not in written
    fixture = json.loads(written)
    assert fixture["turns"][0] == {
        "user_input": "Mail zeroclaw_user@example.com",
        "steps": [
            {
                "response": {
                    "type": "tool_calls",
                    "tool_calls": [
                        {
                            "id": "call_0",
                            "name": "send",
                            "arguments": {"to": "zeroclaw_user@example.com", "key": "[REDACTED]"},
                        }
                    ],
                }
            },
            {"response": {"type": "text", "content": "Mailed zeroclaw_user@example.com."}},
        ],
    }
    assert fixture["tool_doubles"]["send"][0]["result"] == "sent with [REDACTED]"


def test_the_names_of_the_service_agent_and_provider_are_scrubbed(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[0]["attributes"] = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}},
        {"key": "gen_ai.agent.name", "value": {"stringValue": "agent of ana@corp.io"}},
    ]
    for item in spans[1::2]:
        for pair in item["attributes"]:
            if pair["key"] == "gen_ai.provider.name":
                pair["value"] = {"stringValue": f"proxy {SECRET}"}
    data = document(spans, service="svc bob@corp.io")
    assert _import(tmp_path, data, env={"PROXY_API_KEY": SECRET}).code == 0
    written = _written(tmp_path)
    assert "corp.io" not in written
    assert SECRET not in written
    provenance = json.loads(written)["provenance"]
    assert provenance["service"] == "svc zeroclaw_user@example.com"
    assert provenance["provider"] == "proxy [REDACTED]"
    assert json.loads(written)["model_name"] == f"agent_of_zeroclaw_user_example_com_{TRACE[:8]}"


def test_a_redact_pattern_replaces_what_it_matches_everywhere(tmp_path: Path) -> None:
    spans = _run_saying(
        "Refund ORDER-7731", {"order": "ORDER-7731"}, "refunded ORDER-7731", "Refunded ORDER-7731."
    )
    result = _import(tmp_path, document(spans), "--redact", r"ORDER-\d+", "--redact", "Refund(ed)?")
    assert result.code == 0, result.stderr
    fixture = json.loads(_written(tmp_path))
    assert fixture["turns"][0]["user_input"] == "[REDACTED] [REDACTED]"
    assert fixture["expects"]["trajectory"]["calls"][0]["args"] == {"order": "[REDACTED]"}
    assert fixture["tool_doubles"]["lookup"][0]["result"] == "refunded [REDACTED]"


def test_a_redact_pattern_re2_cannot_compile_is_a_usage_error(tmp_path: Path) -> None:
    result = _import(tmp_path, document(weather_spans()), "--redact", "(?<=x)y")
    assert result.code == 2
    assert "--redact '(?<=x)y' is not an RE2 pattern:" in result.stderr


def test_a_redact_pattern_that_matches_empty_text_is_a_usage_error(tmp_path: Path) -> None:
    result = _import(tmp_path, document(weather_spans()), "--redact", "a|", "--redact", "b")
    assert result.code == 2
    assert "--redact 'a|' matches empty text; give a pattern that needs a character" in result.stderr


def test_a_redact_pattern_never_unmakes_roles_ids_or_tool_names(tmp_path: Path) -> None:
    spans = weather_spans()
    result = _import(tmp_path, document(spans), "--redact", "call_1|get_weather|user|assistant|tool")
    assert result.code == 0, result.stderr
    fixture = json.loads(_written(tmp_path))
    assert fixture["turns"][0]["steps"][0]["response"]["tool_calls"] == [
        {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}
    ]
    assert fixture["expects"]["tools_used"] == ["get_weather"]


def test_a_lone_surrogate_anywhere_is_written_as_its_escape(tmp_path: Path) -> None:
    spans = _run_saying("Look up \ud800 now", {"q": "\udfff"}, "found \ud83d")
    data = json.dumps(document(spans))  # JSON escapes: `\ud800` stays a lone surrogate
    source = tmp_path / "traces.json"
    source.write_text(data, encoding="utf-8")
    result = invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.stderr
    fixture = json.loads(_written(tmp_path))
    assert fixture["turns"][0]["user_input"] == "Look up \\ud800 now"
    assert fixture["tool_doubles"]["lookup"][0]["result"] == "found \\ud83d"


def test_ids_and_names_holding_a_lone_surrogate_are_written(tmp_path: Path) -> None:
    asked = message("user", text("Look it up."))
    call = message("assistant", tool_call("call_\ud800", "look\udfff", {"q": 1}))
    fed = message("tool", tool_response("call_\ud800", "found"))
    spans = [
        span(
            "a1a1a1a1a1a1a1a1",
            "invoke_agent",
            0,
            {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "desk"},
        ),
        chat(FIRST, 1, [asked], [call], tools=["look\udfff"]),
        chat(LAST, 40, [asked, call, fed], [ANSWER], tools=["look\udfff"]),
    ]
    source = tmp_path / "traces.json"
    source.write_text(json.dumps(document(spans)), encoding="utf-8")
    result = invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.stderr
    fixture = json.loads(_written(tmp_path))
    assert fixture["turns"][0]["steps"][0]["response"]["tool_calls"] == [
        {"id": "call_\\ud800", "name": "look\\udfff", "arguments": {"q": 1}}
    ]
    assert fixture["tools"] == ["look\\udfff"]
    assert fixture["expects"]["tools_offered"] == ["look\\udfff"]


@pytest.mark.parametrize(
    ("said", "scrubbed"),
    [
        ("?client_secret=Zq8Lm3Pw9Xy2&password=hunter2x", "?client_secret=[REDACTED]&password=[REDACTED]"),
        ("?api-key=abcdef123456&refresh_token=rt_12345678", "?api-key=[REDACTED]&refresh_token=[REDACTED]"),
        ("/cb#access_token=abcdefgh1234&state=1", "/cb#access_token=[REDACTED]&state=1"),
        ("/f?sv=2022&sig=AbCdEf0123456789&se=2026", "/f?sv=2022&sig=[REDACTED]&se=2026"),
        ("Authorization: BEARER abcdefghijklmnop", "Authorization: BEARER [REDACTED]"),
        ("Authorization: Token 0123456789abcdef", "Authorization: Token [REDACTED]"),
        ("x-api-key: k3y-0123456789", "x-api-key: [REDACTED]"),
        ("acme_api_token=t0k3nV4lu3Xq9", "acme_api_token=[REDACTED]"),
        ('ACME_API_TOKEN="t0k3n V4lu3Xq9"', 'ACME_API_TOKEN="[REDACTED]"'),
        ('{"password": "Tr0ub4dor&3", "user": "bob"}', '{"password": "[REDACTED]", "user": "bob"}'),
        ('{"Authorization": "Token 0123456789abcdef"}', '{"Authorization": "Token [REDACTED]"}'),
        ("postgres://admin:S3cretPass@10.0.0.5:5432/db", "postgres://admin:[REDACTED]@10.0.0.5:5432/db"),
        # What only looks like one is left: counts of tokens, a short token, prose.
        ("max_tokens=1024, input_tokens: 300", "max_tokens=1024, input_tokens: 300"),
        ("?page=2&key=en&token=short", "?page=2&key=en&token=short"),
        ("the password policy asks for 12 characters", "the password policy asks for 12 characters"),
    ],
)
def test_a_secret_its_name_points_at_is_scrubbed(tmp_path: Path, said: str, scrubbed: str) -> None:
    spans = _run_saying("Fetch it.", {"url": "https://example.com/"}, f"fetched {said}")
    assert _import(tmp_path, document(spans)).code == 0
    fixture = json.loads(_written(tmp_path))
    assert fixture["tool_doubles"]["lookup"][0]["result"] == f"fetched {scrubbed}"


def test_arguments_named_like_secrets_are_scrubbed_where_the_double_matches_them(tmp_path: Path) -> None:
    arguments = {"user": "bob", "password": "hunter2x", "max_tokens": "1024"}
    spans = _run_saying("Log in.", arguments, "logged in")
    assert _import(tmp_path, document(spans)).code == 0
    fixture = json.loads(_written(tmp_path))
    scrubbed = {"user": "bob", "password": "[REDACTED]", "max_tokens": "1024"}
    assert fixture["expects"]["trajectory"]["calls"][0]["args"] == scrubbed
    assert fixture["tool_doubles"]["lookup"][0]["when"] == scrubbed


@pytest.mark.parametrize(
    ("said", "scrubbed"),
    [
        ("mail bob.smith+x@corp.io now", "mail zeroclaw_user@example.com now"),
        ("a@b.co and c@example.com", "zeroclaw_user@example.com and c@example.com"),
        ("x@y.org,z@w.net.", "zeroclaw_user@example.com,zeroclaw_user@example.com."),
        ("a@b@c.io", "a@zeroclaw_user@example.com"),
        ("no address @ here, nor @there", "no address @ here, nor @there"),
        ("QmFzZTY0" * 4000 + "@", "QmFzZTY0" * 4000 + "@"),  # a long word and an @: no address
    ],
)
def test_email_addresses_are_found_around_each_at(tmp_path: Path, said: str, scrubbed: str) -> None:
    # Each @ is read outward from, never every letter of a long word onward (a 200 KB
    # base64 blob took six minutes to scrub).
    spans = _run_saying("Fetch it.", {"url": "https://example.com/"}, said)
    assert _import(tmp_path, document(spans)).code == 0
    fixture = json.loads(_written(tmp_path))
    assert fixture["tool_doubles"]["lookup"][0]["result"] == scrubbed


def test_a_redact_pattern_that_matches_empty_text_between_words_is_a_usage_error(tmp_path: Path) -> None:
    result = _import(tmp_path, document(weather_spans()), "--redact", r"\b")
    assert result.code == 2
    assert "--redact '\\\\b' matches empty text; give a pattern that needs a character" in result.stderr


def test_arguments_named_like_a_secret_but_short_are_kept_unless_a_password(tmp_path: Path) -> None:
    # Eight characters make a secret of what a name points at, four a password.
    arguments = {"session_token": "t-12345", "pin_password": "1234", "api_key": "k3y-0123"}
    spans = _run_saying("Log in.", arguments, "logged in")
    assert _import(tmp_path, document(spans)).code == 0
    fixture = json.loads(_written(tmp_path))
    scrubbed = {"session_token": "t-12345", "pin_password": "[REDACTED]", "api_key": "[REDACTED]"}
    assert fixture["expects"]["trajectory"]["calls"][0]["args"] == scrubbed
