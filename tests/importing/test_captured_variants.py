"""The captured traces (`data/captured/README.md`) with one thing changed, as another
release or configuration of the same instrumentation writes it: where each reader takes
a call's tokens when the GenAI conventions' attributes are not there (Logfire's own
`usage`, `response_data`, MLflow's `tokenUsage`), the tools offered, the agent's name,
a tool span's result, arguments and failure in each instrumentation's own words."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.importing.otlp_docs import any_value
from tests.support.invoke import invoke

CAPTURED = Path(__file__).with_name("data") / "captured"
PARIS = {"city": "Paris"}
SUNNY = "sunny, 21C in Paris"
USAGE = ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens")


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CAPTURED / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _spans(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for resource in data["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            yield from scope["spans"]


def _attribute(item: dict[str, Any], key: str) -> Any:
    return next((pair["value"] for pair in item["attributes"] if pair["key"] == key), None)


def _change(data: dict[str, Any], where: str, **attributes: Any) -> None:
    """Set (None: remove) `attributes` on every span whose name or template starts with `where`."""
    for item in _spans(data):
        template = _attribute(item, "logfire.msg_template") or {}
        if not (item["name"].startswith(where) or str(template.get("stringValue", "")).startswith(where)):
            continue
        kept = [pair for pair in item["attributes"] if pair["key"] not in attributes]
        added = [
            {"key": key, "value": any_value(value)} for key, value in attributes.items() if value is not None
        ]
        item["attributes"] = kept + added


def _import(tmp_path: Path, data: dict[str, Any]) -> dict[str, Any]:
    source = tmp_path / "trace.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    result = invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.stderr
    (path,) = (tmp_path / "out").glob("*.json")
    fixture: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return fixture


def _tokens(fixture: dict[str, Any]) -> list[tuple[int | None, int | None]]:
    steps = [step["response"] for turn in fixture["turns"] for step in turn["steps"]]
    return [(step.get("input_tokens"), step.get("output_tokens")) for step in steps]


def _refused(tmp_path: Path, data: dict[str, Any]) -> str:
    source = tmp_path / "trace.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    result = invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))
    assert result.code == 1, result.stderr
    return result.stderr


# Logfire


def test_logfires_response_data_gives_the_tokens_without_the_conventions_usage(tmp_path: Path) -> None:
    data = _load("logfire_openai_chat_v1")
    _change(data, "Chat Completion with", **dict.fromkeys(USAGE))
    assert _tokens(_import(tmp_path, data)) == [(40, 12), (60, None)]


def test_logfires_response_data_without_usage_gives_no_tokens(tmp_path: Path) -> None:
    data = _load("logfire_openai_chat_v1")
    _change(data, "Chat Completion with", **dict.fromkeys(USAGE))
    for item in _spans(data):
        for pair in item["attributes"]:
            if pair["key"] == "response_data":  # each span's own answer, its usage unreadable
                answer = json.loads(pair["value"]["stringValue"])
                answer["usage"] = "52 tokens"
                pair["value"] = any_value(json.dumps(answer))
    assert _tokens(_import(tmp_path, data)) == [(None, None), (None, None)]


def test_a_logfire_request_without_tool_definitions_offers_its_request_datas_tools(tmp_path: Path) -> None:
    data = _load("logfire_openai_chat_v1")
    _change(data, "Chat Completion with", **{"gen_ai.tool.definitions": None})
    fixture = _import(tmp_path, data)
    assert fixture["expects"]["tools_offered"] == ["get_weather"]
    assert fixture["tools"] == ["get_weather"]


def test_a_logfire_request_that_says_no_tools_offers_nothing_known(tmp_path: Path) -> None:
    data = _load("logfire_openai_chat_v1")
    _change(data, "Chat Completion with", **{"gen_ai.tool.definitions": None})
    for item in _spans(data):
        request = json.loads(_attribute(item, "request_data")["stringValue"])
        del request["tools"]
        item["attributes"] = [
            pair
            if pair["key"] != "request_data"
            else {"key": "request_data", "value": any_value(json.dumps(request))}
            for pair in item["attributes"]
        ]
    assert "tools_offered" not in _import(tmp_path, data)["expects"]


def test_a_logfire_model_span_without_its_reply_is_refused_naming_response_data(tmp_path: Path) -> None:
    data = _load("logfire_openai_chat_v1")
    last = list(_spans(data))[1]
    last["attributes"] = [pair for pair in last["attributes"] if pair["key"] != "response_data"]
    stderr = _refused(tmp_path, data)
    assert f"span {last['spanId']} (Chat Completion with {{request_data[model]!r}}): response_data:" in stderr


def test_the_agents_sdks_usage_gives_the_tokens_without_the_conventions_usage(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    _change(data, "Chat completion with", **dict.fromkeys(USAGE))
    assert _tokens(_import(tmp_path, data)) == [(40, 12), (60, None)]


def test_the_agents_sdks_usage_that_is_not_an_object_gives_no_tokens(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    _change(data, "Chat completion with", usage="[40, 12]", **dict.fromkeys(USAGE))
    assert _tokens(_import(tmp_path, data)) == [(None, None), (None, None)]


def test_the_responses_apis_usage_gives_the_tokens_without_the_conventions_usage(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents_responses")
    _change(data, "Responses API with", **dict.fromkeys(USAGE))
    fixture = _import(tmp_path, data)
    assert _tokens(fixture) == [(40, 12), (60, None)]
    assert fixture["turns"][0]["steps"][0]["response"]["tool_calls"] == [
        {"id": "call_weather_1", "name": "get_weather", "arguments": PARIS}
    ]


def test_the_streamed_agents_sdks_usage_gives_the_tokens(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents_stream")
    _change(data, "Chat completion with", **dict.fromkeys(USAGE))
    assert _tokens(_import(tmp_path, data)) == [(40, 12), (60, None)]


def test_the_agents_sdks_agent_run_span_names_the_agent(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    _change(data, "Agent run:", name="Desk Agent")
    assert _import(tmp_path, data)["model_name"] == "desk_agent_01a24e98"


def test_an_agent_run_span_without_a_name_names_none(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    _change(data, "Agent run:", name="")
    data["resourceSpans"][0]["resource"]["attributes"] = [{"key": "service.name", "value": any_value("desk")}]
    assert _import(tmp_path, data)["model_name"] == "desk_01a24e98"


def test_a_span_with_another_template_names_no_agent(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    _change(data, "Agent run:", **{"logfire.msg_template": "Agent ran: {name!r}"})
    data["resourceSpans"][0]["resource"]["attributes"] = []
    assert _import(tmp_path, data)["model_name"] == "trace_01a24e98"


def test_an_agents_sdk_tool_span_with_an_error_is_a_failed_call(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    _change(data, "Function:", error=json.dumps({"message": "Error running tool"}))
    fixture = _import(tmp_path, data)
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": PARIS, "status": "error"}
    ]
    assert fixture["tool_doubles"] == {"get_weather": [{"when": PARIS, "result": SUNNY, "success": False}]}


def test_an_agents_sdk_tool_span_whose_error_is_null_succeeded(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents_tool_error")
    _change(data, "Function:", error="null", output=SUNNY)
    for item in _spans(data):
        if item["name"].startswith("Function"):
            item["status"] = {}
    data_text = json.dumps(data).replace("An error occurred while running the tool. Please try again.", SUNNY)
    fixture = _import(tmp_path, json.loads(data_text))
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": PARIS, "status": "ok"}
    ]


def test_an_agents_sdk_tool_spans_output_that_is_not_text_is_no_result(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    _change(data, "Function:", output=21)
    # The agent fed the result back: the call's result is that.
    fixture = _import(tmp_path, data)
    assert fixture["tool_doubles"] == {"get_weather": [{"when": PARIS, "result": SUNNY}]}


def test_an_agents_sdk_tool_span_without_a_name_attribute_is_named_by_the_span(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    for item in _spans(data):
        if item["name"].startswith("Function"):
            item["name"] = "get_weather"
    _change(data, "Function:", name=None)
    assert _import(tmp_path, data)["expects"]["trajectory"]["calls"][0]["status"] == "ok"


def test_a_span_of_logfires_scope_without_a_template_is_no_model_call(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    _change(data, "Function:", **{"logfire.msg_template": None})
    # Not read as a tool run: no span proves the outcome.
    fixture = _import(tmp_path, data)
    assert fixture["expects"]["trajectory"]["calls"] == [{"tool": "get_weather", "args": PARIS}]


def test_logfires_template_marks_its_spans_without_its_scope(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents")
    for resource in data["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            scope["scope"] = {"name": "other"}
    fixture = _import(tmp_path, data)
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": PARIS, "status": "ok"}
    ]
    assert _tokens(fixture) == [(40, 12), (60, None)]


# OpenLLMetry


def test_openllmetrys_request_without_functions_offers_nothing_known(tmp_path: Path) -> None:
    data = _load("openllmetry_0.54.0")
    for item in _spans(data):
        item["attributes"] = [
            pair for pair in item["attributes"] if not pair["key"].startswith("llm.request.functions")
        ]
    fixture = _import(tmp_path, data)
    assert "tools_offered" not in fixture["expects"]
    assert fixture["tools"] == ["get_weather"]


def test_openllmetrys_indexed_reply_without_content_or_calls_is_refused(tmp_path: Path) -> None:
    data = _load("openllmetry_0.54.0")
    last = list(_spans(data))[1]
    last["attributes"] = [pair for pair in last["attributes"] if pair["key"] != "gen_ai.completion.0.content"]
    stderr = _refused(tmp_path, data)
    assert (
        f"span {last['spanId']} (openai.chat): gen_ai.completion.0: the model call recorded no reply"
        in stderr
    )


def test_a_traceloop_tool_span_with_positional_arguments_keeps_them_all(tmp_path: Path) -> None:
    data = _load("openllmetry_traceloop_sdk_0.54.0_tool_error")
    _change(
        data, "get_weather.tool", **{"traceloop.entity.input": json.dumps({"args": ["Paris"], "kwargs": {}})}
    )
    fixture = _import(tmp_path, data)
    # The fed-back result answers the call; the span, with other arguments, is not its run.
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": PARIS, "status": "error"}
    ]


def test_a_traceloop_tool_spans_json_text_output_is_its_result(tmp_path: Path) -> None:
    data = _load("openllmetry_traceloop_sdk_0.54.0_tool_error")
    _change(data, "get_weather.tool", **{"traceloop.entity.output": json.dumps(SUNNY)})
    for item in _spans(data):
        item["status"] = {}
        item["events"] = []
        for pair in item["attributes"]:  # and the model was sent that result, not the error
            if pair["key"] == "gen_ai.prompt.3.content":
                pair["value"] = any_value(SUNNY)
    fixture = _import(tmp_path, data)
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "ok"


def test_a_traceloop_tool_span_names_the_tool_by_gen_ai_tool_name_first(tmp_path: Path) -> None:
    data = _load("openllmetry_traceloop_sdk_0.54.0_tool_error")
    _change(data, "get_weather.tool", **{"gen_ai.tool.name": "get_weather", "traceloop.entity.name": "tool"})
    assert _import(tmp_path, data)["expects"]["trajectory"]["calls"][0]["status"] == "error"


def test_a_traceloop_tool_span_without_names_is_named_by_the_span(tmp_path: Path) -> None:
    data = _load("openllmetry_traceloop_sdk_0.54.0_tool_error")
    _change(data, "get_weather.tool", **{"traceloop.entity.name": None})
    assert _import(tmp_path, data)["expects"]["trajectory"]["calls"][0]["status"] == "error"


def test_a_traceloop_workflow_span_names_the_agent(tmp_path: Path) -> None:
    data = _load("openllmetry_traceloop_sdk_0.54.0_tool_error")
    _change(data, "weather_agent.workflow", **{"traceloop.entity.name": "Desk"})
    assert _import(tmp_path, data)["model_name"] == "desk_cf9e1592"


def test_a_traceloop_agent_span_names_the_agent_and_a_task_span_does_not(tmp_path: Path) -> None:
    data = _load("openllmetry_traceloop_sdk_0.54.0_tool_error")
    _change(
        data, "weather_agent.workflow", **{"traceloop.span.kind": "agent", "traceloop.entity.name": "Desk"}
    )
    assert _import(tmp_path, data)["model_name"] == "desk_cf9e1592"
    data = _load("openllmetry_traceloop_sdk_0.54.0_tool_error")
    _change(
        data, "weather_agent.workflow", **{"traceloop.span.kind": "task", "traceloop.entity.name": "Desk"}
    )
    (tmp_path / "again").mkdir()
    assert _import(tmp_path / "again", data)["model_name"] == "weather_agent_cf9e1592"


# MLflow


def test_mlflow_without_token_usage_writes_no_tokens(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    _change(data, "Completions", **{"mlflow.chat.tokenUsage": json.dumps([40, 12])})
    assert _tokens(_import(tmp_path, data)) == [(None, None), (None, None)]


def test_mlflow_without_the_message_format_names_no_provider(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    _change(data, "Completions", **{"mlflow.message.format": json.dumps("")})
    assert "provider" not in _import(tmp_path, data)["provenance"]


def test_an_mlflow_llm_span_is_a_model_call(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    _change(data, "Completions", **{"mlflow.spanType": json.dumps("LLM")})
    assert _tokens(_import(tmp_path, data)) == [(40, 12), (60, None)]


def test_an_mlflow_agent_span_names_the_agent_by_its_function_or_its_span(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    _change(data, "weather_agent", **{"mlflow.spanFunctionName": json.dumps("desk")})
    assert _import(tmp_path, data)["model_name"] == "desk_e9c910dd"
    data = _load("mlflow_default")
    _change(data, "weather_agent", **{"mlflow.spanFunctionName": None})
    for item in _spans(data):
        if item["name"] == "weather_agent":
            item["name"] = "Front Desk"
    (tmp_path / "again").mkdir()
    assert _import(tmp_path / "again", data)["model_name"] == "front_desk_e9c910dd"


def test_an_mlflow_tool_spans_structured_output_is_its_json(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    _change(data, "get_weather", **{"mlflow.spanOutputs": json.dumps({"sky": "sunny"})})
    last = list(_spans(data))[2]
    inputs = json.loads(_attribute(last, "mlflow.spanInputs")["stringValue"])
    inputs["messages"] = inputs["messages"][:3]  # the result not sent back: only the span has it
    _change(data, "Completions", **{"mlflow.spanInputs": None})
    for index, item in enumerate(_spans(data)):
        if item["name"] == "Completions":
            sent = (
                json.loads(json.dumps(inputs))
                if index == 2
                else {"messages": inputs["messages"][:2], "tools": inputs["tools"]}
            )
            item["attributes"].append({"key": "mlflow.spanInputs", "value": any_value(json.dumps(sent))})
    fixture = _import(tmp_path, data)
    assert fixture["tool_doubles"] == {"get_weather": [{"when": PARIS, "result": '{"sky":"sunny"}'}]}


def test_an_mlflow_tool_span_without_a_function_name_is_named_by_the_span(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    _change(data, "get_weather", **{"mlflow.spanFunctionName": json.dumps("")})
    assert _import(tmp_path, data)["expects"]["trajectory"]["calls"][0]["status"] == "ok"


@pytest.mark.parametrize("name", ["mlflow_default", "llamaindex_function_agent"])
def test_a_model_span_that_never_ended_is_refused(tmp_path: Path, name: str) -> None:
    data = _load(name)
    first = next(item for item in _spans(data) if item["name"] in ("Completions", "OpenAI.astream_chat"))
    first["endTimeUnixNano"] = "0"
    stderr = _refused(tmp_path, data)
    assert f"span {first['spanId']} ({first['name']}): the span never ended" in stderr
