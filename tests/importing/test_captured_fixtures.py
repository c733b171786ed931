"""Each captured trace (`data/captured/README.md`) is written as the whole fixture of the
run it recorded: every field, from the steps and their tokens to the checks, the doubles
and the provenance (which spans each step and result came from, the provider, when the
run started). One run of the weather agent, recorded by each instrumentation its own way."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.invoke import invoke

DATA = Path(__file__).with_name("data")
CAPTURED = DATA / "captured"
SUNNY = "sunny, 21C in Paris"
PARIS = {"city": "Paris"}


@dataclass(frozen=True)
class Captured:
    """What the trace of one capture proves of the run, besides what every capture holds."""

    name: str
    format: str
    provider: str | None
    trace_id: str
    span_ids: list[str]
    started: str
    #: The trace says which tools every request offered.
    offered: bool
    #: What the trace proves of the tool call's outcome (None: nothing).
    status: str | None
    result: str
    #: The service the trace names (None: none).
    service: str | None = "weather-agent"
    #: The tokens the answer's call recorded as output (None: none).
    answer_output: int | None = None
    folder: Path = CAPTURED


CAPTURES = [
    Captured(
        "llamaindex_function_agent",
        "openinference",
        "openai",
        "8ac6a0737f827c98a8767d00a1893b37",
        ["7311b10ccf66614d", "d01dd05a5b3a5e5d", "e39cc47be89bdd26"],
        "2026-12-07T03:39:33.454Z",
        offered=True,
        status="ok",
        result=SUNNY,
    ),
    Captured(
        "llamaindex_function_agent_tool_error",
        "openinference",
        "openai",
        "ecbc3147de331c6042af94bcd088dd3d",
        ["9433387791608e09", "181983c85f371d3d", "441371b226ec8789"],
        "2026-12-07T03:39:53.192Z",
        offered=True,
        status="error",
        result="weather service unavailable for Paris",
    ),
    Captured(
        "logfire3_openai_chat",
        "otel-genai",
        "openai",
        "01a24e9900ac2a2a480eb0630863c6c2",
        ["2eace4f3268cfcf7", "bc237a8387bc39f7"],
        "2026-12-07T03:42:59.756Z",
        offered=True,
        status=None,
        result=SUNNY,
    ),
    Captured(
        "logfire3_openai_chat_stream",
        "otel-genai",
        None,
        "01a24e9908053b027b48b0480a73b597",
        ["2eddebeb04cde031", "9043945be713c111"],
        "2026-12-07T03:43:01.637Z",
        offered=True,
        status=None,
        result=SUNNY,
    ),
    Captured(
        "logfire_openai_agents",
        "otel-genai",
        "openai",
        "01a24e9867c89e637a8dce8c3f9f6bdb",
        ["a3a3e7eb29044888", "4349cface1fe9a8f", "746536e78a3b668c"],
        "2026-12-07T03:42:20.616Z",
        offered=False,
        status="ok",
        result=SUNNY,
    ),
    Captured(
        "logfire_openai_agents_responses",
        "otel-genai",
        "openai",
        "01a24e98f66090a007ee4d9ff2821499",
        ["b7f4b526423dac83", "ccc5ac29153d36fb", "2998cffd6d5fc80f"],
        "2026-12-07T03:42:57.120Z",
        offered=True,
        status="ok",
        result=SUNNY,
    ),
    Captured(
        "logfire_openai_agents_stream",
        "otel-genai",
        "openai",
        "01a24e98d42f982134a72368271df038",
        ["41f7eb97b55fe67b", "2f20ccd60a56396f", "87a29b12c4f8f446"],
        "2026-12-07T03:42:48.367Z",
        offered=False,
        status="ok",
        result=SUNNY,
    ),
    Captured(
        "logfire_openai_agents_tool_error",
        "otel-genai",
        "openai",
        "01a24e98b8a18b9d6308c4c8b3fb61e7",
        ["a68c1691a3084f41", "9a28b2003531b81c", "d1579c0b17b6596f"],
        "2026-12-07T03:42:41.312Z",
        offered=False,
        status="error",
        result="An error occurred while running the tool. Please try again.",
    ),
    Captured(
        "logfire_openai_chat_stream",
        "otel-genai",
        "openai",
        "01a24e985bf6cd16af66dbb2d42e926c",
        ["725486d1a91f69a9", "3c884509e5ccd1ec"],
        "2026-12-07T03:42:17.590Z",
        offered=True,
        status=None,
        result=SUNNY,
    ),
    Captured(
        "logfire_openai_chat_stream_root_span",
        "otel-genai",
        "openai",
        "01a24e987fb2d06b577874068a7f0059",
        ["6bf68517374f05f4", "8bdc3c989e6f1021"],
        "2026-12-07T03:42:26.738Z",
        offered=True,
        status=None,
        result=SUNNY,
    ),
    Captured(
        "logfire_openai_chat_stream_v1",
        "otel-genai",
        "openai",
        "01a24e989430fd2a78ec46a30122f2f2",
        ["642729fc2a13bc21", "a67d1a58166fe58a"],
        "2026-12-07T03:42:31.984Z",
        offered=True,
        status=None,
        result=SUNNY,
    ),
    Captured(
        "logfire_openai_chat_v1",
        "otel-genai",
        "openai",
        "01a24e988d17a62edf5572ec5c92d746",
        ["ee939a6d921bc4ec", "d591b6c9df15f6ae"],
        "2026-12-07T03:42:30.167Z",
        offered=True,
        status=None,
        result=SUNNY,
    ),
    Captured(
        "mlflow_default",
        "mlflow",
        "openai",
        "e9c910dd232729470bf50b457fe2faa3",
        ["dce26a8858c0a05b", "59b95412b7617ba0", "92a012ec9eae1105"],
        "2026-12-07T03:40:22.005Z",
        offered=True,
        status="ok",
        result=SUNNY,
    ),
    Captured(
        "mlflow_default_tool_error",
        "mlflow",
        "openai",
        "6a541617ce3df2354a05b97e3e4bad28",
        ["02cc3e66febf3144", "ba9475294b0e922e", "355ed0eb3da96192"],
        "2026-12-07T03:40:37.425Z",
        offered=True,
        status="error",
        result="error: weather service unavailable for Paris",
    ),
    Captured(
        "openllmetry_0.40.14",
        "otel-genai",
        "OpenAI",
        "111144e3cec95c545ecbdbc82355cfd4",
        ["6dbdf7b1ad6d7569", "0ce8c6c439957b18", "042875d1d21a3c31"],
        "2026-12-07T03:39:08.906Z",
        offered=True,
        status="ok",
        result=SUNNY,
    ),
    Captured(
        "openllmetry_0.54.0",
        "otel-genai",
        "openai",
        "d955c35dedeccf10ae3b23af95c5832d",
        ["2dc440e914e04a9a", "dfc8eaec76d36a6c", "78e9297dab6ecbf1"],
        "2026-12-07T03:37:55.953Z",
        offered=True,
        status="ok",
        result=SUNNY,
    ),
    Captured(
        "openllmetry_0.54.0_log_events",
        "otel-genai",
        "openai",
        "f92946b45269f92f7acafd1bb4c37a8b",
        ["0f226d015e3d10d3", "d5eb8a5a2dd5c0b8", "bde913ed6912030d"],
        "2026-12-07T03:46:12.104Z",
        offered=False,
        status="ok",
        result=SUNNY,
    ),
    Captured(
        "openllmetry_traceloop_sdk_0.54.0_tool_error",
        "otel-genai",
        "openai",
        "cf9e15928e30143ad3ee18b8e643bd22",
        ["e265e4e3c7908eeb", "3a8cc59e1b3cef65", "8eda78bf8e8481c3"],
        "2026-12-07T03:40:49.071Z",
        offered=True,
        status="error",
        result="error: weather service unavailable for Paris",
    ),
    # What Langfuse's API returns (`test_real_instrumentations.py` says how it was made).
    Captured(
        "langfuse_trace",
        "langfuse",
        None,
        "a0ffd768f95ef986d6711a3134ca932a",
        ["a0f2b2cf0cdcbc8b", "098287de26d04e2e", "a5cd600f5191859d"],
        "2026-12-03T18:43:56.748Z",
        offered=True,
        status="ok",
        result=SUNNY,
        service="default",
        answer_output=8,
        folder=DATA,
    ),
    Captured(
        "langfuse_observations_v2",
        "langfuse",
        None,
        "a0ffd768f95ef986d6711a3134ca932a",
        ["a0f2b2cf0cdcbc8b", "098287de26d04e2e", "a5cd600f5191859d"],
        "2026-12-03T18:43:56.748Z",
        offered=True,
        status="ok",
        result=SUNNY,
        service=None,
        answer_output=8,
        folder=DATA,
    ),
    # opentelemetry-instrumentation-openai-v2 2.3b0's per-message log events.
    Captured(
        "openai_v2_2.3b0",
        "otel-genai",
        "openai",
        "0f6f33e5aa6d8c1914b076d2ad816121",
        ["63f684eb00b46664", "767a6f4b4f776a17", "69982d852c3f364d"],
        "2026-12-03T18:46:12.884Z",
        offered=False,
        status="ok",
        result=SUNNY,
        folder=DATA,
    ),
]


def _expected(captured: Captured) -> dict[str, Any]:
    """The fixture of the weather agent's run as `captured` recorded it."""
    call = {"tool": "get_weather", "args": PARIS}
    expects: dict[str, Any] = {
        "response_contains": ["It is sunny in Paris."],
        "tools_used": ["get_weather"],
    }
    if captured.offered:
        expects["tools_offered"] = ["get_weather"]
    expects["trajectory"] = {
        "mode": "strict",
        "calls": [call if captured.status is None else {**call, "status": captured.status}],
    }
    expects["tool_results_contain"] = [{"tool": "get_weather", "needle": captured.result, "call_index": 0}]
    if captured.status == "ok":
        expects["all_tools_succeeded"] = True
    double: dict[str, Any] = {"when": PARIS, "result": captured.result}
    if captured.status == "error":
        double["success"] = False
    provenance: dict[str, Any] = {
        "format": captured.format,
        "source": str(captured.folder / f"{captured.name}.json"),
        "trace_id": captured.trace_id,
        "span_ids": captured.span_ids,
    }
    if captured.service is not None:
        provenance["service"] = captured.service
    if captured.provider is not None:
        provenance["provider"] = captured.provider
    provenance["started"] = captured.started
    call_step = {
        "type": "tool_calls",
        "tool_calls": [{"id": "call_weather_1", "name": "get_weather", "arguments": PARIS}],
        "input_tokens": 40,
        "output_tokens": 12,
    }
    answer_step: dict[str, Any] = {"type": "text", "content": "It is sunny in Paris.", "input_tokens": 60}
    if captured.answer_output is not None:
        answer_step["output_tokens"] = captured.answer_output
    return {
        "model_name": f"weather_agent_{captured.trace_id[:8]}",
        "tools": ["get_weather"],
        "turns": [
            {
                "user_input": "What is the weather in Paris?",
                "steps": [{"response": call_step}, {"response": answer_step}],
            }
        ],
        "expects": expects,
        "tool_doubles": {"get_weather": [double]},
        "provenance": provenance,
    }


@pytest.mark.parametrize("captured", CAPTURES, ids=[captured.name for captured in CAPTURES])
def test_each_captured_run_is_written_whole_as_it_was_recorded(tmp_path: Path, captured: Captured) -> None:
    source = captured.folder / f"{captured.name}.json"
    result = invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.stderr
    name = f"weather_agent_{captured.trace_id[:8]}"
    written = json.loads((tmp_path / "out" / f"{name}.json").read_text(encoding="utf-8"))
    assert written == _expected(captured)
    checks = ", ".join(_expected(captured)["expects"])
    assert (
        f"trace {captured.trace_id}, 2 steps, 1 tool call; checks: {checks}; doubles: get_weather"
    ) in result.stderr


def test_two_turns_traced_one_trace_each_are_the_later_trace_holding_both(tmp_path: Path) -> None:
    source = CAPTURED / "mlflow_default_two_turns.json"
    result = invoke("eval", "import", str(source), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.stderr
    first = json.loads((tmp_path / "out" / "weather_agent_a0b9e10a.json").read_text(encoding="utf-8"))
    assert first["provenance"]["span_ids"] == ["24768ffac44c768d", "5c3f0871d44e6875", "650d9f037265b49c"]
    both = json.loads((tmp_path / "out" / "weather_agent_e66a2c4b.json").read_text(encoding="utf-8"))
    rome = {"city": "Rome"}
    assert both["turns"] == [
        {
            "user_input": "What is the weather in Paris?",
            "steps": [
                # Read from the history the second request carried: no tokens recorded.
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [{"id": "call_weather_1", "name": "get_weather", "arguments": PARIS}],
                    }
                },
                {"response": {"type": "text", "content": "It is sunny in Paris."}},
            ],
        },
        {
            "user_input": "And in Rome?",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [{"id": "call_weather_2", "name": "get_weather", "arguments": rome}],
                        "input_tokens": 80,
                        "output_tokens": 12,
                    }
                },
                {"response": {"type": "text", "content": "It is sunny in Rome too.", "input_tokens": 100}},
            ],
        },
    ]
    assert both["expects"] == {
        "response_contains": ["It is sunny in Rome too."],
        "turn_response_contains": [{"turn": 0, "needle": "It is sunny in Paris."}],
        "tools_used": ["get_weather"],
        "trajectory": {
            "mode": "strict",
            "calls": [
                {"tool": "get_weather", "args": PARIS},
                {"tool": "get_weather", "args": rome, "status": "ok"},
            ],
        },
        "tool_results_contain": [
            {"tool": "get_weather", "needle": SUNNY, "call_index": 0},
            {"tool": "get_weather", "needle": "sunny, 21C in Rome", "call_index": 1},
        ],
    }
    assert both["tool_doubles"] == {
        "get_weather": [{"when": PARIS, "result": SUNNY}, {"when": rome, "result": "sunny, 21C in Rome"}]
    }
    assert both["provenance"]["span_ids"] == ["effcfc90a511beea", "044a2ec2bf7c2bb1", "b2dc4a4919d61c7e"]
