"""LangSmith run exports, read field by field: a root run with its `child_runs`, a flat
list (JSON or JSON lines) that names each run's trace, or both at once; each run's
tokens, tool runs (their arguments, results, errors and statuses), the provider, the
agent, when the run started, and the runs that never ended."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.importing.expected_weather import weather_fixture
from tests.support.invoke import Result, invoke

TRACE = "5e1f7c3a-0000-4000-8000-000000000001"
OTHER = "5e1f7c3a-0000-4000-8000-000000000002"
QUESTION = {"role": "user", "content": "What is the weather in Paris?"}
TOOLS = [{"type": "function", "function": {"name": "get_weather"}}]


def _call(call_id: str = "call_1", city: str = "Paris") -> dict[str, Any]:
    arguments = json.dumps({"city": city})
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": arguments}}
        ],
    }


def _result(content: str = "sunny, 21C", call_id: str = "call_1") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


ANSWER = {"role": "assistant", "content": "It is sunny in Paris."}


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": message}]}


def _run(run_id: str, run_type: str, second: int, **fields: Any) -> dict[str, Any]:
    run: dict[str, Any] = {
        "id": run_id,
        "name": "ChatOpenAI" if run_type == "llm" else "get_weather",
        "run_type": run_type,
        "trace_id": TRACE,
        "parent_run_id": TRACE,
        "start_time": f"2026-12-01T09:00:{second:02d}.000000",
        "end_time": f"2026-12-01T09:00:{second:02d}.500000",
    }
    run.update(fields)
    return run


def _runs(**tool: Any) -> list[dict[str, Any]]:
    """A flat `list_runs` of one trace: the root, a model call asking for the weather, the
    tool run, the model's answer; `tool` changes the tool run."""
    root = _run(TRACE, "chain", 0, name="weather", parent_run_id=None, inputs={}, outputs={})
    metadata = {"extra": {"metadata": {"ls_provider": "openai", "ls_model_name": "gpt-4o"}}}
    first = _run(
        "r1",
        "llm",
        1,
        inputs={"messages": [QUESTION], "tools": TOOLS},
        outputs=_completion(_call()),
        prompt_tokens=11,
        completion_tokens=7,
        **metadata,
    )
    ran = _run("r2", "tool", 2, inputs={"city": "Paris"}, outputs={"output": "sunny, 21C"})
    ran.update(tool)
    last = _run(
        "r3",
        "llm",
        3,
        inputs={"messages": [QUESTION, _call(), _result()], "tools": TOOLS},
        outputs=_completion(ANSWER),
        prompt_tokens=23,
        completion_tokens=5,
        **metadata,
    )
    return [root, first, ran, last]


def _import(tmp_path: Path, data: Any, *, lines: bool = False) -> Result:
    source = tmp_path / "runs.json"
    if lines:
        source.write_text("\n".join(json.dumps(item) for item in data) + "\n", encoding="utf-8")
    else:
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


def _expected(tmp_path: Path, **changes: Any) -> dict[str, Any]:
    """The fixture of `_runs()`, every field."""
    provenance = {
        "format": "langsmith",
        "source": str(tmp_path / "runs.json"),
        "trace_id": TRACE,
        "span_ids": ["r1", "r2", "r3"],
        "provider": "openai",
        "started": "2026-12-01T09:00:00.000Z",
    }
    fixture = weather_fixture("weather_5e1f7c3a", provenance)
    fixture.update(changes)
    return fixture


def test_a_flat_run_list_is_written_whole(tmp_path: Path) -> None:
    result = _import(tmp_path, _runs())
    assert result.code == 0, result.stderr
    assert _only(tmp_path) == _expected(tmp_path)


def test_runs_as_json_lines_are_the_same_trace(tmp_path: Path) -> None:
    assert _import(tmp_path, _runs(), lines=True).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_root_run_with_its_child_runs_nested_is_the_same_trace(tmp_path: Path) -> None:
    root, first, ran, last = _runs()
    first["child_runs"] = "none"  # not a list: no children
    root["child_runs"] = [first, {"run_type": "tool"}, {**ran, "child_runs": [last]}]
    assert _import(tmp_path, root).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_langsmith_run_seen_twice_is_read_once(tmp_path: Path) -> None:
    # A flat list whose root also nests its children: each child twice.
    runs = _runs()
    runs[0]["child_runs"] = [dict(run) for run in runs[1:]]
    assert _import(tmp_path, runs).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_run_exported_with_its_children_nested_and_again_without_them_is_read_once(
    tmp_path: Path,
) -> None:
    # `read_run(load_child_runs=True)` and `list_runs` of one trace in one file: the root
    # twice, once holding its children; they are runs of their own, not other content.
    runs = _runs()
    nested = {**runs[0], "child_runs": [dict(run) for run in runs[1:]]}
    assert _import(tmp_path, [nested, *runs]).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_the_run_started_at_the_earliest_start_of_its_runs(tmp_path: Path) -> None:
    runs = _runs()
    runs.append(runs.pop(0))  # the root listed last
    runs[0]["start_time"] = "2026-12-01T09:00:01.250000"
    assert _import(tmp_path, runs).code == 0
    assert _only(tmp_path)["provenance"]["started"] == "2026-12-01T09:00:00.000Z"


def test_a_run_without_a_start_time_does_not_move_the_start(tmp_path: Path) -> None:
    runs = _runs()
    runs.append(runs.pop(0))
    del runs[1]["start_time"]  # the tool run
    assert _import(tmp_path, runs).code == 0
    assert _only(tmp_path)["provenance"]["started"] == "2026-12-01T09:00:00.000Z"


def test_the_first_run_without_a_start_time_leaves_the_start_to_the_others(tmp_path: Path) -> None:
    runs = _runs()
    del runs[0]["start_time"]
    assert _import(tmp_path, runs).code == 0
    assert _only(tmp_path)["provenance"]["started"] == "2026-12-01T09:00:01.000Z"


def test_runs_of_two_traces_are_two_fixtures(tmp_path: Path) -> None:
    other = _runs()
    for run in other:
        run["trace_id"] = OTHER
        run["id"] = f"{run['id']}-b" if run["id"] != TRACE else OTHER
    other[0]["name"] = "forecast"
    assert _import(tmp_path, _runs() + other).code == 0
    fixtures = _fixtures(tmp_path)
    assert sorted(fixtures) == ["forecast_5e1f7c3a", "weather_5e1f7c3a"]
    assert fixtures["forecast_5e1f7c3a"]["provenance"]["trace_id"] == OTHER
    assert fixtures["forecast_5e1f7c3a"]["provenance"]["span_ids"] == ["r1-b", "r2-b", "r3-b"]


def test_a_run_that_names_no_trace_is_a_trace_of_its_own(tmp_path: Path) -> None:
    only = _run("lone-run", "llm", 1, inputs={"messages": [QUESTION]}, outputs=_completion(ANSWER))
    del only["trace_id"]
    del only["parent_run_id"]
    assert _import(tmp_path, [only]).code == 0
    fixture = _only(tmp_path)
    # The root names the agent: here the model call itself.
    assert fixture["model_name"] == "chatopenai_lonerun"
    assert fixture["provenance"]["trace_id"] == "lone-run"
    assert fixture["turns"] == [
        {
            "user_input": "What is the weather in Paris?",
            "steps": [{"response": {"type": "text", "content": "It is sunny in Paris."}}],
        }
    ]


def test_a_root_without_a_name_names_no_agent(tmp_path: Path) -> None:
    runs = _runs()
    runs[0]["name"] = ""
    assert _import(tmp_path, runs).code == 0
    assert _only(tmp_path)["model_name"] == "trace_5e1f7c3a"


def test_a_provider_is_read_only_from_text_in_the_metadata(tmp_path: Path) -> None:
    runs = _runs()
    runs[1]["extra"] = {"metadata": {"ls_provider": ""}}
    runs[3]["extra"] = {"metadata": {"ls_provider": "anthropic"}}
    assert _import(tmp_path, runs).code == 0
    assert _only(tmp_path)["provenance"]["provider"] == "anthropic"


def test_runs_without_a_provider_in_their_metadata_name_none(tmp_path: Path) -> None:
    runs = _runs()
    runs[1]["extra"] = {"metadata": "openai"}
    runs[3]["extra"] = "openai"
    assert _import(tmp_path, runs).code == 0
    assert "provider" not in _only(tmp_path)["provenance"]


def test_a_tool_run_with_an_error_is_written_as_the_failure_it_was(tmp_path: Path) -> None:
    assert _import(tmp_path, _runs(error="TimeoutError: the weather service did not answer")).code == 0
    fixture = _only(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": {"city": "Paris"}, "status": "error"}
    ]
    assert "all_tools_succeeded" not in fixture["expects"]
    # What the agent fed back is the result the replay answers with, marked a failure.
    assert fixture["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C", "success": False}]
    }


def test_a_tool_run_the_agent_did_not_feed_back_answers_with_its_error(tmp_path: Path) -> None:
    runs = _runs(error="TimeoutError: no answer", outputs=None)
    runs[3]["inputs"] = {"messages": [QUESTION, _call()], "tools": TOOLS}  # the result not sent back
    assert _import(tmp_path, runs).code == 0
    fixture = _only(tmp_path)
    assert fixture["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": "TimeoutError: no answer", "success": False}]
    }
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"


def test_a_tool_run_with_an_error_status_and_no_error_text_keeps_its_output(tmp_path: Path) -> None:
    runs = _runs(status="error")
    runs[3]["inputs"] = {"messages": [QUESTION, _call()], "tools": TOOLS}
    assert _import(tmp_path, runs).code == 0
    assert _only(tmp_path)["tool_doubles"] == {
        "get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C", "success": False}]
    }


@pytest.mark.parametrize(
    "tool",
    [{"status": "ERROR"}, {"status": " Error "}, {"outputs": {"error": "TimeoutError: no answer"}}],
    ids=["status-in-capitals", "status-padded", "outputs-only-an-error"],
)
def test_other_marks_of_a_failed_tool_run_are_read(tmp_path: Path, tool: dict[str, Any]) -> None:
    assert _import(tmp_path, _runs(**tool)).code == 0
    fixture = _only(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"
    assert "all_tools_succeeded" not in fixture["expects"]


def test_a_second_run_of_a_call_that_failed_makes_the_call_failed(tmp_path: Path) -> None:
    # The same tool run twice for one call (a retry the trace kept): the first succeeded,
    # the later one failed. The first was taken and the call certified as a success.
    runs = _runs()
    again = _run("r2b", "tool", 2, inputs={"city": "Paris"}, outputs=None, error="TimeoutError")
    runs.insert(3, again)
    assert _import(tmp_path, runs).code == 0
    fixture = _only(tmp_path)
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "error"
    assert "all_tools_succeeded" not in fixture["expects"]


def test_a_tool_run_with_a_success_status_and_no_error_succeeded(tmp_path: Path) -> None:
    assert _import(tmp_path, _runs(status="success", error=None)).code == 0
    assert _only(tmp_path)["expects"]["all_tools_succeeded"] is True


def _unsent(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs with the tool's result not sent back to the model: only the tool run has it."""
    runs[3]["inputs"] = {"messages": [QUESTION, _call()], "tools": TOOLS}
    return runs


def test_a_tool_runs_output_that_is_not_text_is_its_json(tmp_path: Path) -> None:
    runs = _unsent(_runs(outputs={"output": {"temperature": 21, "sky": "sunny"}}))
    assert _import(tmp_path, runs).code == 0
    (double,) = _only(tmp_path)["tool_doubles"]["get_weather"]
    assert double["result"] == '{"temperature":21,"sky":"sunny"}'


def test_a_tool_runs_outputs_without_an_output_key_are_the_result(tmp_path: Path) -> None:
    runs = _unsent(_runs(outputs={"forecast": "sunny"}))
    assert _import(tmp_path, runs).code == 0
    (double,) = _only(tmp_path)["tool_doubles"]["get_weather"]
    assert double["result"] == '{"forecast":"sunny"}'


def test_a_tool_runs_text_outputs_are_the_result(tmp_path: Path) -> None:
    runs = _unsent(_runs(outputs="sunny and warm"))
    assert _import(tmp_path, runs).code == 0
    (double,) = _only(tmp_path)["tool_doubles"]["get_weather"]
    assert double["result"] == "sunny and warm"


def test_a_langchain_tool_runs_one_input_is_its_argument_text(tmp_path: Path) -> None:
    runs = _unsent(_runs(inputs={"input": '{"city": "Paris"}'}))
    assert _import(tmp_path, runs).code == 0
    fixture = _only(tmp_path)
    assert fixture["tool_doubles"] == {"get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]}
    assert fixture["expects"]["trajectory"]["calls"][0]["status"] == "ok"


def test_a_langchain_tool_runs_one_input_of_other_arguments_answers_no_call(tmp_path: Path) -> None:
    runs = _unsent(_runs(inputs={"input": '{"city": "Lyon"}'}))
    result = _import(tmp_path, runs)
    assert result.code == 1
    assert "the tool call get_weather (id call_1) has no result" in result.stderr


def test_a_tool_run_with_other_arguments_answers_no_call(tmp_path: Path) -> None:
    # Its `input` beside another keyword is not LangChain's one argument: the call's
    # arguments differ, so the run is not the call's and no result is found.
    runs = _unsent(_runs(inputs={"input": '{"city": "Paris"}', "units": "metric"}))
    result = _import(tmp_path, runs)
    assert result.code == 1
    assert "the tool call get_weather (id call_1) has no result" in result.stderr


def test_a_run_that_never_ended_is_refused_naming_it(tmp_path: Path) -> None:
    runs = _runs()
    runs[1]["end_time"] = None
    result = _import(tmp_path, runs)
    assert result.code == 1
    assert f"refused: trace {TRACE}: span r1 (ChatOpenAI): the span never ended" in result.stderr


def test_a_failed_model_run_the_agent_retried_is_no_step(tmp_path: Path) -> None:
    runs = _runs()
    failed = _run("r0", "llm", 1, inputs={"messages": [QUESTION], "tools": TOOLS}, outputs=None)
    failed["error"] = "RateLimitError"
    runs.insert(1, failed)
    assert _import(tmp_path, runs).code == 0
    assert _only(tmp_path) == _expected(tmp_path)


def test_a_model_run_whose_status_says_error_is_a_failed_request(tmp_path: Path) -> None:
    runs = _runs()
    failed = _run(
        "r0", "llm", 1, inputs={"messages": [QUESTION], "tools": TOOLS}, outputs=None, status="error"
    )
    runs.insert(1, failed)
    assert _import(tmp_path, runs).code == 0
    assert _only(tmp_path)["provenance"]["span_ids"] == ["r1", "r2", "r3"]


def test_token_counts_are_written_only_as_the_counts_a_fixture_takes(tmp_path: Path) -> None:
    runs = _runs()
    runs[1]["prompt_tokens"] = "31"
    runs[1]["completion_tokens"] = -4
    runs[3]["prompt_tokens"] = True
    runs[3]["completion_tokens"] = "12.5"
    assert _import(tmp_path, runs).code == 0
    first, last = (step["response"] for step in _only(tmp_path)["turns"][0]["steps"])
    assert (first.get("input_tokens"), first.get("output_tokens")) == (31, None)
    assert (last.get("input_tokens"), last.get("output_tokens")) == (None, None)


def test_langchain_messages_as_message_to_dict_writes_them_are_read(tmp_path: Path) -> None:
    def message(kind: str, **data: Any) -> dict[str, Any]:
        return {"type": kind, "data": data}

    system = message("system", content="You answer about the weather.")
    human = message("human", content="What is the weather in Paris?")
    called = message(
        "ai", content="", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}]
    )
    tool = message("tool", content="sunny, 21C", tool_call_id="c1")
    runs = [
        _run(
            "r1",
            "llm",
            1,
            inputs={"messages": [system, human]},
            outputs={"generations": [[{"message": called}]]},
        ),
        _run(
            "r2",
            "llm",
            2,
            inputs={"messages": [system, human, called, tool]},
            outputs={"generations": [{"text": "Sunny in Paris."}]},
        ),
    ]
    assert _import(tmp_path, runs).code == 0
    fixture = _only(tmp_path)
    assert fixture["turns"] == [
        {
            "user_input": "What is the weather in Paris?",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}],
                    }
                },
                {"response": {"type": "text", "content": "Sunny in Paris."}},
            ],
        }
    ]
    # The tool message says no error: nothing proves the outcome either way.
    assert fixture["expects"]["trajectory"]["calls"] == [{"tool": "get_weather", "args": {"city": "Paris"}}]
    assert fixture["tool_doubles"] == {"get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 21C"}]}
