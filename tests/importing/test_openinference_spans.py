"""OpenInference spans (Arize Phoenix's conventions), read field by field: the flattened
messages (`llm.input_messages.N.message.*`, text parts, tool calls, tool call ids), the
reply, the tokens, the tools offered, tool spans (their arguments, result, call id and
outcome), the agent and the provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.importing.expected_weather import weather_fixture
from tests.importing.otlp_docs import TRACE, document, span
from tests.support.invoke import Result, invoke

AGENT, FIRST, TOOL, LAST = "a1a1a1a1a1a1a1a1", "b2b2b2b2b2b2b2b2", "c3c3c3c3c3c3c3c3", "d4d4d4d4d4d4d4d4"
KIND = "openinference.span.kind"


def _messages(prefix: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Messages flattened as OpenInference writes them."""
    flat: dict[str, Any] = {}
    for index, message in enumerate(messages):
        for key, value in message.items():
            flat[f"{prefix}.{index}.message.{key}"] = value
    return flat


def _call(call_id: str = "call_1", city: str = "Paris") -> dict[str, Any]:
    return {
        "role": "assistant",
        "tool_calls.0.tool_call.id": call_id,
        "tool_calls.0.tool_call.function.name": "get_weather",
        "tool_calls.0.tool_call.function.arguments": json.dumps({"city": city}),
    }


QUESTION = {"role": "user", "content": "What is the weather in Paris?"}
SYSTEM = {"role": "system", "content": "You are a weather assistant."}
RESULT = {"role": "tool", "content": "sunny, 21C", "tool_call_id": "call_1"}
ANSWER = {"role": "assistant", "content": "It is sunny in Paris."}
SCHEMA = json.dumps({"type": "function", "function": {"name": "get_weather", "parameters": {}}})


def _llm(
    span_id: str, start: int, inputs: list[dict[str, Any]], output: dict[str, Any] | None, **extra: Any
) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        KIND: "LLM",
        "llm.provider": "openai",
        "llm.model_name": "gpt-4o",
        "llm.tools.0.tool.json_schema": SCHEMA,
        **_messages("llm.input_messages", inputs),
    }
    if output is not None:
        attributes.update(_messages("llm.output_messages", [output]))
    attributes.update(extra)
    return span(span_id, "ChatCompletion", start, attributes)


def _spans(**tool: Any) -> list[dict[str, Any]]:
    tool_attributes: dict[str, Any] = {
        KIND: "TOOL",
        "tool.name": "get_weather",
        "input.value": json.dumps({"city": "Paris"}),
        "output.value": "sunny, 21C",
    }
    status = tool.pop("status", 0)
    tool_attributes.update(tool)
    return [
        span(AGENT, "weather agent", 0, {KIND: "AGENT", "agent.name": "weather"}, end=100),
        _llm(
            FIRST,
            1,
            [SYSTEM, QUESTION],
            _call(),
            **{"llm.token_count.prompt": 11, "llm.token_count.completion": 7},
        ),
        span(TOOL, "get_weather", 20, tool_attributes, status=status),
        _llm(
            LAST,
            40,
            [SYSTEM, QUESTION, _call(), RESULT],
            ANSWER,
            **{"llm.token_count.prompt": 23, "llm.token_count.completion": 5},
        ),
    ]


def _import(tmp_path: Path, data: Any) -> Result:
    source = tmp_path / "traces.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    return invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))


def _only(tmp_path: Path) -> dict[str, Any]:
    (path,) = (tmp_path / "out").glob("*.json")
    fixture: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return fixture


def _expected(tmp_path: Path) -> dict[str, Any]:
    provenance = {
        "format": "openinference",
        "source": str(tmp_path / "traces.json"),
        "trace_id": TRACE,
        "span_ids": [FIRST, TOOL, LAST],
        "service": "weather-service",
        "provider": "openai",
        "started": "2026-12-01T09:00:00.000Z",
    }
    return weather_fixture(f"weather_{TRACE[:8]}", provenance)


def test_a_run_is_written_whole(tmp_path: Path) -> None:
    result = _import(tmp_path, document(_spans()))
    assert result.code == 0, result.stderr
    assert _only(tmp_path) == _expected(tmp_path)


def test_span_kinds_are_read_in_any_case(tmp_path: Path) -> None:
    spans = _spans()
    for item in spans:
        for pair in item["attributes"]:
            if pair["key"] == KIND:
                pair["value"]["stringValue"] = pair["value"]["stringValue"].lower()
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_text_parts_are_a_messages_content(tmp_path: Path) -> None:
    question = {
        "role": "user",
        "contents.0.message_content.type": "text",
        "contents.0.message_content.text": "What is the weather ",
        "contents.1.message_content.type": "image",
        "contents.1.message_content.image": "data:...",
        "contents.2.message_content.text": "in Paris?",
    }
    spans = _spans()
    spans[1] = _llm(
        FIRST, 1, [question], _call(), **{"llm.token_count.prompt": 11, "llm.token_count.completion": 7}
    )
    spans[3] = _llm(
        LAST,
        40,
        [question, _call(), RESULT],
        {"role": "assistant", "contents.0.message_content.text": "It is sunny in Paris."},
        **{"llm.token_count.prompt": 23, "llm.token_count.completion": 5},
    )
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_message_that_carries_a_call_id_is_a_tool_result_whatever_its_role(tmp_path: Path) -> None:
    spans = _spans(**{"output.value": "other"})
    del spans[2]
    result = {"role": "function", "content": "sunny, 21C", "tool_call_id": "call_1"}
    spans[2] = _llm(LAST, 40, [QUESTION, _call(), result], ANSWER)
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]
    }


def test_a_tool_message_without_a_call_id_answers_its_call_by_position(tmp_path: Path) -> None:
    spans = _spans()
    del spans[2]
    spans[2] = _llm(LAST, 40, [QUESTION, _call(), {"role": "tool", "content": "sunny, 21C"}], ANSWER)
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]
    }


def _unsent(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    spans[3] = _llm(LAST, 40, [QUESTION, _call()], ANSWER)
    return spans


def test_a_tool_span_claims_its_call_by_the_tool_call_id(tmp_path: Path) -> None:
    spans = _unsent(_spans(**{"input.value": json.dumps({"town": "Paris"}), "tool_call.id": "call_1"}))
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]
    }


def test_a_tool_span_claims_its_call_by_the_tool_id(tmp_path: Path) -> None:
    spans = _unsent(_spans(**{"input.value": json.dumps({"town": "Paris"}), "tool.id": "call_1"}))
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]
    }


def test_a_tool_span_with_its_parameters_and_no_input_is_read(tmp_path: Path) -> None:
    spans = _spans(**{"tool.parameters": json.dumps({"city": "Paris"})})
    spans[2]["attributes"] = [pair for pair in spans[2]["attributes"] if pair["key"] != "input.value"]
    assert _import(tmp_path, document(_unsent(spans))).code == 0
    assert _only(tmp_path)["expects"]["trajectory"]["calls"][0]["status"] == "ok"


@pytest.mark.parametrize(
    ("value", "arguments"),
    [
        ({"kwargs": {"city": "Paris"}}, {"city": "Paris"}),
        ({"args": [], "kwargs": {"city": "Paris"}}, {"city": "Paris"}),
    ],
    ids=["kwargs", "no-args"],
)
def test_llamaindexs_keywords_are_the_calls_arguments(tmp_path: Path, value: Any, arguments: Any) -> None:
    spans = _unsent(_spans(**{"input.value": json.dumps(value)}))
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["tool_doubles"] == {"get_weather": [{"when": arguments, "result": "sunny, 21C"}]}


@pytest.mark.parametrize(
    "value",
    [
        {"args": ["Paris"], "kwargs": {}},
        {"args": ["Paris"], "kwargs": {"city": "Paris"}},
        {"kwargs": "city=Paris"},
        {"kwargs": {"city": "Paris"}, "extra": 1},
        "{not json",
    ],
    ids=["positional", "positional-and-keywords", "kwargs-not-object", "more-keys", "not-json"],
)
def test_a_tool_input_that_is_no_keywords_is_not_the_calls_arguments(tmp_path: Path, value: Any) -> None:
    spans = _unsent(_spans(**{"input.value": value if isinstance(value, str) else json.dumps(value)}))
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert "the tool call get_weather (id call_1) has no result" in result.stderr


@pytest.mark.parametrize(
    ("output", "result"),
    [
        (json.dumps({"content": "x", "tool_name": "get_weather", "raw_output": "sunny, 21C"}), "sunny, 21C"),
        (json.dumps({"content": "x", "raw_output": "sunny"}), '{"content": "x", "raw_output": "sunny"}'),
        (json.dumps({"tool_name": "get_weather", "raw_output": {"sky": "sunny"}}), None),
        ("{sunny", "{sunny"),
        ("[1, 2]", "[1, 2]"),
    ],
    ids=["tool-output", "no-tool-name", "raw-not-text", "not-json", "list"],
)
def test_a_tool_spans_output_is_its_result_or_llamaindexs_raw_output(
    tmp_path: Path, output: str, result: str | None
) -> None:
    spans = _unsent(_spans(**{"output.value": output}))
    assert _import(tmp_path, document(spans)).code == 0
    (double,) = _only(tmp_path)["tool_doubles"]["get_weather"]
    assert double["result"] == (output if result is None else result)


def test_a_tool_span_whose_output_is_a_number_is_its_text(tmp_path: Path) -> None:
    spans = _unsent(_spans(**{"output.value": 21}))
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["tool_doubles"]["get_weather"][0]["result"] == "21"


def test_a_tool_span_without_a_tool_name_is_named_by_the_span(tmp_path: Path) -> None:
    spans = _spans(**{"tool.name": None})
    spans[2]["attributes"] = [pair for pair in spans[2]["attributes"] if pair["key"] != "tool.name"]
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_tool_span_with_an_error_status_is_a_failed_call(tmp_path: Path) -> None:
    assert _import(tmp_path, document(_spans(status=2))).code == 0
    expected = _expected(tmp_path)
    expected["expects"]["trajectory"]["calls"][0]["status"] = "error"
    del expected["expects"]["all_tools_succeeded"]
    expected["tool_doubles"]["get_weather"][0]["success"] = False
    assert _only(tmp_path) == expected


def test_the_agent_is_the_first_agent_spans_name_or_its_span_name(tmp_path: Path) -> None:
    spans = _spans()
    spans[0] = span(AGENT, "Weather Desk", 0, {KIND: "AGENT", "agent.name": ""}, end=100)
    later = span("e5e5e5e5e5e5e5e5", "inner", 2, {KIND: "AGENT", "agent.name": "inner"})
    assert _import(tmp_path, document([*spans, later])).code == 0
    assert _only(tmp_path)["model_name"] == f"weather_desk_{TRACE[:8]}"


def test_the_provider_is_the_first_llm_spans_provider_or_system(tmp_path: Path) -> None:
    spans = _spans()
    for item in spans[1::2]:
        item["attributes"] = [pair for pair in item["attributes"] if pair["key"] != "llm.provider"]
    spans[1]["attributes"].append({"key": "llm.system", "value": {"stringValue": "anthropic"}})
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["provenance"]["provider"] == "anthropic"


def test_tool_schemas_that_are_not_json_are_left_out_of_the_offer(tmp_path: Path) -> None:
    extra = {"llm.tools.1.tool.json_schema": "{cut", "llm.tools.2.tool.json_schema": {"name": "get_time"}}
    spans = _spans()
    spans[1] = _llm(FIRST, 1, [QUESTION], _call(), **extra)
    spans[3] = _llm(LAST, 40, [QUESTION, _call(), RESULT], ANSWER, **extra)
    assert _import(tmp_path, document(spans)).code == 0
    fixture = _only(tmp_path)
    assert fixture["expects"]["tools_offered"] == ["get_time", "get_weather"]
    assert fixture["tools"] == ["get_weather", "get_time"]


def test_llm_spans_without_tools_offer_nothing_known(tmp_path: Path) -> None:
    spans = _spans()
    for item in spans[1::2]:
        item["attributes"] = [pair for pair in item["attributes"] if not pair["key"].startswith("llm.tools")]
    assert _import(tmp_path, document(spans)).code == 0
    assert "tools_offered" not in _only(tmp_path)["expects"]


def test_messages_are_read_in_index_order(tmp_path: Path) -> None:
    spans = _spans()
    flat = {
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.1.message.content": "What is the weather in Paris?",
        "llm.input_messages.0.message.role": "system",
        "llm.input_messages.0.message.content": "Be brief.",
        "llm.input_messages.x.message.role": "user",
        "llm.input_messages.2": "no rest",
    }
    spans[1] = span(
        FIRST,
        "ChatCompletion",
        1,
        {
            KIND: "LLM",
            "llm.provider": "openai",
            "llm.tools.0.tool.json_schema": SCHEMA,
            **flat,
            **_messages("llm.output_messages", [_call()]),
            "llm.token_count.prompt": 11,
            "llm.token_count.completion": 7,
        },
    )
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_an_llm_span_with_an_empty_reply_is_refused_naming_the_output_message(tmp_path: Path) -> None:
    spans = _spans()
    spans[3] = _llm(LAST, 40, [QUESTION, _call(), RESULT], {"role": "assistant", "content": ""})
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert (
        f"refused: trace {TRACE}: span {LAST} (ChatCompletion): llm.output_messages.0.message: the model call"
        " recorded no reply"
    ) in result.stderr


def test_an_llm_span_with_content_in_another_shape_names_it(tmp_path: Path) -> None:
    odd = span(
        FIRST,
        "ChatCompletion",
        1,
        {KIND: "LLM", "input.value": "{}", "output.value": "{}", "llm.input_messages": "x"},
    )
    result = _import(tmp_path, document([odd]))
    assert result.code == 1
    assert "though it holds input.value, output.value: a format not read yet" in result.stderr


def test_a_failed_llm_span_the_agent_retried_is_no_step(tmp_path: Path) -> None:
    spans = _spans()
    failed = _llm("e5e5e5e5e5e5e5e5", 1, [QUESTION], None)
    failed["status"] = {"code": 2}
    assert _import(tmp_path, document([*spans, failed])).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_tool_span_whose_parameters_are_other_arguments_answers_no_call(tmp_path: Path) -> None:
    spans = _spans(**{"tool.parameters": json.dumps({"city": "Lyon"})})
    spans[2]["attributes"] = [pair for pair in spans[2]["attributes"] if pair["key"] != "input.value"]
    result = _import(tmp_path, document(_unsent(spans)))
    assert result.code == 1
    assert "the tool call get_weather (id call_1) has no result" in result.stderr


def test_a_tool_spans_input_written_as_a_structured_value_is_its_arguments(tmp_path: Path) -> None:
    spans = _unsent(_spans(**{"input.value": {"city": "Paris"}}))
    assert _import(tmp_path, document(spans)).code == 0
    fixture = _only(tmp_path)
    assert fixture["tool_doubles"] == {"get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]}
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "ok"


def test_a_tool_span_without_output_answers_no_call_not_sent_back(tmp_path: Path) -> None:
    spans = _spans()
    spans[2]["attributes"] = [pair for pair in spans[2]["attributes"] if pair["key"] != "output.value"]
    result = _import(tmp_path, document(_unsent(spans)))
    assert result.code == 1
    assert "the tool call get_weather (id call_1) has no result" in result.stderr


def test_results_fed_back_out_of_order_answer_their_calls_by_id(tmp_path: Path) -> None:
    both = {
        **_call(),
        "tool_calls.1.tool_call.id": "call_2",
        "tool_calls.1.tool_call.function.name": "get_weather",
        "tool_calls.1.tool_call.function.arguments": json.dumps({"city": "Lyon"}),
    }
    lyon = {"role": "tool", "content": "rainy in Lyon", "tool_call_id": "call_2"}
    spans = [
        span(AGENT, "weather agent", 0, {KIND: "AGENT", "agent.name": "weather"}, end=100),
        _llm(FIRST, 1, [QUESTION], both),
        _llm(LAST, 40, [QUESTION, both, lyon, RESULT], ANSWER),
    ]
    assert _import(tmp_path, document(spans)).code == 0
    assert _only(tmp_path)["tool_doubles"] == {
        "get_weather": [
            {"when": {"city": "Paris"}, "result": "sunny, 21C"},
            {"when": {"city": "Lyon"}, "result": "rainy in Lyon"},
        ]
    }
