"""MLflow's and OpenLLMetry's captured runs (`data/captured`) at their edges: a span with
no service or no times, a span as long as no time at all, a tool span named only by its
function, a tool's result read from its span, an agent or provider named by an empty or
other value, a call recorded with no id, a model span that failed or recorded nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.importing.test_captured_variants import PARIS, SUNNY, _change, _import, _load, _refused, _spans
from tests.support.invoke import invoke


def _named(data: dict[str, Any], name: str, index: int = 0) -> dict[str, Any]:
    return [item for item in _spans(data) if item["name"] == name][index]


def _without(item: dict[str, Any], *keys: str) -> None:
    item["attributes"] = [pair for pair in item["attributes"] if pair["key"] not in keys]


def _unsent(data: dict[str, Any]) -> None:
    """MLflow's run with the tool's result not sent back to the model: only its span has it."""
    last = _named(data, "Completions", 1)
    inputs = json.loads(
        next(p for p in last["attributes"] if p["key"] == "mlflow.spanInputs")["value"]["stringValue"]
    )
    inputs["messages"] = [message for message in inputs["messages"] if message["role"] != "tool"]
    _change(data, "Completions", **{"mlflow.spanInputs": None})
    first_inputs = {**inputs, "messages": inputs["messages"][:2]}
    for sent, item in zip((first_inputs, inputs), (_named(data, "Completions", 0), last), strict=True):
        item["attributes"].append({"key": "mlflow.spanInputs", "value": {"stringValue": json.dumps(sent)}})


# MLflow


@pytest.mark.parametrize("name", ["mlflow_default", "openllmetry_0.54.0"])
def test_a_run_whose_resource_names_no_service_names_none(tmp_path: Path, name: str) -> None:
    data = _load(name)
    data["resourceSpans"][0]["resource"]["attributes"] = []
    fixture = _import(tmp_path, data)
    assert "service" not in fixture["provenance"]


def test_an_mlflow_run_whose_spans_say_no_times_is_refused_as_never_ended(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    for item in _spans(data):
        item["startTimeUnixNano"] = item["endTimeUnixNano"] = "0"
    stderr = _refused(tmp_path, data)
    assert "the span never ended: the trace was cut off mid-run" in stderr


def test_an_mlflow_span_that_ended_before_it_started_never_ended(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    first = _named(data, "Completions")
    first["endTimeUnixNano"] = str(int(first["startTimeUnixNano"]) - 5)
    stderr = _refused(tmp_path, data)
    assert f"span {first['spanId']} (Completions): the span never ended" in stderr


def test_an_mlflow_span_that_took_no_time_ended(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    for item in _spans(data):
        item["endTimeUnixNano"] = item["startTimeUnixNano"]
    assert _import(tmp_path, data)["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": PARIS, "status": "ok"}
    ]


def test_an_mlflow_tool_span_is_named_by_its_function_not_its_span(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    _named(data, "get_weather")["name"] = "tool: weather lookup"
    fixture = _import(tmp_path, data)
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": PARIS, "status": "ok"}
    ]


@pytest.mark.parametrize(
    ("output", "result"),
    [(json.dumps(SUNNY), SUNNY), (json.dumps({"sky": "sunny"}), '{"sky":"sunny"}')],
    ids=["text", "object"],
)
def test_an_mlflow_tool_spans_output_answers_a_call_not_sent_back(
    tmp_path: Path, output: str, result: str
) -> None:
    data = _load("mlflow_default")
    _change(data, "get_weather", **{"mlflow.spanOutputs": output})
    _unsent(data)
    fixture = _import(tmp_path, data)
    assert fixture["tool_doubles"] == {"get_weather": [{"when": PARIS, "result": result}]}


def test_an_mlflow_tool_span_without_output_answers_no_call_not_sent_back(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    _change(data, "get_weather", **{"mlflow.spanOutputs": None})
    _unsent(data)
    stderr = _refused(tmp_path, data)
    assert "the tool call get_weather (id call_weather_1) has no result" in stderr


def test_an_mlflow_tool_span_that_ran_other_arguments_proves_nothing_of_the_call(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    _change(data, "get_weather", **{"mlflow.spanInputs": json.dumps({"city": "Lyon"})})
    fixture = _import(tmp_path, data)
    assert fixture["expects"]["trajectory"]["calls"] == [{"tool": "get_weather", "args": PARIS}]


def test_an_mlflow_agent_span_with_an_empty_function_name_is_named_by_its_span(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    _change(data, "weather_agent", **{"mlflow.spanFunctionName": json.dumps("")})
    _named(data, "weather_agent")["name"] = "Front Desk"
    assert _import(tmp_path, data)["model_name"] == "front_desk_e9c910dd"


@pytest.mark.parametrize("value", [json.dumps(5), json.dumps(["openai"])], ids=["number", "list"])
def test_an_mlflow_message_format_that_is_no_text_names_no_provider(tmp_path: Path, value: str) -> None:
    data = _load("mlflow_default")
    _change(data, "Completions", **{"mlflow.message.format": value})
    assert "provider" not in _import(tmp_path, data)["provenance"]


def test_an_mlflow_model_span_of_messages_alone_is_read(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    for item in _spans(data):
        if item["name"] == "Completions":
            pair = next(p for p in item["attributes"] if p["key"] == "mlflow.spanInputs")
            pair["value"] = {"stringValue": json.dumps(json.loads(pair["value"]["stringValue"])["messages"])}
    fixture = _import(tmp_path, data)
    assert fixture["turns"][0]["user_input"] == "What is the weather in Paris?"
    assert "tools_offered" not in fixture["expects"]


def test_an_mlflow_model_span_without_outputs_is_refused_naming_them(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    last = _named(data, "Completions", 1)
    _without(last, "mlflow.spanOutputs")
    stderr = _refused(tmp_path, data)
    assert (
        f"span {last['spanId']} (Completions): mlflow.spanOutputs: the model call recorded no reply" in stderr
    )


def test_a_failed_mlflow_model_span_without_outputs_is_no_step(tmp_path: Path) -> None:
    data = _load("mlflow_default")
    first = _named(data, "Completions")
    failed = json.loads(json.dumps(first))
    failed["spanId"] = "0123456789abcdef"
    failed["status"] = {"code": 2, "message": "RateLimitError"}
    _without(failed, "mlflow.spanOutputs", "mlflow.spanInputs")
    asked = {"messages": [{"role": "user", "content": "Weather in Paris, please?"}]}
    failed["attributes"].append({"key": "mlflow.spanInputs", "value": {"stringValue": json.dumps(asked)}})
    data["resourceSpans"][0]["scopeSpans"][0]["spans"].insert(0, failed)
    fixture = _import(tmp_path, data)
    assert len(fixture["turns"][0]["steps"]) == 2


# OpenLLMetry


def test_an_openllmetry_call_recorded_without_an_id_is_scripted_without_one(tmp_path: Path) -> None:
    data = _load("openllmetry_0.54.0")
    for item in _spans(data):
        _without(item, "gen_ai.completion.0.tool_calls.0.id", "gen_ai.prompt.2.tool_calls.0.id")
        _without(item, "gen_ai.prompt.3.tool_call_id")
    fixture = _import(tmp_path, data)
    assert fixture["turns"][0]["steps"][0]["response"]["tool_calls"] == [
        {"id": "", "name": "get_weather", "arguments": PARIS}
    ]
    assert fixture["tool_doubles"]["get_weather"][0]["result"] == SUNNY


def test_an_openllmetry_model_span_without_a_completion_is_refused_naming_it(tmp_path: Path) -> None:
    data = _load("openllmetry_0.54.0")
    last = _named(data, "openai.chat", 1)
    last["attributes"] = [p for p in last["attributes"] if not p["key"].startswith("gen_ai.completion.")]
    stderr = _refused(tmp_path, data)
    assert (
        f"span {last['spanId']} (openai.chat): gen_ai.completion.0: the model call recorded no reply"
        in stderr
    )


def _tool_span(data: dict[str, Any], **attributes: Any) -> dict[str, Any]:
    """The `@tool` span of OpenLLMetry's run, with `attributes` set (None: removed)."""
    tool = _named(data, "get_weather.tool")
    _without(tool, *attributes)
    tool["attributes"] += [
        {"key": key, "value": {"stringValue": value}}
        for key, value in attributes.items()
        if value is not None
    ]
    return tool


def _unsent_result(data: dict[str, Any]) -> None:
    """OpenLLMetry's run with the tool's result not sent back: only the `@tool` span has it."""
    last = _named(data, "openai.chat", 1)
    last["attributes"] = [p for p in last["attributes"] if not p["key"].startswith("gen_ai.prompt.3.")]


@pytest.mark.parametrize(
    ("output", "result"),
    [
        (json.dumps(SUNNY), SUNNY),
        ('{"sky": "sunny"}', '{"sky": "sunny"}'),
        ("sunny, not JSON", "sunny, not JSON"),
    ],
    ids=["json-text", "json-object-as-written", "plain-text"],
)
def test_a_traceloop_tool_spans_output_answers_a_call_not_sent_back(
    tmp_path: Path, output: str, result: str
) -> None:
    data = _load("openllmetry_0.54.0")
    _tool_span(data, **{"traceloop.entity.output": output})
    _unsent_result(data)
    fixture = _import(tmp_path, data)
    assert fixture["tool_doubles"] == {"get_weather": [{"when": PARIS, "result": result}]}
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": PARIS, "status": "ok"}
    ]


def test_a_traceloop_tool_span_without_output_answers_no_call_not_sent_back(tmp_path: Path) -> None:
    data = _load("openllmetry_0.54.0")
    _tool_span(data, **{"traceloop.entity.output": None})
    _unsent_result(data)
    assert "the tool call get_weather (id call_weather_1) has no result" in _refused(tmp_path, data)


@pytest.mark.parametrize(
    "entity_input",
    [
        {"args": [], "kwargs": {"city": "Lyon"}},
        {"args": ["Paris"], "kwargs": {"city": "Paris"}},
        {"city": "Lyon"},
    ],
    ids=["other-keywords", "positional-too", "not-the-decorators-shape"],
)
def test_a_traceloop_tool_span_that_ran_other_arguments_proves_nothing_of_the_call(
    tmp_path: Path, entity_input: dict[str, Any]
) -> None:
    data = _load("openllmetry_0.54.0")
    _tool_span(data, **{"traceloop.entity.input": json.dumps(entity_input)})
    fixture = _import(tmp_path, data)
    assert fixture["expects"]["trajectory"]["calls"] == [{"tool": "get_weather", "args": PARIS}]
    assert "all_tools_succeeded" not in fixture["expects"]


@pytest.mark.parametrize(
    ("span_name", "attributes"),
    [
        ("lookup.tool", {}),
        ("lookup.tool", {"gen_ai.tool.name": "get_weather", "traceloop.entity.name": "lookup"}),
        ("get_weather.tool", {"traceloop.entity.name": None}),
    ],
    ids=["entity-name-over-span-name", "tool-name-over-entity-name", "span-name-without-its-suffix"],
)
def test_a_traceloop_tool_span_is_named_as_its_tool_was_called(
    tmp_path: Path, span_name: str, attributes: dict[str, Any]
) -> None:
    data = _load("openllmetry_0.54.0")
    _tool_span(data, **attributes)["name"] = span_name
    fixture = _import(tmp_path, data)
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": PARIS, "status": "ok"}
    ]
    assert fixture["expects"]["all_tools_succeeded"] is True


def test_openllmetrys_results_fed_back_out_of_order_answer_their_calls_by_id(tmp_path: Path) -> None:
    data = _load("openllmetry_0.54.0")
    first, last = _named(data, "openai.chat", 0), _named(data, "openai.chat", 1)
    lyon = {"id": "call_weather_2", "name": "get_weather", "arguments": json.dumps({"city": "Lyon"})}
    for item, prefix in ((first, "gen_ai.completion.0"), (last, "gen_ai.prompt.2")):
        item["attributes"] += [
            {"key": f"{prefix}.tool_calls.1.{key}", "value": {"stringValue": value}}
            for key, value in lyon.items()
        ]
    _without(last, "gen_ai.prompt.3.content", "gen_ai.prompt.3.tool_call_id")
    fed = {
        "gen_ai.prompt.3.content": "rainy in Lyon",
        "gen_ai.prompt.3.tool_call_id": "call_weather_2",
        "gen_ai.prompt.4.role": "tool",
        "gen_ai.prompt.4.content": SUNNY,
        "gen_ai.prompt.4.tool_call_id": "call_weather_1",
    }
    last["attributes"] += [{"key": key, "value": {"stringValue": value}} for key, value in fed.items()]
    fixture = _import(tmp_path, data)
    assert fixture["tool_doubles"]["get_weather"] == [
        {"when": PARIS, "result": SUNNY},
        {"when": {"city": "Lyon"}, "result": "rainy in Lyon"},
    ]


def test_an_openllmetry_call_recorded_without_arguments_has_none(tmp_path: Path) -> None:
    data = _load("openllmetry_0.54.0")
    for item in _spans(data):
        _without(item, "gen_ai.completion.0.tool_calls.0.arguments", "gen_ai.prompt.2.tool_calls.0.arguments")
    fixture = _import(tmp_path, data)
    assert fixture["turns"][0]["steps"][0]["response"]["tool_calls"] == [
        {"id": "call_weather_1", "name": "get_weather", "arguments": {}}
    ]


def test_an_openllmetry_call_recorded_without_a_name_is_refused_not_named(tmp_path: Path) -> None:
    data = _load("openllmetry_0.54.0")
    for item in _spans(data):
        _without(item, "gen_ai.completion.0.tool_calls.0.name", "gen_ai.prompt.2.tool_calls.0.name")
    assert "/turns/0/steps/0/response/tool_calls/0/name: must not be empty" in _refused(tmp_path, data)


def test_openllmetrys_model_calls_each_a_trace_of_its_own_are_one_run(tmp_path: Path) -> None:
    # No workflow span wraps the run: each call is a trace, the later one carrying the
    # earlier one's request and reply, from which the whole case is read.
    data = _load("openllmetry_0.54.0")
    for resource in data["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            scope["spans"] = [item for item in scope["spans"] if item["name"] == "openai.chat"]
    first, last = _spans(data)
    last["traceId"], last["parentSpanId"] = "0af7651916cd43dd8448eb211c80319c", ""
    first["parentSpanId"] = ""
    source = tmp_path / "trace.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    result = invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.stderr
    assert f"trace {first['traceId']} is the start of trace {last['traceId']}'s run, imported with it" in (
        result.stderr
    )
    (path,) = (tmp_path / "out").glob("*.json")
    fixture = json.loads(path.read_text(encoding="utf-8"))
    assert fixture["provenance"]["span_ids"] == [first["spanId"], last["spanId"]]
