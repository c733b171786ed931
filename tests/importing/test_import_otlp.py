"""`zeroclaw eval import` on OTLP JSON: what a trace becomes, what is refused (naming the
trace, span and attribute), selection, scrubbing, provenance and never overwriting."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.importing.otlp_docs import (
    ANSWER,
    CALL,
    OTHER_TRACE,
    QUESTION,
    RESULT,
    TRACE,
    chat,
    document,
    execute_tool,
    key_values,
    message,
    span,
    text,
    tool_call,
    tool_response,
    weather_spans,
)
from tests.support.invoke import Result, invoke
from zeroclaw_eval.cases.admission import admit_bytes
from zeroclaw_eval.cases.case import Case, RejectedFixture


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _import(tmp_path: Path, data: Any, *args: str, env: dict[str, str] | None = None) -> Result:
    source = _write(tmp_path / "traces.json", data)
    return invoke("eval", "import", str(source), "--out", str(tmp_path / "out"), *args, cwd=tmp_path, env=env)


def _fixtures(tmp_path: Path) -> list[dict[str, Any]]:
    out = tmp_path / "out"
    return [json.loads(path.read_text()) for path in sorted(out.glob("*.json"))] if out.exists() else []


def test_an_agent_run_becomes_a_fixture_with_the_checks_it_proves(tmp_path: Path) -> None:
    result = _import(tmp_path, document(weather_spans()))
    assert result.code == 0, result.stderr
    (fixture,) = _fixtures(tmp_path)
    assert fixture["model_name"] == f"weather_{TRACE[:8]}"
    assert fixture["tools"] == ["get_weather"]
    (turn,) = fixture["turns"]
    assert turn["user_input"] == "What is the weather in Paris?"
    assert [step["response"]["type"] for step in turn["steps"]] == ["tool_calls", "text"]
    call = turn["steps"][0]["response"]["tool_calls"][0]
    assert call == {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}
    expects = fixture["expects"]
    assert expects["response_contains"] == ["It is sunny in Paris."]
    assert expects["tools_used"] == ["get_weather"]
    assert expects["tools_offered"] == ["get_weather"]
    assert expects["trajectory"] == {
        "mode": "strict",
        "calls": [{"tool": "get_weather", "args": {"city": "Paris"}, "status": "ok"}],
    }
    assert expects["tool_results_contain"] == [
        {"tool": "get_weather", "needle": "sunny, 21C", "call_index": 0}
    ]
    assert expects["all_tools_succeeded"] is True
    # The recorded result is the tool's double: a replay answers the call as it was answered.
    assert fixture["tool_doubles"] == {"get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]}
    assert fixture["provenance"] == {
        "format": "otel-genai",
        "source": str(tmp_path / "traces.json"),
        "trace_id": TRACE,
        "span_ids": ["b2b2b2b2b2b2b2b2", "c3c3c3c3c3c3c3c3", "d4d4d4d4d4d4d4d4"],
        "service": "weather-service",
        "provider": "openai",
        "started": "2026-12-01T09:00:00.000Z",
    }
    assert f"trace {TRACE}, 2 steps, 1 tool call" in result.stderr


def test_a_tool_named_echo_the_agent_offered_is_kept_offered(tmp_path: Path) -> None:
    # The built-in echo is offered only to a case that names it: an agent whose production
    # tools include one of that name keeps it in its imported case, offered and checked.
    spans = weather_spans()
    for item in spans:
        for attribute in item["attributes"]:
            if attribute["key"] == "gen_ai.tool.definitions":
                tools = [{"type": "function", "name": name} for name in ("get_weather", "echo")]
                attribute["value"] = {"stringValue": json.dumps(tools)}
    assert _import(tmp_path, document(spans)).code == 0
    (fixture,) = _fixtures(tmp_path)
    assert fixture["tools"] == ["get_weather", "echo"]
    assert fixture["expects"]["tools_offered"] == ["echo", "get_weather"]


def test_the_written_fixture_is_admitted_and_fails_an_empty_run(tmp_path: Path) -> None:
    assert _import(tmp_path, document(weather_spans())).code == 0
    out = tmp_path / "out"
    assert invoke("eval", "vacuity", "--suite", str(out), "--agent-cmd", "true").code == 0
    assert invoke("eval", "check", str(out), "--agent-cmd", "true").code == 0


def _base64_ids(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The spans with their ids as protobuf's canonical JSON writes them (base64)."""
    for item in spans:
        for key in ("traceId", "spanId", "parentSpanId"):
            if item[key]:
                item[key] = base64.b64encode(bytes.fromhex(item[key])).decode()
        item["kind"] = "SPAN_KIND_CLIENT"
    return spans


def test_json_lines_base64_ids_and_enum_names_read_as_the_same_trace(tmp_path: Path) -> None:
    spans = _base64_ids(weather_spans())
    # One export request per line, as the collector's file exporter writes, split mid-trace.
    lines = [json.dumps(document(spans[:2])), json.dumps(document(spans[2:]))]
    source = tmp_path / "traces.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.stderr
    (fixture,) = _fixtures(tmp_path)
    assert fixture["provenance"]["trace_id"] == TRACE


def test_the_older_per_message_log_events_are_read(tmp_path: Path) -> None:
    """opentelemetry-instrumentation-openai-v2 2.3b0 and before: content in log records."""

    def record(span_id: str, at: int, name: str, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "timeUnixNano": str(at),
            "traceId": TRACE,
            "spanId": span_id,
            "eventName": name,
            "body": {"kvlistValue": {"values": key_values(body)}},
        }

    legacy = {"gen_ai.operation.name": "chat", "gen_ai.system": "openai"}
    first, second = "b2b2b2b2b2b2b2b2", "d4d4d4d4d4d4d4d4"
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
    }
    records = [
        record(first, 1, "gen_ai.user.message", {"content": "What is the weather in Paris?"}),
        record(
            first,
            2,
            "gen_ai.choice",
            {"index": 0, "finish_reason": "tool_calls", "message": {"tool_calls": [call]}},
        ),
        record(second, 3, "gen_ai.user.message", {"content": "What is the weather in Paris?"}),
        record(second, 4, "gen_ai.assistant.message", {"tool_calls": [call]}),
        record(second, 5, "gen_ai.tool.message", {"content": "sunny, 21C", "id": "call_1"}),
        record(
            second,
            6,
            "gen_ai.choice",
            {"index": 0, "finish_reason": "stop", "message": {"content": "Sunny."}},
        ),
    ]
    data = document([span(first, "chat gpt-4o", 1, legacy), span(second, "chat gpt-4o", 40, legacy)])
    data["resourceLogs"] = [{"scopeLogs": [{"logRecords": records}]}]
    result = _import(tmp_path, data)
    assert result.code == 0, result.stderr
    (fixture,) = _fixtures(tmp_path)
    assert fixture["expects"]["tool_results_contain"][0]["needle"] == "sunny, 21C"
    assert fixture["expects"]["response_contains"] == ["Sunny."]


def _refused(result: Result, tmp_path: Path, *pieces: str) -> None:
    assert result.code == 1, result.stderr
    assert _fixtures(tmp_path) == []
    line = next(line for line in result.stderr.splitlines() if line.startswith("refused:"))
    for piece in pieces:
        assert piece in line, line


def test_a_model_call_without_a_reply_is_refused_naming_span_and_attribute(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[3] = chat("d4d4d4d4d4d4d4d4", 40, [QUESTION, CALL, RESULT], None)
    _refused(
        _import(tmp_path, document(spans)), tmp_path, TRACE, "d4d4d4d4d4d4d4d4", "gen_ai.output.messages"
    )


def test_a_tool_call_without_a_result_is_refused(tmp_path: Path) -> None:
    spans = weather_spans()[:2]  # the tool span and the model's answer were cut off
    _refused(_import(tmp_path, document(spans)), tmp_path, TRACE, "b2b2b2b2b2b2b2b2", "cut off")


def test_a_span_that_never_ended_is_refused(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[3]["endTimeUnixNano"] = "0"
    _refused(_import(tmp_path, document(spans)), tmp_path, "d4d4d4d4d4d4d4d4", "never ended")


def test_an_attribute_cut_by_a_length_limit_is_refused_naming_it(tmp_path: Path) -> None:
    spans = weather_spans()
    for item in spans[1]["attributes"]:
        if item["key"] == "gen_ai.input.messages":
            item["value"]["stringValue"] = item["value"]["stringValue"][:20]
    _refused(
        _import(tmp_path, document(spans)),
        tmp_path,
        "b2b2b2b2b2b2b2b2",
        "gen_ai.input.messages",
        "length limit",
    )


def test_a_trace_without_content_says_how_to_capture_it(tmp_path: Path) -> None:
    bare = span("b2b2b2b2b2b2b2b2", "chat gpt-4o", 1, {"gen_ai.operation.name": "chat"})
    _refused(_import(tmp_path, document([bare])), tmp_path, "gen_ai.output.messages")


def test_a_trace_with_content_in_a_shape_not_read_says_so_not_that_capture_is_off(tmp_path: Path) -> None:
    attributes = {"gen_ai.operation.name": "chat", "acme.llm.prompt": "[...]", "acme.llm.completion": "{}"}
    odd = span("b2b2b2b2b2b2b2b2", "chat gpt-4o", 1, attributes)
    result = _import(tmp_path, document([odd]))
    assert result.code == 1
    assert "holds acme.llm.completion, acme.llm.prompt: a format not read yet" in result.stderr
    assert "content capture" not in result.stderr


def test_a_single_model_call_trace_says_to_wrap_the_run_in_a_span(tmp_path: Path) -> None:
    """Without a span around the agent run, each model call is a trace of its own."""
    lone = chat("b2b2b2b2b2b2b2b2", 1, [QUESTION], [CALL])
    _refused(_import(tmp_path, document([lone])), tmp_path, "own trace", "invoke_agent")


def test_every_trace_of_a_file_is_imported_and_refusals_do_not_stop_the_others(tmp_path: Path) -> None:
    broken = weather_spans(OTHER_TRACE)[:2]
    result = _import(tmp_path, document(weather_spans() + broken))
    assert result.code == 1
    assert len(_fixtures(tmp_path)) == 1
    assert f"refused: trace {OTHER_TRACE}" in result.stderr


@pytest.mark.parametrize(
    ("select", "imported"),
    [
        (f"trace={TRACE}", [TRACE]),
        (f"trace={OTHER_TRACE.upper()}", [OTHER_TRACE]),
        ("service=weather-service", [TRACE, OTHER_TRACE]),
        ("since=2026-12-01T09:00:00.5Z", [OTHER_TRACE]),
        ("until=2026-12-01T09:00:00.5", [TRACE]),
    ],
)
def test_select_picks_traces_by_id_service_and_time(tmp_path: Path, select: str, imported: list[str]) -> None:
    later = 1_000_000_000  # one second
    data = document(weather_spans() + weather_spans(OTHER_TRACE, start=later))
    result = _import(tmp_path, data, "--select", select)
    assert result.code == 0, result.stderr
    assert sorted(f["provenance"]["trace_id"] for f in _fixtures(tmp_path)) == sorted(imported)


def test_a_selection_that_matches_nothing_fails(tmp_path: Path) -> None:
    result = _import(tmp_path, document(weather_spans()), "--select", "service=checkout")
    assert result.code == 1
    assert "no trace was selected" in result.stderr


@pytest.mark.parametrize("select", ["trace", "colour=red", "since=yesterday"])
def test_a_select_it_cannot_read_is_a_usage_error(tmp_path: Path, select: str) -> None:
    result = _import(tmp_path, document(weather_spans()), "--select", select)
    assert result.code == 2
    assert "--select" in result.stderr


def test_secrets_emails_and_patterns_are_scrubbed_everywhere_and_the_case_still_holds(tmp_path: Path) -> None:
    key = "sk-live-0123456789abcdefghijABCDEFGHIJ"
    env_secret = "hunter2-very-secret-value"
    question = message("user", text(f"Email alice.smith@corp.io about ORDER-7731, token {key} {env_secret}"))
    arguments = {"to": "alice.smith@corp.io", "order": "ORDER-7731"}
    call = message("assistant", tool_call("call_1", "send_email", arguments))
    fed = message("tool", tool_response("call_1", f"queued for alice.smith@corp.io with {key}"))
    answer = message("assistant", text("Sent to alice.smith@corp.io."))
    spans = [
        chat("b2b2b2b2b2b2b2b2", 1, [question], [call]),
        chat("d4d4d4d4d4d4d4d4", 40, [question, call, fed], [answer]),
    ]
    result = _import(tmp_path, document(spans), "--redact", r"ORDER-\d+", env={"ACME_API_TOKEN": env_secret})
    assert result.code == 0, result.stderr
    written = next((tmp_path / "out").glob("*.json")).read_text()
    for secret in ("alice.smith", "corp.io", key, "ORDER-7731", env_secret):
        assert secret not in written
    fixture = json.loads(written)
    assert "zeroclaw_user@example.com" in fixture["turns"][0]["user_input"]
    assert fixture["expects"]["trajectory"]["calls"][0]["args"] == {
        "to": "zeroclaw_user@example.com",
        "order": "[REDACTED]",
    }
    # What scrubbing wrote is no needle: the tool answers with the real text in replay.
    assert fixture["expects"]["tool_results_contain"][0]["needle"] == "queued for"


def test_a_redact_pattern_that_matches_empty_text_is_refused(tmp_path: Path) -> None:
    result = _import(tmp_path, document(weather_spans()), "--redact", "x*")
    assert result.code == 2
    assert "matches empty text" in result.stderr


def test_an_existing_fixture_is_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    existing = out / f"weather_{TRACE[:8]}.json"
    existing.write_text("mine\n")
    # Another file by that name: the trace gets a name of its own (a digest of its id).
    first = _import(tmp_path, document(weather_spans()))
    assert first.code == 0, first.stderr
    assert existing.read_text() == "mine\n"
    (written,) = (path for path in out.glob("*.json") if path != existing)
    before = written.read_text()
    # The same trace again: both names are taken, and neither file is touched.
    again = _import(tmp_path, document(weather_spans()))
    assert again.code == 1
    assert "exists already" in again.stderr
    assert written.read_text() == before
    assert existing.read_text() == "mine\n"


def test_a_second_turn_starts_where_a_request_ends_with_a_new_user_message(tmp_path: Path) -> None:
    again = message("user", text("And in Rome?"))
    spans = [
        *weather_spans(),
        chat(
            "e5e5e5e5e5e5e5e5",
            60,
            [QUESTION, CALL, RESULT, ANSWER, again],
            [message("assistant", text("Rainy."))],
        ),
    ]
    assert _import(tmp_path, document(spans)).code == 0
    (fixture,) = _fixtures(tmp_path)
    assert [turn["user_input"] for turn in fixture["turns"]] == [
        "What is the weather in Paris?",
        "And in Rome?",
    ]
    assert fixture["expects"]["response_contains"] == ["Rainy."]
    # The first turn's answer is checked too, not only the last.
    assert fixture["expects"]["turn_response_contains"] == [{"turn": 0, "needle": "It is sunny in Paris."}]


def test_turns_before_the_first_traced_call_come_from_its_history(tmp_path: Path) -> None:
    """A trace of a later call carries the run so far: its steps are read from it."""
    only = chat("d4d4d4d4d4d4d4d4", 40, [QUESTION, CALL, RESULT], [ANSWER])
    assert _import(tmp_path, document([only])).code == 0
    (fixture,) = _fixtures(tmp_path)
    steps = fixture["turns"][0]["steps"]
    assert [step["response"]["type"] for step in steps] == ["tool_calls", "text"]
    assert fixture["expects"]["tool_results_contain"][0]["needle"] == "sunny, 21C"
    assert "tools_offered" not in fixture["expects"]  # the first request is not in the trace


def test_a_failed_tool_call_is_an_error_in_the_trajectory(tmp_path: Path) -> None:
    failed = message("tool", tool_response("call_1", "Error: the weather service is down"))
    spans = weather_spans()
    spans[2] = execute_tool(
        "c3c3c3c3c3c3c3c3",
        20,
        "call_1",
        "get_weather",
        {"city": "Paris"},
        "Error: the weather service is down",
    )
    spans[3] = chat("d4d4d4d4d4d4d4d4", 40, [QUESTION, CALL, failed], [ANSWER])
    assert _import(tmp_path, document(spans)).code == 0
    (fixture,) = _fixtures(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"
    assert "all_tools_succeeded" not in fixture["expects"]


def _with_tool_span(spans: list[dict[str, Any]], **changes: Any) -> list[dict[str, Any]]:
    """The weather run, its tool span changed: the result reads as a success."""
    spans[2] = {**spans[2], **changes}
    return spans


@pytest.mark.parametrize(
    "changes",
    [
        {"status": {"code": "STATUS_CODE_ERROR", "message": "connection refused"}},  # the code by its name
        {"status": {"code": 2}},
        {"attributes": [*weather_spans()[2]["attributes"], *key_values({"error.type": "URLError"})]},
        {
            "events": [
                {
                    "name": "exception",
                    "timeUnixNano": "1",
                    "attributes": key_values({"exception.type": "URLError"}),
                }
            ]
        },
    ],
    ids=["status-by-name", "status-by-number", "error-type", "exception-event"],
)
def test_a_tool_span_that_says_it_failed_makes_the_call_an_error_whatever_the_text(
    tmp_path: Path, changes: dict[str, Any]
) -> None:
    assert _import(tmp_path, document(_with_tool_span(weather_spans(), **changes))).code == 0
    (fixture,) = _fixtures(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"
    assert "all_tools_succeeded" not in fixture["expects"]
    # The double answers as the tool did: with its text, as a failure.
    assert fixture["tool_doubles"]["get_weather"] == [
        {"when": {"city": "Paris"}, "result": "sunny, 21C", "success": False}
    ]


def test_without_a_tool_span_nothing_is_claimed_of_the_outcome(tmp_path: Path) -> None:
    """A result the agent fed back proves nothing of success: `URLError: ...` reads like
    any other text. The call gets no status, the case no all_tools_succeeded."""
    refused = message(
        "tool", tool_response("call_1", "URLError: <urlopen error [Errno 111] Connection refused>")
    )
    spans = weather_spans()
    spans[3] = chat("d4d4d4d4d4d4d4d4", 40, [QUESTION, CALL, refused], [ANSWER], tools=["get_weather"])
    del spans[2]
    assert _import(tmp_path, document(spans)).code == 0
    (fixture,) = _fixtures(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"] == [{"tool": "get_weather", "args": {"city": "Paris"}}]
    assert "all_tools_succeeded" not in fixture["expects"]
    assert fixture["tool_doubles"]["get_weather"][0]["result"].startswith("URLError:")
    # A result in the known words of a failure is one, span or no span.
    failed = message("tool", tool_response("call_1", "Error: the weather service is down"))
    spans[2] = chat("d4d4d4d4d4d4d4d4", 40, [QUESTION, CALL, failed], [ANSWER], tools=["get_weather"])
    (tmp_path / "again").mkdir()
    assert _import(tmp_path / "again", document(spans)).code == 0
    (fixture,) = _fixtures(tmp_path / "again")
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"


def test_a_call_that_failed_then_worked_with_the_same_arguments_is_doubled_in_that_order(
    tmp_path: Path,
) -> None:
    retry = message("assistant", tool_call("call_2", "get_weather", {"city": "Paris"}))
    down = message("tool", tool_response("call_1", "the weather service is down"))
    up = message("tool", tool_response("call_2", "sunny, 21C"))
    first = execute_tool(
        "c3c3c3c3c3c3c3c3", 20, "call_1", "get_weather", {"city": "Paris"}, "the weather service is down"
    )
    second = execute_tool("e5e5e5e5e5e5e5e5", 50, "call_2", "get_weather", {"city": "Paris"}, "sunny, 21C")
    spans = [
        weather_spans()[0],
        chat("b2b2b2b2b2b2b2b2", 1, [QUESTION], [CALL], tools=["get_weather"]),
        {**first, "status": {"code": 2}},
        chat("d4d4d4d4d4d4d4d4", 40, [QUESTION, CALL, down], [retry], tools=["get_weather"]),
        second,
        chat("f6f6f6f6f6f6f6f6", 60, [QUESTION, CALL, down, retry, up], [ANSWER], tools=["get_weather"]),
    ]
    result = _import(tmp_path, document(spans))
    assert result.code == 0, result.stderr
    (fixture,) = _fixtures(tmp_path)
    assert [call["status"] for call in fixture["expects"]["trajectory"]["calls"]] == ["error", "ok"]
    assert fixture["tool_doubles"]["get_weather"] == [
        {"when": {"city": "Paris"}, "result": "the weather service is down", "success": False, "times": 1},
        {"when": {"city": "Paris"}, "result": "sunny, 21C"},
    ]


def test_live_tools_writes_no_doubles(tmp_path: Path) -> None:
    result = _import(tmp_path, document(weather_spans()), "--live-tools")
    assert result.code == 0, result.stderr
    (fixture,) = _fixtures(tmp_path)
    assert "tool_doubles" not in fixture
    assert "doubles" not in result.stderr


def test_traces_that_are_not_agent_runs_are_passed_over(tmp_path: Path) -> None:
    http = span("f6f6f6f6f6f6f6f6", "GET /health", 1, {"http.request.method": "GET"}, trace=OTHER_TRACE)
    result = _import(tmp_path, document([*weather_spans(), http]))
    assert result.code == 0
    assert "passed over 1 trace" in result.stderr


@pytest.mark.parametrize(
    "content",
    ["", "{}\n", '{"resourceSpans": 3}', "not json\n", '{"data": []}'],
)
def test_a_file_that_is_no_trace_export_is_a_usage_error(tmp_path: Path, content: str) -> None:
    source = tmp_path / "traces.json"
    source.write_text(content)
    result = invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))
    assert result.code in (1, 2), result.stderr
    assert "Traceback" not in result.stderr


def _admitted(provenance: Any) -> Case | RejectedFixture:
    fixture = {
        "model_name": "m",
        "turns": [{"user_input": "hi", "steps": [{"response": {"type": "text", "content": "hello"}}]}],
        "expects": {"response_contains": ["hello"]},
        "provenance": provenance,
    }
    return admit_bytes(json.dumps(fixture).encode(), Path("m.json"), None)


def test_admission_knows_provenance_and_rejects_a_misspelt_key() -> None:
    good = {"format": "langfuse", "source": "t.json", "trace_id": "abc", "span_ids": ["s1"]}
    assert isinstance(_admitted(good), Case)
    rejected = _admitted({**good, "trace": "abc"})
    assert isinstance(rejected, RejectedFixture)
    assert rejected.problems[0].field.pointer == "/provenance/trace"
    assert isinstance(_admitted({**good, "format": "jaeger"}), RejectedFixture)


def test_a_call_read_from_the_history_never_takes_a_later_calls_tool_span(tmp_path: Path) -> None:
    """The second turn's trace of a two-turn run (each turn its own trace, as MLflow and
    LlamaIndex make them): its first request carries turn 1 with its Paris call; its one
    tool span, with no call id, ran the Rome call. The Paris call proves nothing."""
    rome_question = message("user", text("And in Rome?"))
    rome_call = message("assistant", tool_call("call_2", "get_weather", {"city": "Rome"}))
    rome_result = message("tool", tool_response("call_2", "rain, 14C"))
    history = [QUESTION, CALL, RESULT, ANSWER, rome_question]
    tool = execute_tool("c3c3c3c3c3c3c3c3", 20, "", "get_weather", {"city": "Rome"}, "rain, 14C")
    spans = [
        weather_spans()[0],
        chat("b2b2b2b2b2b2b2b2", 1, history, [rome_call], tools=["get_weather"]),
        tool,
        chat(
            "d4d4d4d4d4d4d4d4", 40, [*history, rome_call, rome_result], [message("assistant", text("Rainy."))]
        ),
    ]
    result = _import(tmp_path, document(spans))
    assert result.code == 0, result.stderr
    (fixture,) = _fixtures(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": {"city": "Paris"}},
        {"tool": "get_weather", "args": {"city": "Rome"}, "status": "ok"},
    ]
    assert fixture["provenance"]["span_ids"] == ["b2b2b2b2b2b2b2b2", "c3c3c3c3c3c3c3c3", "d4d4d4d4d4d4d4d4"]
