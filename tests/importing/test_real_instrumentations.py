"""From a production trace to a regression case, through the real instrumentations.

A real agent (`weather_agent.py`) runs against the replay endpoint while the
instrumentation its users turn on records it; the spans the OpenTelemetry SDK captured
are written as OTLP JSON; `zeroclaw eval import` turns them into a fixture; the fixture
replays to a pass against the same agent, and to a failure against its regression.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from tests.support.invoke import invoke, run_cli

AGENT = Path(__file__).with_name("weather_agent.py")
DATA = Path(__file__).with_name("data")

#: The run a production trace records: the model asks for the weather, then answers.
PRODUCTION = {
    "model_name": "weather",
    "tools": ["get_weather"],
    "turns": [
        {
            "user_input": "What is the weather in Paris?",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [
                            {"id": "call_weather_1", "name": "get_weather", "arguments": {"city": "Paris"}}
                        ],
                        "input_tokens": 40,
                        "output_tokens": 12,
                    }
                },
                {"response": {"type": "text", "content": "It is sunny in Paris.", "input_tokens": 60}},
            ],
        }
    ],
    "expects": {"tools_used": ["get_weather"], "response_contains": ["sunny"]},
}


def _needs(*modules: str, framework: bool = False) -> None:
    """Skip unless `modules` are installed; a framework's run is opt-in (`nox -s
    frameworks`), where ZEROCLAW_REQUIRE_FRAMEWORKS=1 makes a missing one a failure."""
    missing = [module for module in modules if importlib.util.find_spec(module) is None]
    if not missing:
        return
    if framework and os.environ.get("ZEROCLAW_REQUIRE_FRAMEWORKS") == "1":
        pytest.fail(f"not installed: {', '.join(missing)}")
    # The test extra installs the instrumentations of the plain client; those of the
    # frameworks come with the frameworks, in their nox session.
    hint = "nox -s frameworks" if framework else "pip install -e '.[test]'"
    pytest.skip(f"not installed: {', '.join(missing)} ({hint})")


def _agent_cmd() -> str:
    return f"{sys.executable} {AGENT}"


def _capture(tmp_path: Path, env: dict[str, str]) -> Path:
    """Run the production case through the instrumented agent; the OTLP JSON it wrote."""
    production = tmp_path / "production"
    production.mkdir()
    (production / "weather.json").write_text(json.dumps(PRODUCTION))
    trace = tmp_path / "trace.json"
    env = {**env, "WEATHER_TRACE_FILE": str(trace)}
    ran = run_cli("eval", "run", "--suite", str(production), "--agent-cmd", _agent_cmd(), env=env)
    assert ran.code == 0, ran.stdout + ran.stderr
    return trace


def _imports_and_replays(tmp_path: Path, trace: Path, agent_env: dict[str, str]) -> dict[str, object]:
    """Import `trace`; the fixture passes against the agent and fails against its
    regression (a tool that answers for the wrong city). The agent is a command, which
    runs its own tools: the fixture scripts no doubles (`--live-tools`)."""
    imported = tmp_path / "imported"
    result = invoke("eval", "import", str(trace), "--out", str(imported), "--live-tools")
    assert result.code == 0, result.stderr
    (fixture_path,) = imported.glob("*.json")
    passing = run_cli("eval", "run", "--suite", str(imported), "--agent-cmd", _agent_cmd(), env=agent_env)
    assert passing.code == 0, passing.stdout + passing.stderr
    broken = {**agent_env, "WEATHER_BROKEN": "1"}
    failing = run_cli("eval", "run", "--suite", str(imported), "--agent-cmd", _agent_cmd(), env=broken)
    assert failing.code == 1, failing.stdout + failing.stderr
    assert "tool_results_contain" in failing.stdout
    fixture: dict[str, object] = json.loads(fixture_path.read_text())
    return fixture


@pytest.mark.parametrize("root_span", ["0", "1"], ids=["model-spans-only", "invoke-agent-and-tool-spans"])
def test_opentelemetry_instrumentation_openai_v2(tmp_path: Path, root_span: str) -> None:
    _needs("opentelemetry.instrumentation.openai_v2", "opentelemetry.sdk")
    env = {"WEATHER_TRACE": "openai-v2", "WEATHER_ROOT_SPAN": root_span}
    trace = _capture(tmp_path, env)
    fixture = _imports_and_replays(tmp_path, trace, {})
    assert fixture["provenance"]["format"] == "otel-genai"  # type: ignore[index]
    # A call's outcome is stated only where a tool span proves it.
    expected = {"tool": "get_weather", "args": {"city": "Paris"}}
    if root_span == "1":
        expected["status"] = "ok"
    assert fixture["expects"]["trajectory"]["calls"] == [expected]  # type: ignore[index]
    assert ("all_tools_succeeded" in fixture["expects"]) is (root_span == "1")  # type: ignore[operator]


@pytest.mark.parametrize("content", ["span_only", "event_only"])
def test_opentelemetry_instrumentation_google_genai(tmp_path: Path, content: str) -> None:
    """A loop on google-genai (Gemini's generateContent), recorded by
    opentelemetry-instrumentation-google-genai with the content on the span or as a
    `gen_ai.client.inference.operation.details` log record."""
    _needs("google.genai", "opentelemetry.instrumentation.google_genai", "opentelemetry.sdk")
    agent = {"WEATHER_AGENT": "google-genai"}
    env = {
        **agent,
        "WEATHER_TRACE": "google-genai",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": content,
    }
    trace = _capture(tmp_path, env)
    fixture = _imports_and_replays(tmp_path, trace, agent)
    assert fixture["provenance"]["format"] == "otel-genai"  # type: ignore[index]
    assert fixture["provenance"]["provider"] == "gemini"  # type: ignore[index]
    assert fixture["expects"]["tools_offered"] == ["get_weather"]  # type: ignore[index]
    assert fixture["expects"]["trajectory"]["calls"] == [{"tool": "get_weather", "args": {"city": "Paris"}}]  # type: ignore[index]


def test_opentelemetry_instrumentation_botocore(tmp_path: Path) -> None:
    """A loop on boto3's bedrock-runtime `converse`, recorded by
    opentelemetry-instrumentation-botocore: the messages as log records in Bedrock's
    content blocks (`toolUse`, `toolResult`)."""
    _needs("boto3", "opentelemetry.instrumentation.botocore", "opentelemetry.sdk")
    agent = {"WEATHER_AGENT": "boto3"}
    trace = _capture(tmp_path, {**agent, "WEATHER_TRACE": "botocore"})
    fixture = _imports_and_replays(tmp_path, trace, agent)
    assert fixture["provenance"]["format"] == "otel-genai"  # type: ignore[index]
    assert fixture["provenance"]["provider"] == "aws.bedrock"  # type: ignore[index]
    assert fixture["expects"]["trajectory"]["calls"] == [{"tool": "get_weather", "args": {"city": "Paris"}}]  # type: ignore[index]


def test_openinference_instrumentation_openai(tmp_path: Path) -> None:
    _needs("openinference.instrumentation.openai", "opentelemetry.sdk")
    trace = _capture(tmp_path, {"WEATHER_TRACE": "openinference", "WEATHER_ROOT_SPAN": "1"})
    fixture = _imports_and_replays(tmp_path, trace, {})
    assert fixture["provenance"]["format"] == "openinference"  # type: ignore[index]


def test_pydantic_ai_instrumentation(tmp_path: Path) -> None:
    _needs("pydantic_ai", "opentelemetry.sdk")
    env = {"WEATHER_AGENT": "pydantic-ai", "WEATHER_TRACE": "pydantic-ai"}
    trace = _capture(tmp_path, env)
    fixture = _imports_and_replays(tmp_path, trace, {"WEATHER_AGENT": "pydantic-ai"})
    assert fixture["expects"]["tools_offered"] == ["get_weather"]  # type: ignore[index]


def test_the_older_log_events_of_openai_v2_2_3b0(tmp_path: Path) -> None:
    """A capture of opentelemetry-instrumentation-openai-v2 2.3b0 (content as log records,
    which its current releases no longer write; it needs wrapt 1), made by running this
    agent with it, imported and replayed against the agent."""
    fixture = _imports_and_replays(tmp_path, DATA / "openai_v2_2.3b0.json", {})
    assert fixture["provenance"]["format"] == "otel-genai"  # type: ignore[index]


def test_openinference_instrumentation_openai_agents(tmp_path: Path) -> None:
    """The OpenAI Agents SDK, recorded by openinference-instrumentation-openai-agents
    (an opt-in framework run: `nox -s frameworks`)."""
    _needs("agents", "openinference.instrumentation.openai_agents", "opentelemetry.sdk", framework=True)
    env = {"WEATHER_AGENT": "openai-agents", "WEATHER_TRACE": "openinference"}
    trace = _capture(tmp_path, env)
    fixture = _imports_and_replays(tmp_path, trace, {"WEATHER_AGENT": "openai-agents"})
    assert fixture["provenance"]["format"] == "openinference"  # type: ignore[index]


def test_langsmith_runs(tmp_path: Path) -> None:
    """LangSmith's `wrap_openai` and `@traceable`, the run tree as its `Run` model writes it."""
    _needs("langsmith")
    trace = _capture(tmp_path, {"WEATHER_TRACE": "langsmith"})
    runs = json.loads(trace.read_text())
    assert [child["run_type"] for child in runs[0]["child_runs"]] == ["llm", "tool", "llm"]
    fixture = _imports_and_replays(tmp_path, trace, {})
    assert fixture["provenance"]["format"] == "langsmith"  # type: ignore[index]


def test_langfuse_sdk_spans(tmp_path: Path) -> None:
    """The Langfuse SDK's drop-in OpenAI client and observations, sent as OpenTelemetry spans."""
    _needs("langfuse", "opentelemetry.sdk")
    trace = _capture(tmp_path, {"WEATHER_TRACE": "langfuse"})
    fixture = _imports_and_replays(tmp_path, trace, {})
    assert fixture["provenance"]["format"] == "langfuse"  # type: ignore[index]


@pytest.mark.parametrize(
    "export",
    ["langfuse_trace.json", "langfuse_observations_v2.json"],
    ids=["trace-with-observations", "observations-v2-page"],
)
def test_langfuse_api_exports(tmp_path: Path, export: str) -> None:
    """What Langfuse's API returns for a trace (`GET /api/public/traces/{id}`, built with
    the SDK 4.x `TraceWithFullDetails` model) and for its observations (`GET
    /api/public/v2/observations`, the 5.x `ObservationsV2Response` model), both of a run
    of this agent recorded by the Langfuse SDK."""
    fixture = _imports_and_replays(tmp_path, DATA / export, {})
    assert fixture["provenance"]["format"] == "langfuse"  # type: ignore[index]
