"""Secrets are scrubbed before anything is written or said: a credential a tool's JSON
result hides behind escapes (`https:\\/\\/hooks.slack.com\\/…`, `sk\\u002d…`) is found
as the text it stands for, and a refusal that quotes the trace (a span's name, a tool's
name, an attribute) prints it scrubbed as the fixture would be."""

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
    tool_call,
    tool_response,
)
from tests.support.invoke import Result, invoke

KEY = "abcdefghijklmnopqrstuvwxyz0123456789"


def _import(tmp_path: Path, data: Any, *args: str, env: dict[str, str] | None = None) -> Result:
    source = tmp_path / "traces.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    return invoke("eval", "import", str(source), "--out", str(tmp_path / "out"), *args, cwd=tmp_path, env=env)


def _written(tmp_path: Path) -> dict[str, Any]:
    (path,) = (tmp_path / "out").glob("*.json")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _answered(result: str, *, fed_back: str | None = None) -> list[dict[str, Any]]:
    """A run whose `lookup` tool span recorded `result`, and whose agent fed the model
    back `fed_back` (the same result, unless given)."""
    call = message("assistant", tool_call("call_1", "lookup", {"q": "hook"}))
    fed = message("tool", tool_response("call_1", result if fed_back is None else fed_back))
    return [
        chat("b2b2b2b2b2b2b2b2", 1, [QUESTION], [call]),
        execute_tool("c3c3c3c3c3c3c3c3", 20, "call_1", "lookup", {"q": "hook"}, result),
        chat("d4d4d4d4d4d4d4d4", 40, [QUESTION, call, fed], [ANSWER]),
    ]


# Each: a tool's result (JSON text, as a tool's JSON answer is written), what must not be
# written, and the result as the fixture holds it.
HIDDEN = [
    pytest.param(
        '{"hook": "https:\\/\\/hooks.slack.com\\/services\\/T000\\/B000\\/XXXXXXXXXX"}',
        "services",
        '{"hook": "[REDACTED]"}',
        id="slack-webhook-with-escaped-slashes",
    ),
    pytest.param(
        '{"key": "sk\\u002dproj-' + KEY + '"}', KEY, '{"key": "[REDACTED]"}', id="key-with-an-escaped-dash"
    ),
    pytest.param(
        '{"log": "started\\nsk-proj-' + KEY + '"}',
        KEY,
        '{"log": "started\\n[REDACTED]"}',
        id="key-after-an-escaped-line-break",
    ),
    pytest.param(
        '{"to": "alice\\u0040corp.com"}', "alice", '{"to": "zeroclaw_user@example.com"}', id="escaped-address"
    ),
    pytest.param(
        '{"inner": "{\\"key\\": \\"sk\\\\u002dproj-' + KEY + '\\"}"}',
        KEY,
        '{"inner": "{\\"key\\": \\"[REDACTED]\\"}"}',
        id="json-text-in-a-json-string",
    ),
]


@pytest.mark.parametrize(("result", "secret", "scrubbed"), HIDDEN)
def test_a_credential_behind_json_escapes_in_a_tool_result_is_scrubbed(
    tmp_path: Path, result: str, secret: str, scrubbed: str
) -> None:
    outcome = _import(tmp_path, document(_answered(result)))
    assert outcome.code == 0, outcome.stderr
    fixture = _written(tmp_path)
    assert secret not in json.dumps(fixture)
    assert secret not in outcome.stderr
    assert fixture["tool_doubles"]["lookup"] == [{"when": {"q": "hook"}, "result": scrubbed}]
    json.loads(scrubbed)  # still the JSON it was, but for what was replaced


def test_a_credential_behind_escapes_in_the_result_the_agent_fed_back_is_scrubbed(tmp_path: Path) -> None:
    hidden = '{"key": "sk\\u002dproj-' + KEY + '"}'
    spans = [span for span in _answered(hidden) if span["spanId"] != "c3c3c3c3c3c3c3c3"]
    outcome = _import(tmp_path, document(spans))
    assert outcome.code == 0, outcome.stderr
    assert KEY not in json.dumps(_written(tmp_path))


def test_text_with_escapes_and_nothing_to_scrub_is_written_as_it_was(tmp_path: Path) -> None:
    result = '{"status": "all fine", "url": "https:\\/\\/example.com\\/a", "note": "caf\\u00e9 \\u2014 ok"}'
    assert _import(tmp_path, document(_answered(result))).code == 0
    assert _written(tmp_path)["tool_doubles"]["lookup"][0]["result"] == result


def _unanswered(name: str) -> dict[str, Any]:
    """A trace whose one model call, a span named `name`, recorded no reply."""
    span = chat("b2b2b2b2b2b2b2b2", 1, [QUESTION], None)
    span["name"] = name
    return document([span])


def test_a_refusal_prints_a_span_name_scrubbed(tmp_path: Path) -> None:
    result = _import(tmp_path, _unanswered(f"chat sk-proj-{KEY} for alice@corp.com"))
    assert result.code == 1
    assert (
        f"refused: trace {TRACE}: span b2b2b2b2b2b2b2b2 (chat [REDACTED] for zeroclaw_user@example.com):"
        in result.stderr
    )
    assert KEY not in result.stderr
    assert "alice" not in result.stderr


def test_a_refusal_while_reading_prints_the_span_name_scrubbed(tmp_path: Path) -> None:
    """A trace refused as it is read (an attribute cut short is no JSON) is refused
    before it is scrubbed, and said scrubbed all the same."""
    span = chat("b2b2b2b2b2b2b2b2", 1, [QUESTION], [ANSWER])
    span["name"] = f"chat https://hooks.slack.com/services/T000/B000/{KEY}"
    for attribute in span["attributes"]:
        if attribute["key"] == "gen_ai.input.messages":
            attribute["value"] = {"stringValue": attribute["value"]["stringValue"][:20]}
    result = _import(tmp_path, document([span]))
    assert result.code == 1
    assert "span b2b2b2b2b2b2b2b2 (chat [REDACTED]): gen_ai.input.messages: is not JSON" in result.stderr
    assert KEY not in result.stderr


def test_a_refusal_prints_what_redact_and_the_environments_secrets_replace(tmp_path: Path) -> None:
    """A tool name is kept in the fixture (a pattern must not unmake the conversation);
    said in a refusal, it is scrubbed like any text."""
    secret = "hunter2-very-secret-value"
    call = message("assistant", tool_call("call_1", f"lookup_{secret}_ORDER-1234", {}))
    spans = [
        chat("b2b2b2b2b2b2b2b2", 1, [QUESTION], [call]),
        chat("d4d4d4d4d4d4d4d4", 40, [QUESTION], [ANSWER]),
    ]
    result = _import(tmp_path, document(spans), "--redact", "ORDER-[0-9]+", env={"SHOP_API_KEY": secret})
    assert result.code == 1
    assert "the tool call lookup_[REDACTED]_[REDACTED] (id call_1) has no result" in result.stderr
    assert secret not in result.stderr
    assert "ORDER-1234" not in result.stderr


def _scrubbed_result(tmp_path: Path, result: str, *args: str) -> str:
    """The result of the `lookup` tool, as the fixture of a run that recorded `result`
    holds it (imported with `args`)."""
    outcome = _import(tmp_path, document(_answered(result)), *args)
    assert outcome.code == 0, outcome.stderr
    scrubbed: str = _written(tmp_path)["tool_doubles"]["lookup"][0]["result"]
    return scrubbed


def test_a_key_behind_escapes_right_beside_text_a_pattern_replaced_is_scrubbed(tmp_path: Path) -> None:
    result = '{"log": "#123sk\\u002dproj-' + KEY + " sk\\u002dproj-" + KEY + '#456"}'
    scrubbed = _scrubbed_result(tmp_path, result, "--redact", "#[0-9]+")
    assert scrubbed == '{"log": "[REDACTED][REDACTED] [REDACTED][REDACTED]"}'


def test_a_pattern_that_reaches_into_a_placeholder_leaves_the_placeholder_whole(tmp_path: Path) -> None:
    # What scrubbing (or the trace) wrote as a placeholder is never replaced again, even
    # by a match behind escapes that takes in its first character.
    scrubbed = _scrubbed_result(tmp_path, "ref\\u002d[REDACTED] ok", "--redact", "ref-.")
    assert scrubbed == "ref\\u002d[REDACTED] ok"


def test_a_header_value_behind_escapes_holding_a_scrubbed_key_keeps_its_placeholder(tmp_path: Path) -> None:
    scrubbed = _scrubbed_result(tmp_path, "authorization\\u003a xy-sk-proj-" + KEY)
    assert scrubbed == "authorization\\u003a xy-[REDACTED]"


def test_two_matches_side_by_side_behind_escapes_are_each_replaced(tmp_path: Path) -> None:
    scrubbed = _scrubbed_result(tmp_path, '{"ids": "ORDER\\u002d7ORDER\\u002d8"}', "--redact", "ORDER-[0-9]")
    assert scrubbed == '{"ids": "[REDACTED][REDACTED]"}'


def test_an_address_holding_a_key_behind_escapes_is_replaced_as_a_secret(tmp_path: Path) -> None:
    # Where an address and a key overlap, what replaces them says a secret was there.
    scrubbed = _scrubbed_result(tmp_path, '{"to": "bob\\u0040sk-proj-abcdefghijklmnopqrstuvwxyz.io"}')
    assert scrubbed == '{"to": "[REDACTED]"}'


def test_an_escaped_address_beside_json_quoted_in_the_result_is_the_placeholder_address(
    tmp_path: Path,
) -> None:
    # The address is found reading the escapes once and again reading them twice over
    # (the quoted JSON's `\\n`): found twice, it is still an address.
    result = json.dumps({"to": "alice@corp.io", "log": json.dumps({"msg": "a\nb"})}).replace("@", "\\u0040")
    scrubbed = _scrubbed_result(tmp_path, result)
    assert scrubbed == '{"to": "zeroclaw_user@example.com", "log": "{\\"msg\\": \\"a\\\\nb\\"}"}'
    assert json.loads(json.loads(scrubbed)["log"]) == {"msg": "a\nb"}


def test_a_key_after_an_escaped_lone_surrogate_is_scrubbed(tmp_path: Path) -> None:
    scrubbed = _scrubbed_result(tmp_path, "log: \\ud800 then sk\\u002dproj-" + KEY)
    assert scrubbed == "log: \\ud800 then [REDACTED]"


@pytest.mark.parametrize("surrogate", ["\\ud800", "\\udbff", "\\udc00", "\\udfff"])
def test_escaped_lone_surrogates_are_left_as_written_while_a_pattern_reads_the_text(
    tmp_path: Path, surrogate: str
) -> None:
    # RE2 cannot read a lone surrogate: the escape is kept, the text around it read.
    result = '{"log": "' + surrogate + ' ORDER\\u002d12"}'
    scrubbed = _scrubbed_result(tmp_path, result, "--redact", "ORDER-[0-9]+")
    assert scrubbed == '{"log": "' + surrogate + ' [REDACTED]"}'


def test_a_pattern_finds_a_character_outside_the_surrogates_written_as_an_escape(tmp_path: Path) -> None:
    scrubbed = _scrubbed_result(
        tmp_path, '{"id": "X\\ue000Y and X\\ud7ffY"}', "--redact", r"X[\x{E000}\x{D7FF}]Y"
    )
    assert scrubbed == '{"id": "[REDACTED] and [REDACTED]"}'


def test_an_address_after_an_escaped_angle_bracket_keeps_the_result_json(tmp_path: Path) -> None:
    scrubbed = _scrubbed_result(tmp_path, '{"to": "Alice \\u003calice@corp.io\\u003e"}')
    assert scrubbed == '{"to": "Alice \\u003czeroclaw_user@example.com\\u003e"}'
    # After a newline escape, and after an escaped backslash (whose next letter is text).
    (tmp_path / "n").mkdir()
    (tmp_path / "b").mkdir()
    newline = _scrubbed_result(tmp_path / "n", '{"to": "a\\nbob@corp.io"}')
    assert newline == '{"to": "a\\nzeroclaw_user@example.com"}'
    backslash = _scrubbed_result(tmp_path / "b", '{"to": "a\\\\bob@corp.io"}')
    assert backslash == '{"to": "a\\\\zeroclaw_user@example.com"}'
