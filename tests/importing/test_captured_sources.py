"""`zeroclaw eval import` on traces captured from instrumentations that do not install
beside the test dependencies (`data/captured/README.md` says how each was made): Logfire
(plain, streamed, its older `request_data` shape, the OpenAI Agents SDK), OpenLLMetry's
indexed attributes, LlamaIndex's request-builder spans, MLflow's own attributes.

Each is read into the fixture of the run it recorded, field by field, and a fixture of
each family replays to a pass against the weather agent (which runs the same
conversation) and fails against its regression."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.invoke import invoke, run_cli

CAPTURED = Path(__file__).with_name("data") / "captured"
AGENT = Path(__file__).with_name("weather_agent.py")

PARIS = {"tool": "get_weather", "args": {"city": "Paris"}}
#: Logfire 3's streamed calls name no provider (no `gen_ai.system` on either span).
UNNAMED_PROVIDER = {"logfire3_openai_chat_stream"}
SUNNY = "sunny, 21C in Paris"


def _import(tmp_path: Path, name: str, *flags: str) -> tuple[Any, dict[str, Any]]:
    out = tmp_path / "out"
    result = invoke("eval", "import", str(CAPTURED / f"{name}.json"), "--out", str(out), *flags)
    assert result.code == 0, result.stderr
    fixtures = [json.loads(path.read_text()) for path in sorted(out.glob("*.json"))]
    assert len(fixtures) == 1, [fixture["model_name"] for fixture in fixtures]
    return result, fixtures[0]


def _steps(fixture: dict[str, Any]) -> list[dict[str, Any]]:
    return [step["response"] for turn in fixture["turns"] for step in turn["steps"]]


# (capture, format, status the tool run proves, tokens of the first step)
SOURCES = [
    ("logfire_openai_chat_stream", "otel-genai", None, (40, 12)),
    ("logfire_openai_chat_stream_root_span", "otel-genai", None, (40, 12)),
    ("logfire_openai_chat_v1", "otel-genai", None, (40, 12)),
    ("logfire_openai_chat_stream_v1", "otel-genai", None, (40, 12)),
    ("logfire3_openai_chat", "otel-genai", None, (40, 12)),
    ("logfire3_openai_chat_stream", "otel-genai", None, (40, 12)),
    ("logfire_openai_agents", "otel-genai", "ok", (40, 12)),
    ("logfire_openai_agents_stream", "otel-genai", "ok", (40, 12)),
    ("logfire_openai_agents_responses", "otel-genai", "ok", (40, 12)),
    ("logfire_openai_agents_tool_error", "otel-genai", "error", (40, 12)),
    ("openllmetry_0.40.14", "otel-genai", "ok", (40, 12)),
    ("openllmetry_0.54.0", "otel-genai", "ok", (40, 12)),
    ("openllmetry_0.54.0_log_events", "otel-genai", "ok", (40, 12)),
    ("openllmetry_traceloop_sdk_0.54.0_tool_error", "otel-genai", "error", (40, 12)),
    ("llamaindex_function_agent", "openinference", "ok", (40, 12)),
    ("llamaindex_function_agent_tool_error", "openinference", "error", (40, 12)),
    ("mlflow_default", "mlflow", "ok", (40, 12)),
    ("mlflow_default_tool_error", "mlflow", "error", (40, 12)),
]


@pytest.mark.parametrize(
    ("name", "format", "status", "tokens"), SOURCES, ids=[source[0] for source in SOURCES]
)
def test_each_source_is_read_into_the_run_it_recorded(
    tmp_path: Path, name: str, format: str, status: str | None, tokens: tuple[int, int]
) -> None:
    _, fixture = _import(tmp_path, name)
    assert fixture["provenance"]["format"] == format
    # As the instrumentation wrote it (OpenLLMetry 0.40 wrote "OpenAI"), where it did.
    provider = fixture["provenance"].get("provider")
    assert provider is None if name in UNNAMED_PROVIDER else provider.lower() == "openai"
    (turn,) = fixture["turns"]
    assert turn["user_input"] == "What is the weather in Paris?"
    first, last = _steps(fixture)
    assert first["tool_calls"] == [
        {"id": "call_weather_1", "name": "get_weather", "arguments": {"city": "Paris"}}
    ]
    assert (first.get("input_tokens"), first.get("output_tokens")) == tokens
    assert last["type"] == "text"
    assert last["content"] == "It is sunny in Paris."
    expects = fixture["expects"]
    (call,) = expects["trajectory"]["calls"]
    assert call == (PARIS if status is None else {**PARIS, "status": status})
    # Success is claimed only where a tool span proves it.
    assert ("all_tools_succeeded" in expects) is (status == "ok")
    (double,) = fixture["tool_doubles"]["get_weather"]
    assert double["when"] == {"city": "Paris"}
    assert double.get("success", True) is (status != "error")
    if status != "error":
        assert double["result"] == SUNNY


def test_a_streamed_call_without_a_root_span_says_which_traces_it_read_as_one(tmp_path: Path) -> None:
    # Each streamed call is two traces (the request's span, then the log span with the
    # reply) and, with nothing wrapping the run, each call a run of its own.
    result, fixture = _import(tmp_path, "logfire_openai_chat_stream")
    lines = result.stderr.splitlines()
    assert sum("holds only the request of a call trace" in line for line in lines) == 2
    assert sum("is the start of trace" in line for line in lines) == 1
    assert not any(line.startswith("refused") for line in lines)
    assert len(fixture["provenance"]["span_ids"]) == 2


def test_a_request_builder_span_is_passed_over(tmp_path: Path) -> None:
    # LlamaIndex marks `_prepare_chat_with_tools` as an LLM span: it records no messages
    # and no reply, and is no step.
    _, fixture = _import(tmp_path, "llamaindex_function_agent")
    spans = fixture["provenance"]["span_ids"]
    assert len(spans) == 3  # two model calls and the tool run
    assert fixture["expects"]["tools_offered"] == ["get_weather"]


def test_mlflow_two_turns_are_two_runs_and_the_later_one_holds_the_first(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = invoke("eval", "import", str(CAPTURED / "mlflow_default_two_turns.json"), "--out", str(out))
    assert result.code == 0, result.stderr
    fixtures = [json.loads(path.read_text()) for path in sorted(out.glob("*.json"))]
    both = next(fixture for fixture in fixtures if len(fixture["turns"]) == 2)
    assert [turn["user_input"] for turn in both["turns"]] == ["What is the weather in Paris?", "And in Rome?"]
    # The Paris call came from the history: its tool span is in the other trace.
    assert both["expects"]["trajectory"]["calls"] == [
        PARIS,
        {**PARIS, "args": {"city": "Rome"}, "status": "ok"},
    ]


REPLAYED = [
    "logfire_openai_chat_stream",
    "logfire_openai_agents",
    "openllmetry_0.54.0",
    "llamaindex_function_agent",
    "mlflow_default",
]


@pytest.mark.parametrize("name", REPLAYED)
def test_an_imported_case_replays_to_a_pass_and_its_regression_fails(tmp_path: Path, name: str) -> None:
    _import(tmp_path, name, "--live-tools")  # the agent is a command: it runs its own tool
    agent = f"{sys.executable} {AGENT}"
    suite = str(tmp_path / "out")
    passing = run_cli("eval", "run", "--suite", suite, "--agent-cmd", agent)
    assert passing.code == 0, passing.stdout + passing.stderr
    failing = run_cli("eval", "run", "--suite", suite, "--agent-cmd", agent, env={"WEATHER_BROKEN": "1"})
    assert failing.code == 1, failing.stdout
    assert "tool_results_contain" in failing.stdout
