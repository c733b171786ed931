"""OTLP JSON with the OpenTelemetry GenAI conventions, read field by field: every shape
an OTLP exporter writes a span in (hex or base64 ids, enums by number or name, 64-bit
integers as text, every `AnyValue`), every place the conventions (and their earlier
releases) put a call's messages, tokens and tools, and every way a tool span says it
failed."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.importing.expected_weather import weather_fixture
from tests.importing.otlp_docs import (
    ANSWER,
    CALL,
    QUESTION,
    RESULT,
    T0,
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
from zeroclaw_eval.cases.limits import MAX_COUNT

ROOT, FIRST, TOOL, LAST = "a1a1a1a1a1a1a1a1", "b2b2b2b2b2b2b2b2", "c3c3c3c3c3c3c3c3", "d4d4d4d4d4d4d4d4"


def _import(tmp_path: Path, data: Any, name: str = "traces.json") -> Result:
    source = tmp_path / name
    source.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))


def _fixtures(tmp_path: Path) -> dict[str, dict[str, Any]]:
    return {
        path.stem: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((tmp_path / "out").glob("*.json"))
    }


def _only(tmp_path: Path) -> dict[str, Any]:
    (fixture,) = _fixtures(tmp_path).values()
    return fixture


def _set(item: dict[str, Any], **attributes: Any) -> dict[str, Any]:
    """`item` (a span) with `attributes` set (None: removed)."""
    kept = [pair for pair in item["attributes"] if pair["key"] not in attributes]
    added = key_values({key: value for key, value in attributes.items() if value is not None})
    return {**item, "attributes": kept + added}


def _usage(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The weather run with each model call's tokens: the current names on the first,
    the earlier ones (`prompt_tokens`) on the second."""
    spans[1] = _set(spans[1], **{"gen_ai.usage.input_tokens": 11, "gen_ai.usage.output_tokens": 7})
    spans[3] = _set(spans[3], **{"gen_ai.usage.prompt_tokens": 23, "gen_ai.usage.completion_tokens": 5})
    return spans


def _expected(tmp_path: Path, source: str = "traces.json") -> dict[str, Any]:
    provenance = {
        "format": "otel-genai",
        "source": str(tmp_path / source),
        "trace_id": TRACE,
        "span_ids": [FIRST, TOOL, LAST],
        "service": "weather-service",
        "provider": "openai",
        "started": "2026-12-01T09:00:00.000Z",
    }
    return weather_fixture(f"weather_{TRACE[:8]}", provenance)


def test_a_run_is_written_whole_with_each_calls_tokens(tmp_path: Path) -> None:
    result = _import(tmp_path, document(_usage(weather_spans())))
    assert result.code == 0, result.stderr
    assert _only(tmp_path) == _expected(tmp_path)
    assert (
        f"trace {TRACE}, 2 steps, 1 tool call; checks: response_contains, tools_used, tools_offered,"
        " trajectory, tool_results_contain, all_tools_succeeded; doubles: get_weather"
    ) in result.stderr


def test_tokens_written_as_text_or_out_of_range_are_read_as_a_fixture_takes_them(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[1] = _set(spans[1], **{"gen_ai.usage.input_tokens": "31", "gen_ai.usage.output_tokens": -2})
    spans[3] = _set(spans[3], **{"gen_ai.usage.output_tokens": "9" * 20})
    assert _import(tmp_path, document(spans)).code == 0
    first, last = (step["response"] for step in _only(tmp_path)["turns"][0]["steps"])
    assert (first.get("input_tokens"), first.get("output_tokens")) == (31, None)
    assert last.get("input_tokens") is None
    assert last["output_tokens"] == MAX_COUNT  # the largest count a fixture takes, not dropped


def _base64(value: str) -> str:
    return base64.b64encode(bytes.fromhex(value)).decode()


def test_ids_in_base64_or_upper_case_hex_are_written_as_lower_case_hex(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    for item in spans[:2]:
        for key in ("traceId", "spanId", "parentSpanId"):
            item[key] = _base64(item[key]) if item[key] else ""
    for item in spans[2:]:
        item["traceId"], item["spanId"] = item["traceId"].upper(), item["spanId"].upper()
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_json_lines_of_export_requests_split_mid_trace_are_one_run(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    lines = "\n".join(json.dumps(document([item])) for item in spans) + "\n\n"
    assert _import(tmp_path, lines, "traces.jsonl").code == 0
    assert _only(tmp_path) == _expected(tmp_path, "traces.jsonl")


def test_a_run_split_across_two_files_names_both(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(document(spans[:2])), encoding="utf-8")
    second.write_text(json.dumps(document(spans[2:])), encoding="utf-8")
    result = invoke("eval", "import", str(first), str(second), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.stderr
    fixture = _only(tmp_path)
    assert fixture["provenance"]["source"] == f"{first}, {second}"
    assert fixture["turns"] == _expected(tmp_path)["turns"]


def test_structured_attribute_values_read_as_their_json_text(tmp_path: Path) -> None:
    """Messages as OTLP array and key-value values, not JSON text; numbers as numbers."""
    spans = _usage(weather_spans())
    for index, inputs, outputs in ((1, [QUESTION], [CALL]), (3, [QUESTION, CALL, RESULT], [ANSWER])):
        spans[index] = _set(
            spans[index],
            **{
                "gen_ai.input.messages": inputs,
                "gen_ai.output.messages": outputs,
                "gen_ai.tool.definitions": [{"type": "function", "name": "get_weather"}],
                "gen_ai.system_instructions": [text("You are a weather assistant.")],
            },
        )
    spans[1] = _set(spans[1], **{"gen_ai.usage.input_tokens": 11.0, "gen_ai.usage.output_tokens": 7})
    for pair in spans[1]["attributes"]:
        if pair["key"] == "gen_ai.usage.output_tokens":
            pair["value"] = {"intValue": 7}  # a number, not the decimal text
        if pair["key"] == "gen_ai.usage.input_tokens":
            pair["value"] = {"intValue": "11"}
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


@pytest.mark.parametrize(
    "value",
    [
        {"boolValue": True},
        {"doubleValue": 11.5},
        {"bytesValue": "MTE="},
        {"intValue": "1e3"},
        {"intValue": True},
    ],
    ids=["bool", "double", "bytes", "not-digits", "bool-int"],
)
def test_tokens_of_any_other_kind_of_value_count_none(tmp_path: Path, value: dict[str, Any]) -> None:
    spans = _usage(weather_spans())
    for pair in spans[1]["attributes"]:
        if pair["key"] == "gen_ai.usage.input_tokens":
            pair["value"] = value
    assert _import(tmp_path, document(spans)).code == 0
    first = _only(tmp_path)["turns"][0]["steps"][0]["response"]
    assert (first.get("input_tokens"), first["output_tokens"]) == (None, 7)


def test_a_string_token_count_longer_than_any_count_is_none(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    spans[1] = _set(spans[1], **{"gen_ai.usage.input_tokens": "1" * 21})
    assert _import(tmp_path, document(spans)).code == 0
    assert "input_tokens" not in _only(tmp_path)["turns"][0]["steps"][0]["response"]


def test_times_written_as_numbers_or_text_place_the_calls_alike(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    for item in spans:
        item["startTimeUnixNano"] = int(item["startTimeUnixNano"])
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_spans_listed_out_of_order_are_steps_in_the_order_they_started(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    assert _import(tmp_path, document([spans[3], spans[2], spans[0], spans[1]])).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_span_whose_end_is_before_its_start_never_ended(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[1]["endTimeUnixNano"] = str(T0)  # the span started at T0 + 1
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert f"refused: trace {TRACE}: span {FIRST} (chat gpt-4o): the span never ended" in result.stderr


def test_the_service_is_the_resources_service_name(tmp_path: Path) -> None:
    data = document(_usage(weather_spans()))
    data["resourceSpans"][0]["resource"]["attributes"] = key_values({"service.name": 7, "host.name": "x"})
    assert _import(tmp_path, data).code == 0
    assert "service" not in _only(tmp_path)["provenance"]


def test_the_run_without_an_agent_span_is_named_by_its_service(tmp_path: Path) -> None:
    spans = _usage(weather_spans())[1:]
    assert _import(tmp_path, document(spans, service="Weather Service")).code == 0
    fixture = _only(tmp_path)
    assert fixture["model_name"] == f"weather_service_{TRACE[:8]}"
    assert fixture["provenance"]["service"] == "Weather Service"


def test_the_agent_is_the_first_invoke_agent_spans_name(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    inner = span("e5e5e5e5e5e5e5e5", "invoke_agent inner", 2, {"gen_ai.operation.name": "invoke_agent"})
    named = span(
        "f6f6f6f6f6f6f6f6",
        "invoke_agent other",
        3,
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "other"},
    )
    spans[0] = _set(spans[0], **{"gen_ai.agent.name": 42})
    assert _import(tmp_path, document([spans[0], inner, named, *spans[1:]])).code == 0
    # The first span's name is no text: nothing named; the next names none; the third does.
    assert _only(tmp_path)["model_name"] == f"other_{TRACE[:8]}"


def test_the_provider_is_the_first_model_calls_provider_name_or_older_system(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    spans[1] = _set(spans[1], **{"gen_ai.provider.name": "", "gen_ai.system": "azure.ai.openai"})
    spans[3] = _set(spans[3], **{"gen_ai.provider.name": "anthropic"})
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["provenance"]["provider"] == "azure.ai.openai"


def _tool_failed(
    tmp_path: Path, tool: dict[str, Any], extra: tuple[dict[str, Any], ...] = ()
) -> dict[str, Any]:
    """The fixture of the weather run whose tool span is `tool` (and `extra` spans after it)."""
    spans = _usage(weather_spans())
    spans[2:3] = [tool, *extra]
    assert _import(tmp_path, document(spans)).code == 0
    return _only(tmp_path)


@pytest.mark.parametrize(
    "status",
    [
        {"code": "STATUS_CODE_ERROR", "message": "connection refused"},
        {"code": 2},
        {"code": "ERROR"},
        {"code": "2"},
        {"code": 2.0},
    ],
    ids=["by-name", "by-number", "sdk-name", "number-as-text", "number-as-float"],
)
def test_a_tool_span_whose_status_is_an_error_is_a_failed_call(
    tmp_path: Path, status: dict[str, Any]
) -> None:
    fixture = _tool_failed(tmp_path, {**weather_spans()[2], "status": status})
    expected = _expected(tmp_path)
    expected["expects"]["trajectory"]["calls"][0]["status"] = "error"
    del expected["expects"]["all_tools_succeeded"]
    expected["tool_doubles"]["get_weather"][0]["success"] = False
    assert fixture == expected


@pytest.mark.parametrize(
    "status",
    [{"code": 1}, {"code": "STATUS_CODE_OK"}, {"code": "ok"}, {"code": 0}, "error", {}],
    ids=["ok", "ok-by-name", "sdk-name", "unset-by-number", "not-an-object", "unset"],
)
def test_a_tool_span_with_an_ok_or_unset_status_succeeded(tmp_path: Path, status: Any) -> None:
    fixture = _tool_failed(tmp_path, {**weather_spans()[2], "status": status})
    assert fixture == _expected(tmp_path)


@pytest.mark.parametrize(
    "status",
    [{"code": True}, {"code": 7}, {"code": "FAILED"}, {"code": [2]}],
    ids=["bool", "no-such-number", "no-such-name", "a-list"],
)
def test_a_tool_span_whose_status_is_spelled_no_known_way_proves_nothing(tmp_path: Path, status: Any) -> None:
    # Read as a success, an exporter's own spelling of an error was certified as one.
    fixture = _tool_failed(tmp_path, {**weather_spans()[2], "status": status})
    expected = _expected(tmp_path)
    del expected["expects"]["trajectory"]["calls"][0]["status"]
    del expected["expects"]["all_tools_succeeded"]
    assert fixture == expected


@pytest.mark.parametrize(
    ("attributes", "events"),
    [
        ({"otel.status_code": "ERROR"}, []),
        ({}, [{"name": "Exception", "timeUnixNano": "1", "attributes": []}]),
        (
            {},
            [
                {
                    "name": "error",
                    "timeUnixNano": "1",
                    "attributes": key_values({"exception.type": "KeyError"}),
                }
            ],
        ),
    ],
    ids=["status-attribute", "event-named-in-another-case", "event-with-exception-type"],
)
def test_other_marks_of_a_failed_tool_span_are_read(
    tmp_path: Path, attributes: dict[str, Any], events: list[dict[str, Any]]
) -> None:
    fixture = _tool_failed(tmp_path, {**_set(weather_spans()[2], **attributes), "events": events})
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"
    assert "all_tools_succeeded" not in fixture["expects"]


def test_a_second_run_of_a_call_that_failed_makes_the_call_failed(tmp_path: Path) -> None:
    # Two spans of one call (an exporter's retry): the first ok, the later one an error.
    # The first was taken and the failure dropped: a failed call certified as a success.
    spans = weather_spans()
    failed = {**spans[2], "spanId": "e5e5e5e5e5e5e5e5", "status": {"code": 2}}
    fixture = _tool_failed(tmp_path, spans[2], extra=(failed,))
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"
    assert "all_tools_succeeded" not in fixture["expects"]
    assert fixture["tool_doubles"]["get_weather"][0]["success"] is False


def test_a_tool_span_with_an_error_type_is_a_failed_call(tmp_path: Path) -> None:
    fixture = _tool_failed(tmp_path, _set(weather_spans()[2], **{"error.type": "TimeoutError"}))
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"
    assert fixture["tool_doubles"]["get_weather"][0]["success"] is False


def test_a_tool_span_with_an_empty_error_type_succeeded(tmp_path: Path) -> None:
    fixture = _tool_failed(tmp_path, _set(weather_spans()[2], **{"error.type": ""}))
    assert fixture == _expected(tmp_path)


def test_a_tool_span_with_an_exception_event_is_a_failed_call(tmp_path: Path) -> None:
    events = [
        {"name": "log", "timeUnixNano": "1", "attributes": []},
        {
            "name": "exception",
            "timeUnixNano": "2",
            "attributes": key_values({"exception.type": "TimeoutError"}),
        },
    ]
    fixture = _tool_failed(tmp_path, {**weather_spans()[2], "events": events})
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"


def test_a_tool_span_with_other_events_succeeded(tmp_path: Path) -> None:
    events = [{"name": "retry", "timeUnixNano": "1"}, "not an event"]
    fixture = _tool_failed(tmp_path, {**weather_spans()[2], "events": events})
    assert fixture == _expected(tmp_path)


def _unsent(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The run with the tool's result not sent back: only the tool span has it."""
    spans[3] = _set(spans[3], **{"gen_ai.input.messages": json.dumps([QUESTION, CALL])})
    return spans


def test_a_tool_span_of_pydantic_ais_older_attributes_is_read(tmp_path: Path) -> None:
    older = span(
        TOOL,
        "running tool get_weather",
        20,
        {
            "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "call_1",
            "tool_arguments": json.dumps({"city": "Paris"}),
            "tool_response": {"sky": "sunny"},
        },
    )
    spans = _unsent(_usage(weather_spans()))
    spans[2] = older
    assert _import(tmp_path, document(spans)).code == 0
    fixture = _only(tmp_path)
    assert fixture["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": '{"sky": "sunny"}'}]
    }
    assert fixture["provenance"]["span_ids"] == [FIRST, TOOL, LAST]


def test_a_tool_span_without_a_tool_name_is_named_by_the_span(tmp_path: Path) -> None:
    tool = execute_tool(TOOL, 20, "call_1", "get_weather", {"city": "Paris"}, "sunny, 21C")
    tool = _set(tool, **{"gen_ai.tool.name": 7, "gen_ai.tool.call.id": 7})
    tool["name"] = "get_weather"
    spans = _unsent(_usage(weather_spans()))
    spans[2] = tool
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]
    }


def test_a_tool_span_answers_its_call_by_id_before_one_with_the_same_arguments(tmp_path: Path) -> None:
    other = execute_tool("e5e5e5e5e5e5e5e5", 10, "call_9", "get_weather", {"city": "Paris"}, "rainy")
    mine = execute_tool(TOOL, 20, "call_1", "get_weather", {"city": "Lyon"}, "sunny, 21C")
    spans = _unsent(_usage(weather_spans()))
    spans[2:3] = [other, mine]
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]
    }


def test_a_model_call_of_text_completion_or_generate_content_is_a_step(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    spans[1] = _set(spans[1], **{"gen_ai.operation.name": "text_completion"})
    spans[3] = _set(spans[3], **{"gen_ai.operation.name": "generate_content"})
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_chat_span_written_before_the_operation_name_is_a_step(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    spans[1] = _set(spans[1], **{"gen_ai.operation.name": None, "gen_ai.system": "openai"})
    spans[2] = _set(spans[2], **{"gen_ai.operation.name": None})
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_span_of_another_operation_is_no_step(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    embed = span("e5e5e5e5e5e5e5e5", "embeddings", 30, {"gen_ai.operation.name": "embeddings"})
    named = span("f6f6f6f6f6f6f6f6", "summarise", 31, {"gen_ai.system": "openai"})
    assert _import(tmp_path, document([*spans, embed, named])).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_the_details_event_carries_the_messages(tmp_path: Path) -> None:
    """`gen_ai.client.inference.operation.details`: the content on an event of the span."""
    spans = _usage(weather_spans())
    for index in (1, 3):
        content = {
            pair["key"]: json.loads(pair["value"]["stringValue"])
            for pair in spans[index]["attributes"]
            if pair["key"] in ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.definitions")
        }
        spans[index] = _set(
            spans[index],
            **{
                "gen_ai.input.messages": None,
                "gen_ai.output.messages": None,
                "gen_ai.tool.definitions": None,
            },
        )
        spans[index]["events"] = [
            {"name": "other", "timeUnixNano": "1", "attributes": key_values({"gen_ai.output.messages": []})},
            {
                "name": "gen_ai.client.inference.operation.details",
                "timeUnixNano": "2",
                "attributes": key_values(content),
            },
        ]
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_attributes_on_the_span_win_over_the_details_event(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    wrong = message("assistant", text("Wrong."))
    spans[3]["events"] = [
        {
            "name": "gen_ai.client.inference.operation.details",
            "timeUnixNano": "2",
            "attributes": key_values(
                {"gen_ai.output.messages": [wrong], "gen_ai.usage.completion_tokens": 99}
            ),
        }
    ]
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_result_part_that_is_not_text_is_its_json(tmp_path: Path) -> None:
    result = message(
        "tool", {"type": "tool_call_response", "id": "call_1", "result": {"sky": "sunny", "c": 21}}
    )
    spans = weather_spans()
    del spans[2]
    spans[2] = _set(spans[2], **{"gen_ai.input.messages": json.dumps([QUESTION, CALL, result])})
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": '{"sky": "sunny", "c": 21}'}]
    }


def test_a_result_part_with_no_response_is_an_empty_result(tmp_path: Path) -> None:
    result = message("tool", {"type": "tool_call_response", "id": "call_1"})
    spans = weather_spans()
    del spans[2]
    spans[2] = _set(spans[2], **{"gen_ai.input.messages": json.dumps([QUESTION, CALL, result])})
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["tool_doubles"] == {"get_weather": [{"when": {"city": "Paris"}, "result": ""}]}


def test_two_results_in_one_message_answer_their_calls(tmp_path: Path) -> None:
    calls = message(
        "assistant",
        tool_call("call_1", "get_weather", {"city": "Paris"}),
        tool_call("call_2", "get_weather", {"city": "Rome"}),
    )
    results = message(
        "tool", tool_response("call_1", "sunny in Paris"), tool_response("call_2", "rainy in Rome")
    )
    spans = [
        weather_spans()[0],
        chat(FIRST, 1, [QUESTION], [calls]),
        chat(LAST, 40, [QUESTION, calls, results], [ANSWER]),
    ]
    assert _import(tmp_path, document(spans)).code == 0
    fixture = _only(tmp_path)
    assert fixture["turns"][0]["steps"][0]["response"]["tool_calls"] == [
        {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"id": "call_2", "name": "get_weather", "arguments": {"city": "Rome"}},
    ]
    assert fixture["tool_doubles"] == {
        "get_weather": [
            {"when": {"city": "Paris"}, "result": "sunny in Paris"},
            {"when": {"city": "Rome"}, "result": "rainy in Rome"},
        ]
    }


def test_text_parts_are_the_replys_text_beside_its_calls_and_reasoning_is_left_out(tmp_path: Path) -> None:
    thinking = {"type": "reasoning", "content": "The user wants weather. "}
    spoken = message(
        "assistant", thinking, text("Let me look."), tool_call("call_1", "get_weather", {"city": "Paris"})
    )
    spans = weather_spans()
    spans[1] = chat(FIRST, 1, [QUESTION], [spoken], tools=["get_weather"])
    spans[3] = chat(LAST, 40, [QUESTION, spoken, RESULT], [ANSWER], tools=["get_weather"])
    assert _import(tmp_path, document(spans)).code == 0
    first = _only(tmp_path)["turns"][0]["steps"][0]["response"]
    assert first == {
        "type": "tool_calls",
        "content": "Let me look.",
        "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}],
    }


def test_an_image_beside_the_question_is_refused(tmp_path: Path) -> None:
    image = {"type": "blob", "modality": "image", "mime_type": "image/png", "content": "iVBORw0KGgo="}
    question = message("user", text("What is the weather here?"), image)
    spans = weather_spans()
    spans[1] = chat(FIRST, 1, [question], [CALL])
    spans[3] = chat(LAST, 40, [question, CALL, RESULT], [ANSWER])
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert f"span {FIRST} (chat gpt-4o): input messages: a user message holds no text" in result.stderr


def test_an_output_message_of_a_tool_result_is_no_reply(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[3] = chat(LAST, 40, [QUESTION, CALL, RESULT], [RESULT])
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert (
        f"span {LAST} (chat gpt-4o): gen_ai.output.messages: the model call recorded no reply"
        in result.stderr
    )


def test_messages_that_are_not_objects_are_passed_over(tmp_path: Path) -> None:
    spans = _usage(weather_spans())
    spans[1] = _set(
        spans[1], **{"gen_ai.input.messages": json.dumps(["noise", QUESTION, {"role": "user", "parts": "x"}])}
    )
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["turns"][0]["user_input"] == "What is the weather in Paris?"


def test_system_instructions_cut_by_a_length_limit_are_refused_naming_them(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[1] = _set(spans[1], **{"gen_ai.system_instructions": '[{"type": "text", "con'})
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert (
        f"span {FIRST} (chat gpt-4o): gen_ai.system_instructions: is not JSON: was it cut by an attribute"
        " length limit (OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT)?"
    ) in result.stderr


def test_tool_definitions_cut_by_a_length_limit_are_refused_naming_them(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[3] = _set(spans[3], **{"gen_ai.tool.definitions": '[{"type": "func'})
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert f"span {LAST} (chat gpt-4o): gen_ai.tool.definitions: is not JSON" in result.stderr


def test_output_messages_cut_by_a_length_limit_are_refused_naming_them(tmp_path: Path) -> None:
    spans = weather_spans()
    spans[3] = _set(spans[3], **{"gen_ai.output.messages": '[{"role": "assist'})
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert f"span {LAST} (chat gpt-4o): gen_ai.output.messages: is not JSON" in result.stderr


def test_a_model_call_that_recorded_nothing_says_so_naming_what_it_holds(tmp_path: Path) -> None:
    bare = span(
        FIRST,
        "chat gpt-4o",
        1,
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o",
            "llm.prompt": "[...]",
            "gen_ai.input.messages.ignored": "x",
        },
    )
    result = _import(tmp_path, document([bare]))
    assert result.code == 1
    assert "though it holds gen_ai.input.messages.ignored, llm.prompt: a format not read yet" in result.stderr


def _event(name: str, at: int, body: Any, **attributes: Any) -> dict[str, Any]:
    return {
        "name": name,
        "timeUnixNano": str(at),
        "attributes": key_values(attributes),
        "body": body,
    }


def _log(
    span_id: str, at: int, name: str | None, body: dict[str, Any], *, observed: bool = False
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "traceId": TRACE,
        "spanId": span_id,
        "body": {"kvlistValue": {"values": key_values(body)}},
        "attributes": key_values({"event.name": name} if name and observed else {}),
    }
    record["observedTimeUnixNano" if observed else "timeUnixNano"] = str(T0 + at)
    if name and not observed:
        record["eventName"] = name
    return record


OPENAI_CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
}


def test_the_older_log_events_are_read_in_the_order_they_happened(tmp_path: Path) -> None:
    legacy = {
        "gen_ai.operation.name": "chat",
        "gen_ai.system": "openai",
        "gen_ai.usage.input_tokens": 11,
        "gen_ai.usage.output_tokens": 7,
    }
    records = [
        # Listed out of order; the older SDKs name the event in an attribute.
        _log(
            FIRST,
            2,
            "gen_ai.choice",
            {"index": 0, "message": {"role": "assistant"}, "tool_calls": [OPENAI_CALL]},
        ),
        _log(FIRST, 1, "gen_ai.user.message", {"content": "What is the weather in Paris?"}, observed=True),
        _log(FIRST, 0, "gen_ai.system.message", {"content": "You are a weather assistant."}),
        _log(LAST, 3, "gen_ai.user.message", {"content": "What is the weather in Paris?"}),
        _log(LAST, 4, "gen_ai.assistant.message", {"tool_calls": [OPENAI_CALL, "noise", {"id": "x"}]}),
        _log(LAST, 5, "gen_ai.tool.message", {"content": {"sky": "sunny"}, "id": "call_1"}),
        _log(LAST, 6, "gen_ai.choice", {"index": 1, "message": {"content": "Other choice."}}),
        _log(LAST, 7, "gen_ai.choice", {"index": 0, "message": {"content": "Sunny."}}),
        _log(LAST, 8, "gen_ai.choice", {"index": 0, "message": {"content": "Later."}}),
        _log(LAST, 9, None, {"content": "unnamed"}),
    ]
    data = document([span(FIRST, "chat gpt-4o", 1, legacy), span(LAST, "chat gpt-4o", 40, legacy)])
    data["resourceLogs"] = [{"scopeLogs": [{"logRecords": records}]}]
    result = _import(tmp_path, data)
    assert result.code == 0, result.stderr
    fixture = _only(tmp_path)
    assert fixture["turns"] == [
        {
            "user_input": "What is the weather in Paris?",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [
                            {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}
                        ],
                        "input_tokens": 11,
                        "output_tokens": 7,
                    }
                },
                {"response": {"type": "text", "content": "Sunny.", "input_tokens": 11, "output_tokens": 7}},
            ],
        }
    ]
    assert fixture["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": '{"sky": "sunny"}'}]
    }


def test_the_older_span_events_are_read_and_a_missing_choice_is_named(tmp_path: Path) -> None:
    legacy = {"gen_ai.system": "openai"}
    first = span(FIRST, "chat gpt-4o", 1, legacy)
    first["events"] = [
        _event("gen_ai.user.message", 1, None),
    ]
    result = _import(tmp_path, document([first]))
    assert result.code == 1
    assert (
        f"span {FIRST} (chat gpt-4o): gen_ai.choice event: the model call recorded no reply" in result.stderr
    )
