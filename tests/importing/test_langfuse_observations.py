"""Langfuse's observations, read field by field: as its API exports them (a trace with its
observations, a page or list of traces, a page of observations) and as its SDK sends
them (OpenTelemetry spans with `langfuse.observation.*` attributes): each generation's
messages, reply and tokens, each tool observation's arguments, result, call id and
outcome, the agent, the service and when the run started."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.importing.expected_weather import weather_fixture
from tests.importing.otlp_docs import T0, document, span
from tests.support.invoke import Result, invoke

TRACE = "lf-trace-1"
QUESTION = {"role": "user", "content": "What is the weather in Paris?"}
CALL = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        }
    ],
}
RESULT = {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21C"}
ANSWER = {"role": "assistant", "content": "It is sunny in Paris."}
TOOLS = [{"type": "function", "function": {"name": "get_weather"}}]


def _observation(obs_id: str, kind: str, second: int, **fields: Any) -> dict[str, Any]:
    observation: dict[str, Any] = {
        "id": obs_id,
        "traceId": TRACE,
        "type": kind,
        "name": kind.lower(),
        "startTime": f"2026-12-01T09:00:{second:02d}.000Z",
        "endTime": f"2026-12-01T09:00:{second:02d}.500Z",
        "level": "DEFAULT",
    }
    observation.update(fields)
    return observation


def _observations(**tool: Any) -> list[dict[str, Any]]:
    ran = _observation("o2", "TOOL", 2, name="get_weather", input={"city": "Paris"}, output="sunny, 21C")
    ran.update(tool)
    return [
        _observation(
            "o1",
            "GENERATION",
            1,
            input={"messages": [QUESTION], "tools": TOOLS},
            output=CALL,
            usageDetails={"input": 11, "output": 7, "total": 18},
        ),
        ran,
        _observation(
            "o3",
            "GENERATION",
            3,
            input=[QUESTION, CALL, RESULT],
            output=ANSWER,
            usage={"prompt_tokens": 23, "completion_tokens": 5},
        ),
    ]


def _trace(**tool: Any) -> dict[str, Any]:
    return {
        "id": TRACE,
        "name": "weather",
        "timestamp": "2026-12-01T09:00:00.000Z",
        "environment": "production",
        "observations": _observations(**tool),
    }


def _import(tmp_path: Path, data: Any) -> Result:
    source = tmp_path / "export.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    return invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))


def _fixtures(tmp_path: Path) -> dict[str, dict[str, Any]]:
    return {
        path.stem: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((tmp_path / "out").glob("*.json"))
    }


def _only(tmp_path: Path) -> dict[str, Any]:
    (fixture,) = _fixtures(tmp_path).values()
    return fixture


def _expected(tmp_path: Path, source: str = "export.json") -> dict[str, Any]:
    provenance = {
        "format": "langfuse",
        "source": str(tmp_path / source),
        "trace_id": TRACE,
        "span_ids": ["o1", "o2", "o3"],
        "service": "production",
        "started": "2026-12-01T09:00:00.000Z",
    }
    return weather_fixture("weather_lftrace1", provenance, offered=False)


def test_a_trace_with_its_observations_is_written_whole(tmp_path: Path) -> None:
    result = _import(tmp_path, _trace())
    assert result.code == 0, result.stderr
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_list_of_traces_is_read_as_each_trace(tmp_path: Path) -> None:
    other = {**_trace(), "id": "lf-trace-2", "name": "forecast"}
    assert _import(tmp_path, [_trace(), other]).code == 0
    fixtures = _fixtures(tmp_path)
    assert sorted(fixtures) == ["forecast_lftrace2", "weather_lftrace1"]
    assert fixtures["weather_lftrace1"] == _expected(tmp_path)


def test_a_page_of_observations_is_grouped_by_trace(tmp_path: Path) -> None:
    observations = _observations()
    others = [{**observation, "traceId": "lf-trace-2"} for observation in _observations()]
    page = {"data": [observations[0], others[0], *observations[1:], *others[1:]], "meta": {"page": 1}}
    assert _import(tmp_path, page).code == 0
    fixtures = _fixtures(tmp_path)
    # Observations alone name neither the agent nor the environment.
    assert sorted(fixtures) == ["trace_lftrace1", "trace_lftrace2"]
    expected = _expected(tmp_path)
    del expected["provenance"]["service"]
    # No trace head: the run started with its first observation.
    expected["provenance"]["started"] = "2026-12-01T09:00:01.000Z"
    assert fixtures["trace_lftrace1"] == {**expected, "model_name": "trace_lftrace1"}


def test_an_agent_observation_names_the_agent_a_nameless_trace_does_not(tmp_path: Path) -> None:
    trace = _trace()
    trace["name"] = None
    trace["observations"].insert(0, _observation("o0", "AGENT", 0, name="forecaster"))
    trace["observations"].insert(1, _observation("o00", "AGENT", 0, name="inner"))
    assert _import(tmp_path, trace).code == 0
    assert _only(tmp_path)["model_name"] == "forecaster_lftrace1"


def test_the_traces_own_name_wins_over_an_agent_observation(tmp_path: Path) -> None:
    trace = _trace()
    trace["observations"].insert(0, _observation("o0", "AGENT", 0, name="forecaster"))
    assert _import(tmp_path, trace).code == 0
    assert _only(tmp_path)["model_name"] == "weather_lftrace1"


def test_an_agent_observation_without_a_name_names_no_agent(tmp_path: Path) -> None:
    trace = _trace()
    trace["name"] = ""
    trace["observations"].insert(0, _observation("o0", "AGENT", 0, name=""))
    assert _import(tmp_path, trace).code == 0
    # Nothing names the agent: the fixture is named by the environment.
    assert _only(tmp_path)["model_name"] == "production_lftrace1"


def test_observation_types_are_read_in_any_case(tmp_path: Path) -> None:
    trace = _trace()
    for observation in trace["observations"]:
        observation["type"] = observation["type"].lower()
    assert _import(tmp_path, trace).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_tool_observation_at_level_error_is_written_as_a_failure(tmp_path: Path) -> None:
    assert _import(tmp_path, _trace(level="error", statusMessage="TimeoutError")).code == 0
    fixture = _only(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": {"city": "Paris"}, "status": "error"}
    ]
    assert "all_tools_succeeded" not in fixture["expects"]
    assert fixture["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C", "success": False}]
    }


def test_a_tool_observation_at_level_warning_succeeded(tmp_path: Path) -> None:
    assert _import(tmp_path, _trace(level="WARNING")).code == 0
    assert _only(tmp_path)["expects"]["all_tools_succeeded"] is True


def _unsent(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace with the tool's result not sent back: only the tool observation has it."""
    trace["observations"][2]["input"] = [QUESTION, CALL]
    return trace


def test_a_tool_observations_output_that_is_not_text_is_its_json(tmp_path: Path) -> None:
    assert _import(tmp_path, _unsent(_trace(output={"sky": "sunny", "celsius": 21}))).code == 0
    (double,) = _only(tmp_path)["tool_doubles"]["get_weather"]
    assert double == {"when": {"city": "Paris"}, "result": '{"sky":"sunny","celsius":21}'}


def test_a_tool_observation_claims_its_call_by_the_call_id_in_its_metadata(tmp_path: Path) -> None:
    # Recorded with other arguments than the call's: only the id says it is the call's.
    trace = _unsent(_trace(input={"town": "Paris"}, metadata={"tool_call_id": "call_1"}))
    assert _import(tmp_path, trace).code == 0
    fixture = _only(tmp_path)
    assert fixture["tool_doubles"] == {"get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]}
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "ok"


def test_a_call_id_that_is_not_text_claims_nothing(tmp_path: Path) -> None:
    trace = _unsent(_trace(input={"town": "Paris"}, metadata={"tool_call_id": 1}))
    result = _import(tmp_path, trace)
    assert result.code == 1
    assert "the tool call get_weather (id call_1) has no result" in result.stderr


def test_a_generation_with_a_level_error_and_no_output_is_a_failed_request(tmp_path: Path) -> None:
    trace = _trace()
    failed = _observation("o0", "GENERATION", 1, input={"messages": [QUESTION]}, output=None, level="ERROR")
    trace["observations"].insert(0, failed)
    assert _import(tmp_path, trace).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_generation_without_output_is_refused_naming_it(tmp_path: Path) -> None:
    trace = _trace()
    trace["observations"][2]["output"] = None
    result = _import(tmp_path, trace)
    assert result.code == 1
    assert (
        f"refused: trace {TRACE}: span o3 (generation): output: the model call recorded no reply"
        in result.stderr
    )


def test_usage_that_is_not_an_object_counts_no_tokens(tmp_path: Path) -> None:
    trace = _trace()
    trace["observations"][0]["usageDetails"] = [11, 7]
    trace["observations"][2]["usage"] = None
    assert _import(tmp_path, trace).code == 0
    for step in _only(tmp_path)["turns"][0]["steps"]:
        assert "input_tokens" not in step["response"]
        assert "output_tokens" not in step["response"]


def test_an_observation_that_never_ended_is_refused_naming_it(tmp_path: Path) -> None:
    result = _import(tmp_path, _trace(endTime=None))
    assert result.code == 1
    assert f"refused: trace {TRACE}: span o2 (get_weather): the tool span never ended" in result.stderr


# The Langfuse SDK's spans: the same observations, as OpenTelemetry sends them.
SPAN_TRACE = "6f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"


def _sdk_spans(**tool: Any) -> list[dict[str, Any]]:
    prefix = "langfuse.observation."
    generation = {f"{prefix}type": "generation"}
    first = span(
        "a1a1a1a1a1a1a1a1",
        "OpenAI-generation",
        100,
        {
            **generation,
            f"{prefix}input": json.dumps({"messages": [QUESTION], "tools": TOOLS}),
            f"{prefix}output": json.dumps(CALL),
            f"{prefix}usage_details": json.dumps({"input": 11, "output": 7}),
        },
        trace=SPAN_TRACE,
    )
    tool_attributes: dict[str, Any] = {
        f"{prefix}type": "tool",
        f"{prefix}input": json.dumps({"city": "Paris"}),
        f"{prefix}output": "sunny, 21C",
        f"{prefix}metadata.tool_call_id": "call_1",
        f"{prefix}metadata.note": json.dumps({"unit": "C"}),
        "langfuse.other": "not an observation attribute",
    }
    status = tool.pop("status", 0)
    tool_attributes.update(tool)
    ran = span("b2b2b2b2b2b2b2b2", "get_weather", 200, tool_attributes, trace=SPAN_TRACE, status=status)
    last = span(
        "c3c3c3c3c3c3c3c3",
        "OpenAI-generation",
        300,
        {
            **generation,
            f"{prefix}input": json.dumps([QUESTION, CALL, RESULT]),
            f"{prefix}output": json.dumps(ANSWER),
            f"{prefix}usage_details": json.dumps({"prompt_tokens": 23, "completion_tokens": 5}),
        },
        trace=SPAN_TRACE,
    )
    agent = span("d4d4d4d4d4d4d4d4", "weather", 50, {f"{prefix}type": "agent"}, trace=SPAN_TRACE)
    return [agent, first, ran, last]


def test_the_sdks_spans_are_read_as_its_observations(tmp_path: Path) -> None:
    result = _import(tmp_path, document(_sdk_spans(), service="weather-service"))
    assert result.code == 0, result.stderr
    expected = _expected(tmp_path)
    expected["model_name"] = "weather_6f1c2d3e"
    expected["provenance"] = {
        **expected["provenance"],
        "trace_id": SPAN_TRACE,
        "span_ids": ["a1a1a1a1a1a1a1a1", "b2b2b2b2b2b2b2b2", "c3c3c3c3c3c3c3c3"],
        "service": "weather-service",
        "started": "2026-12-01T09:00:00.000Z",
    }
    assert _only(tmp_path) == expected
    assert T0 == 1_796_115_600_000_000_000  # the spans start 50 ns after 2026-12-01T09:00Z


def test_an_sdk_span_with_an_error_status_is_a_failed_observation(tmp_path: Path) -> None:
    assert _import(tmp_path, document(_sdk_spans(status=2))).code == 0
    fixture = _only(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"
    assert fixture["tool_doubles"]["get_weather"][0]["success"] is False


def test_an_sdk_span_at_level_error_is_a_failed_observation(tmp_path: Path) -> None:
    assert _import(tmp_path, document(_sdk_spans(**{"langfuse.observation.level": "ERROR"}))).code == 0
    assert _only(tmp_path)["expects"]["trajectory"]["calls"][0]["status"] == "error"


def test_an_sdk_tool_span_claims_its_call_by_the_call_id_in_its_metadata(tmp_path: Path) -> None:
    spans = _sdk_spans(**{"langfuse.observation.input": json.dumps({"town": "Paris"})})
    spans[3]["attributes"] = [
        item
        if item["key"] != "langfuse.observation.input"
        else {**item, "value": {"stringValue": json.dumps([QUESTION, CALL])}}
        for item in spans[3]["attributes"]
    ]
    assert _import(tmp_path, document(spans)).code == 0
    fixture = _only(tmp_path)
    assert fixture["tool_doubles"] == {"get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]}


def test_an_sdk_span_that_never_ended_is_refused(tmp_path: Path) -> None:
    spans = _sdk_spans()
    spans[1]["endTimeUnixNano"] = "0"
    result = _import(tmp_path, document(spans))
    assert result.code == 1
    assert (
        f"refused: trace {SPAN_TRACE}: span a1a1a1a1a1a1a1a1 (OpenAI-generation): the span never ended"
        in (result.stderr)
    )


def test_a_second_run_of_a_call_that_failed_makes_the_call_failed(tmp_path: Path) -> None:
    # The tool observed twice for one call: an OK observation first, the ERROR one later.
    # The first was taken: the failed refund of production was certified as a success.
    trace = _trace()
    again = _observation(
        "o2b", "TOOL", 2, name="get_weather", input={"city": "Paris"}, output=None, level="ERROR"
    )
    again["statusMessage"] = "TimeoutError: the weather service did not answer"
    trace["observations"].insert(2, again)
    assert _import(tmp_path, trace).code == 0
    fixture = _only(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"
    assert "all_tools_succeeded" not in fixture["expects"]
    assert fixture["tool_doubles"]["get_weather"][0]["success"] is False


def test_an_sdk_spans_attributes_of_other_conventions_are_passed_over(tmp_path: Path) -> None:
    spans = _sdk_spans()
    for item in spans:
        item["attributes"].insert(0, {"key": "gen_ai.system", "value": {"stringValue": "openai"}})
    data = document(spans, service="weather-service")
    data["resourceSpans"][0]["resource"]["attributes"] = []
    assert _import(tmp_path, data).code == 0
    fixture = _only(tmp_path)
    assert fixture["model_name"] == "weather_6f1c2d3e"
    assert "service" not in fixture["provenance"]
    assert fixture["tool_doubles"] == {"get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]}
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": {"city": "Paris"}, "status": "ok"}
    ]
