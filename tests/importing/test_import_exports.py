"""Langfuse and LangSmith exports in the shapes their APIs document, and the shapes the
SDKs they wrap record (LangChain's serialized messages and generations): what is read,
and what is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.invoke import Result, invoke

TRACE_ID = "7f3c2a10-0000-4000-8000-00000000abcd"
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


def _import(tmp_path: Path, data: Any) -> Result:
    source = tmp_path / "export.json"
    source.write_text(json.dumps(data))
    return invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))


def _fixture(tmp_path: Path) -> dict[str, Any]:
    (path,) = (tmp_path / "out").glob("*.json")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _run(run_id: str, run_type: str, start: str, inputs: Any, outputs: Any, **extra: Any) -> dict[str, Any]:
    return {
        "id": run_id,
        "name": extra.pop("name", "ChatOpenAI" if run_type == "llm" else "get_weather"),
        "run_type": run_type,
        "trace_id": TRACE_ID,
        "parent_run_id": TRACE_ID,
        "start_time": f"2026-12-01T09:00:0{start}.000000",
        "end_time": f"2026-12-01T09:00:0{start}.500000",
        "inputs": inputs,
        "outputs": outputs,
        **extra,
    }


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": message}]}


def _langsmith_runs(tool_error: str | None = None, last_outputs: Any = "default") -> list[dict[str, Any]]:
    """`list_runs` of one trace: a flat list, the root first, each run naming its trace."""
    root = {
        **_run(TRACE_ID, "chain", "0", {"question": "?"}, {"output": "It is sunny in Paris."}),
        "name": "weather",
    }
    root["parent_run_id"] = None
    tools = [{"type": "function", "function": {"name": "get_weather"}}]
    outputs = _completion(ANSWER) if last_outputs == "default" else last_outputs
    return [
        root,
        _run("r1", "llm", "1", {"messages": [QUESTION], "tools": tools}, _completion(CALL)),
        _run("r2", "tool", "2", {"city": "Paris"}, {"output": "sunny, 21C"}, error=tool_error),
        _run("r3", "llm", "3", {"messages": [QUESTION, CALL, RESULT], "tools": tools}, outputs),
    ]


def test_a_flat_langsmith_run_list_is_one_trace(tmp_path: Path) -> None:
    result = _import(tmp_path, _langsmith_runs())
    assert result.code == 0, result.stderr
    fixture = _fixture(tmp_path)
    assert fixture["model_name"] == "weather_7f3c2a10"
    assert fixture["provenance"]["span_ids"] == ["r1", "r2", "r3"]
    assert fixture["expects"]["tools_offered"] == ["get_weather"]
    assert fixture["provenance"]["started"] == "2026-12-01T09:00:00.000Z"


def test_a_langsmith_llm_run_without_outputs_is_refused_naming_it(tmp_path: Path) -> None:
    result = _import(tmp_path, _langsmith_runs(last_outputs=None))
    assert result.code == 1
    assert f"refused: trace {TRACE_ID}: span r3 (ChatOpenAI): outputs:" in result.stderr


def test_langchain_serialized_messages_and_generations(tmp_path: Path) -> None:
    """What LangChain's callbacks record: batched serialized messages, `generations`."""

    def lc(kind: str, **kwargs: Any) -> dict[str, Any]:
        return {
            "lc": 1,
            "type": "constructor",
            "id": ["langchain", "schema", "messages", kind],
            "kwargs": kwargs,
        }

    human = lc("HumanMessage", content="What is the weather in Paris?")
    ai_call = lc(
        "AIMessage", content="", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}]
    )
    tool = lc("ToolMessage", content="Error: the weather service is down", tool_call_id="c1", status="error")
    runs = [
        _run(
            "r1", "llm", "1", {"messages": [[human]]}, {"generations": [[{"text": "", "message": ai_call}]]}
        ),
        _run(
            "r2",
            "llm",
            "2",
            {"messages": [[human, ai_call, tool]]},
            {
                "generations": [
                    [{"text": "Sorry, no weather.", "message": lc("AIMessage", content="Sorry, no weather.")}]
                ]
            },
        ),
    ]
    result = _import(tmp_path, runs)
    assert result.code == 0, result.stderr
    fixture = _fixture(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": {"city": "Paris"}, "status": "error"}
    ]
    assert fixture["expects"]["response_contains"] == ["Sorry, no weather."]


def _observation(obs_id: str, kind: str, start: int, **fields: Any) -> dict[str, Any]:
    return {
        "id": obs_id,
        "traceId": "lf-trace-1",
        "type": kind,
        "name": fields.pop("name", kind.lower()),
        "startTime": f"2026-12-01T09:00:0{start}.000Z",
        "endTime": fields.pop("endTime", f"2026-12-01T09:00:0{start}.500Z"),
        "level": fields.pop("level", "DEFAULT"),
        **fields,
    }


def _langfuse_trace(**changes: Any) -> dict[str, Any]:
    """`GET /api/public/traces/{id}`: the trace with its observations."""
    tools = [{"type": "function", "function": {"name": "get_weather"}}]
    observations = [
        _observation("o1", "GENERATION", 1, input={"messages": [QUESTION], "tools": tools}, output=CALL),
        _observation("o2", "TOOL", 2, name="get_weather", input={"city": "Paris"}, output="sunny, 21C"),
        _observation(
            "o3", "GENERATION", 3, input=[QUESTION, CALL, RESULT], output=ANSWER, usage={"input": 9}
        ),
    ]
    for index, change in changes.items():
        observations[int(index[1:])].update(change)
    return {
        "id": "lf-trace-1",
        "name": "weather",
        "timestamp": "2026-12-01T09:00:00.000Z",
        "observations": observations,
    }


def test_a_langfuse_page_of_traces_is_read(tmp_path: Path) -> None:
    result = _import(tmp_path, {"data": [_langfuse_trace()], "meta": {"page": 1}})
    assert result.code == 0, result.stderr
    fixture = _fixture(tmp_path)
    assert fixture["provenance"]["format"] == "langfuse"
    assert fixture["turns"][0]["steps"][1]["response"]["input_tokens"] == 9


def test_a_langfuse_trace_without_an_id_is_refused_for_its_provenance(tmp_path: Path) -> None:
    trace = _langfuse_trace()
    del trace["id"]
    result = _import(tmp_path, trace)
    assert result.code == 1
    assert (
        "refused: trace : the fixture made of it is not admitted: /provenance/trace_id: must not be empty"
        in result.stderr
    )


def test_a_langfuse_generation_without_output_is_refused(tmp_path: Path) -> None:
    result = _import(tmp_path, _langfuse_trace(o2={"output": None}))
    assert result.code == 1
    assert "span o3 (generation): output:" in result.stderr


def test_a_langfuse_observation_that_never_ended_is_refused(tmp_path: Path) -> None:
    result = _import(tmp_path, _langfuse_trace(o0={"endTime": None}))
    assert result.code == 1
    assert "span o1 (generation): the span never ended" in result.stderr


def test_anthropic_messages_recorded_by_langsmith_map_onto_the_same_fixture(tmp_path: Path) -> None:
    """`wrap_anthropic` records the Messages request and the Message the API returned."""
    tools = [{"name": "get_weather", "description": "The weather.", "input_schema": {"type": "object"}}]
    use = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
    question = {"role": "user", "content": "What is the weather in Paris?"}
    called = {"role": "assistant", "content": [use]}
    answered = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}],
    }

    def message(*blocks: dict[str, Any]) -> dict[str, Any]:
        return {"type": "message", "role": "assistant", "content": list(blocks), "usage": {"input_tokens": 5}}

    request = {"model": "claude", "system": "You are a weather assistant.", "tools": tools, "max_tokens": 100}
    runs = [
        _run("r1", "llm", "1", {**request, "messages": [question]}, message(use)),
        _run(
            "r2",
            "llm",
            "2",
            {**request, "messages": [question, called, answered]},
            message({"type": "text", "text": "Sunny."}),
        ),
    ]
    result = _import(tmp_path, runs)
    assert result.code == 0, result.stderr
    fixture = _fixture(tmp_path)
    call = fixture["turns"][0]["steps"][0]["response"]["tool_calls"][0]
    assert call == {"id": "toolu_1", "name": "get_weather", "arguments": {"city": "Paris"}}
    assert fixture["expects"]["tool_results_contain"][0]["needle"] == "sunny"
    assert fixture["expects"]["tools_offered"] == ["get_weather"]


def _statuses(fixture: dict[str, Any]) -> list[str | None]:
    return [call.get("status") for call in fixture["expects"]["trajectory"]["calls"]]


def test_a_langsmith_tool_run_with_an_error_is_a_failed_call_even_when_the_agent_fed_back_text(
    tmp_path: Path,
) -> None:
    """The result the agent fed back reads as a success; the tool run's `error` says it failed."""
    assert _import(tmp_path, _langsmith_runs(tool_error="URLError: <urlopen error refused>")).code == 0
    fixture = _fixture(tmp_path)
    assert _statuses(fixture) == ["error"]
    assert "all_tools_succeeded" not in fixture["expects"]
    assert fixture["tool_doubles"]["get_weather"][0]["success"] is False


def test_a_langsmith_tool_run_whose_status_says_error_is_a_failed_call(tmp_path: Path) -> None:
    runs = _langsmith_runs()
    runs[2]["status"] = "error"
    assert _import(tmp_path, runs).code == 0
    assert _statuses(_fixture(tmp_path)) == ["error"]


def test_a_langsmith_tool_run_that_ended_cleanly_proves_the_call_succeeded(tmp_path: Path) -> None:
    assert _import(tmp_path, _langsmith_runs()).code == 0
    fixture = _fixture(tmp_path)
    assert _statuses(fixture) == ["ok"]
    assert fixture["expects"]["all_tools_succeeded"] is True


def test_a_langfuse_tool_observation_at_level_error_is_a_failed_call(tmp_path: Path) -> None:
    error = {"level": "ERROR", "statusMessage": "URLError: <urlopen error refused>"}
    assert _import(tmp_path, _langfuse_trace(o1=error)).code == 0
    fixture = _fixture(tmp_path)
    assert _statuses(fixture) == ["error"]
    assert "all_tools_succeeded" not in fixture["expects"]


def test_langfuse_without_a_tool_observation_claims_no_outcome(tmp_path: Path) -> None:
    trace = _langfuse_trace()
    del trace["observations"][1]
    assert _import(tmp_path, trace).code == 0
    fixture = _fixture(tmp_path)
    assert _statuses(fixture) == [None]
    assert "all_tools_succeeded" not in fixture["expects"]
    assert fixture["tool_doubles"] == {"get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]}
