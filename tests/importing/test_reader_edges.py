"""Each reader at the edges of what its source may hold: LangSmith runs listed children
first, unnamed, failed without outputs, or marking an empty error; Langfuse traces with
no time, unnamed or untyped records, observations without ids; the GenAI conventions'
older per-message events (a choice with no index or no message, results fed back out of
order, text results); a Logfire Responses API span without its response."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.importing.otlp_docs import document, span
from tests.importing.test_captured_agents_sdk import _set, _span
from tests.importing.test_captured_variants import _load, _refused as _refused_otlp
from tests.importing.test_genai_spans import FIRST, LAST, OPENAI_CALL, _log
from tests.importing.test_langfuse_observations import _observation, _trace
from tests.importing.test_langsmith_runs import TOOLS, _expected, _import, _only, _run, _runs
from tests.support.invoke import Result, invoke


def _import_any(tmp_path: Path, data: Any) -> Result:
    source = tmp_path / "export.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    return invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))


def _written(tmp_path: Path) -> dict[str, Any]:
    (path,) = (tmp_path / "out").glob("*.json")
    fixture: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return fixture


# LangSmith


def test_the_root_run_names_the_agent_wherever_it_is_listed(tmp_path: Path) -> None:
    root, *children = _runs()
    assert _import(tmp_path, [*children, root]).code == 0
    assert _only(tmp_path)["model_name"] == "weather_5e1f7c3a"


def test_a_failed_model_run_with_a_request_of_its_own_is_no_step(tmp_path: Path) -> None:
    runs = _runs()
    asked = {"role": "user", "content": "Weather in Paris, please?"}
    failed = _run(
        "r0", "llm", 1, inputs={"messages": [asked], "tools": TOOLS}, outputs=None, error="RateLimitError"
    )
    runs.insert(1, failed)
    assert _import(tmp_path, runs).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_an_unnamed_model_run_without_outputs_is_refused_naming_its_id(tmp_path: Path) -> None:
    runs = _runs()
    runs[3]["name"] = None
    runs[3]["outputs"] = None
    result = _import(tmp_path, runs)
    assert result.code == 1
    assert (
        "span r3: outputs: the model call recorded no reply, so there is no step to script" in result.stderr
    )


def test_a_tool_run_whose_outputs_hold_an_empty_error_succeeded(tmp_path: Path) -> None:
    runs = _runs(outputs={"error": ""})
    assert _import(tmp_path, runs).code == 0
    fixture = _only(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "ok"
    assert fixture["expects"]["all_tools_succeeded"] is True


def test_a_provider_that_is_no_text_names_none(tmp_path: Path) -> None:
    runs = _runs()
    for run in runs[1::2]:
        run["extra"] = {"metadata": {"ls_provider": 5}}
    assert _import(tmp_path, runs).code == 0
    assert "provider" not in _only(tmp_path)["provenance"]


# Langfuse


def test_a_langfuse_trace_without_a_time_starts_at_no_known_time(tmp_path: Path) -> None:
    trace = _trace()
    del trace["timestamp"]
    for observation in trace["observations"]:
        observation["startTime"] = None
    assert _import_any(tmp_path, trace).code == 0
    assert "started" not in _written(tmp_path)["provenance"]


def test_a_langfuse_trace_named_by_no_text_is_named_by_its_agent_observation(tmp_path: Path) -> None:
    trace = _trace()
    trace["name"] = 42
    trace["observations"].insert(0, _observation("o0", "AGENT", 0, name="Desk"))
    assert _import_any(tmp_path, trace).code == 0
    assert _written(tmp_path)["model_name"].startswith("desk_")


def test_a_langfuse_agent_named_by_no_text_and_an_environment_of_no_text_name_nothing(tmp_path: Path) -> None:
    trace = _trace()
    del trace["name"]
    trace["environment"] = 5
    trace["observations"].insert(0, _observation("o0", "AGENT", 0, name=7))
    assert _import_any(tmp_path, trace).code == 0
    fixture = _written(tmp_path)
    assert fixture["model_name"].startswith("trace_")
    assert "service" not in fixture["provenance"]


def test_a_failed_langfuse_generation_with_a_request_of_its_own_is_no_step(tmp_path: Path) -> None:
    trace = _trace()
    asked = {"role": "user", "content": "Weather in Paris, please?"}
    failed = _observation("o0", "GENERATION", 0, input=[asked], output=None, level="ERROR")
    trace["observations"].insert(0, failed)
    assert _import_any(tmp_path, trace).code == 0
    steps = _written(tmp_path)["turns"][0]["steps"]
    assert [step["response"]["type"] for step in steps] == ["tool_calls", "text"]


def test_langfuse_observations_without_ids_are_each_read(tmp_path: Path) -> None:
    trace = _trace()
    for observation in trace["observations"]:
        del observation["id"]
    result = _import_any(tmp_path, trace)
    assert result.code == 0, result.stderr
    fixture = _written(tmp_path)
    assert [step["response"]["type"] for step in fixture["turns"][0]["steps"]] == ["tool_calls", "text"]
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "ok"


def test_a_page_of_observations_one_of_them_untyped_is_no_langfuse_export(tmp_path: Path) -> None:
    observations = _trace()["observations"]
    del observations[1]["type"]
    result = _import_any(tmp_path, {"data": observations})
    assert result.code == 2
    assert "not a trace export this command reads" in result.stderr


# The GenAI conventions' older per-message events


def _events_run(tmp_path: Path, records: list[dict[str, Any]]) -> Result:
    legacy = {"gen_ai.operation.name": "chat", "gen_ai.system": "openai"}
    data = document([span(FIRST, "chat gpt-4o", 1, legacy), span(LAST, "chat gpt-4o", 40, legacy)])
    data["resourceLogs"] = [{"scopeLogs": [{"logRecords": records}]}]
    return _import_any(tmp_path, data)


LYON_CALL = {
    "id": "call_2",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city":"Lyon"}'},
}


def test_older_events_results_fed_back_out_of_order_answer_their_calls_by_id(tmp_path: Path) -> None:
    records = [
        _log(FIRST, 1, "gen_ai.user.message", {"content": "Paris and Lyon?"}),
        _log(
            FIRST,
            2,
            "gen_ai.choice",
            {"message": {"role": "assistant", "tool_calls": [OPENAI_CALL, LYON_CALL]}},
        ),
        _log(LAST, 3, "gen_ai.user.message", {"content": "Paris and Lyon?"}),
        _log(LAST, 4, "gen_ai.assistant.message", {"tool_calls": [OPENAI_CALL, LYON_CALL]}),
        _log(LAST, 5, "gen_ai.tool.message", {"content": "rainy in Lyon", "id": "call_2"}),
        _log(LAST, 6, "gen_ai.tool.message", {"content": "sunny in Paris", "id": "call_1"}),
        _log(LAST, 7, "gen_ai.choice", {"index": 0, "message": {"content": "Sunny, and rainy."}}),
    ]
    result = _events_run(tmp_path, records)
    assert result.code == 0, result.stderr
    assert _written(tmp_path)["tool_doubles"] == {
        "get_weather": [
            {"when": {"city": "Paris"}, "result": "sunny in Paris"},
            {"when": {"city": "Lyon"}, "result": "rainy in Lyon"},
        ]
    }


def test_an_older_choice_event_without_an_index_or_a_message_is_the_reply(tmp_path: Path) -> None:
    records = [
        _log(FIRST, 1, "gen_ai.user.message", {"content": "What is the weather in Paris?"}),
        _log(FIRST, 2, "gen_ai.choice", {"message": None, "tool_calls": [OPENAI_CALL]}),
        _log(LAST, 3, "gen_ai.user.message", {"content": "What is the weather in Paris?"}),
        _log(LAST, 4, "gen_ai.assistant.message", {"tool_calls": [OPENAI_CALL]}),
        _log(LAST, 5, "gen_ai.tool.message", {"content": "sunny, 21C", "id": "call_1"}),
        _log(LAST, 6, "gen_ai.choice", {"message": {"content": "Sunny."}}),
    ]
    result = _events_run(tmp_path, records)
    assert result.code == 0, result.stderr
    fixture = _written(tmp_path)
    assert [step["response"] for step in fixture["turns"][0]["steps"]] == [
        {
            "type": "tool_calls",
            "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}],
        },
        {"type": "text", "content": "Sunny."},
    ]
    # A text result is the result as written, not its JSON.
    assert fixture["tool_doubles"] == {"get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]}


# Logfire


def test_a_responses_api_span_without_its_response_is_refused_naming_it(tmp_path: Path) -> None:
    data = _load("logfire_openai_agents_responses")
    last = _span(data, "Responses API with", 1)
    last["attributes"] = [pair for pair in last["attributes"] if pair["key"] != "response"]
    stderr = _refused_otlp(tmp_path, data)
    assert (
        f"span {last['spanId']} (Responses API with {{gen_ai.request.model!r}}): response: the model call"
        in stderr
    )


@pytest.mark.parametrize("response", ['"done"', "[1, 2]"], ids=["text", "list"])
def test_a_responses_api_span_whose_response_is_no_object_recorded_no_reply(
    tmp_path: Path, response: str
) -> None:
    data = _load("logfire_openai_agents_responses")
    last = _span(data, "Responses API with", 1)
    _set(last, "response", response)
    assert "the model call recorded no reply" in _refused_otlp(tmp_path, data)


@pytest.mark.parametrize("observed", [False, True], ids=["time", "observed-time"])
def test_older_choice_events_listed_latest_first_are_read_in_the_order_they_happened(
    tmp_path: Path, observed: bool
) -> None:
    records = [
        _log(
            FIRST,
            2,
            "gen_ai.choice",
            {"index": 0, "message": {"tool_calls": [OPENAI_CALL]}},
            observed=observed,
        ),
        _log(
            FIRST, 1, "gen_ai.user.message", {"content": "What is the weather in Paris?"}, observed=observed
        ),
        _log(LAST, 9, "gen_ai.choice", {"index": 0, "message": {"content": "Later."}}, observed=observed),
        _log(LAST, 8, "gen_ai.choice", {"index": 0, "message": {"content": "Sunny."}}, observed=observed),
        _log(LAST, 7, "gen_ai.tool.message", {"content": "sunny, 21C", "id": "call_1"}, observed=observed),
        _log(LAST, 6, "gen_ai.assistant.message", {"tool_calls": [OPENAI_CALL]}, observed=observed),
        _log(LAST, 5, "gen_ai.user.message", {"content": "What is the weather in Paris?"}, observed=observed),
    ]
    result = _events_run(tmp_path, records)
    assert result.code == 0, result.stderr
    steps = _written(tmp_path)["turns"][0]["steps"]
    assert steps[-1]["response"] == {"type": "text", "content": "Sunny."}
