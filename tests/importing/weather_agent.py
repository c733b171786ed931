"""A weather agent that records itself as production agents do, run as an agent command
(`--agent-cmd`: a turn per stdin line, an answer per stdout line).

`WEATHER_AGENT` picks how it is built: `openai` (a plain loop on the official client,
the default), `pydantic-ai`, `openai-agents` (the OpenAI Agents SDK), `google-genai` (a
loop on Google's SDK: Gemini) or `boto3` (a loop on `bedrock-runtime` `converse`).
`WEATHER_TRACE` picks the instrumentation that records it, as its users turn it on:
`openai-v2` (opentelemetry-instrumentation-openai-v2, content on span attributes),
`openinference` (openinference-instrumentation-openai, or -openai-agents for that
agent), `pydantic-ai` (its own OpenTelemetry instrumentation), `langfuse` (the Langfuse
SDK's drop-in OpenAI client and observations, which it sends as OpenTelemetry spans),
`langsmith` (LangSmith's `wrap_openai` and `@traceable`, kept local), `google-genai`
(opentelemetry-instrumentation-google-genai; the content where
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT says, on the span by default),
`botocore` (opentelemetry-instrumentation-botocore, content as log records); unset: none. The
spans (and log records) are written as OTLP JSON to `WEATHER_TRACE_FILE` when it ends;
LangSmith's runs, as the list of root runs with their child runs its API returns.
`WEATHER_ROOT_SPAN=1` wraps each run in an `invoke_agent` span and each tool call in an
`execute_tool` span, as the GenAI conventions describe. `WEATHER_BROKEN=1` is the
regression: its tool reports the weather of the wrong city.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.importing.otlp_capture import OtlpCapture, write_json

SYSTEM = "You are a weather assistant."
MODEL = "gpt-4o-mini"
GEMINI_MODEL = "gemini-2.5-flash"
BEDROCK_MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"
TOOL_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    if os.environ.get("WEATHER_BROKEN") == "1":
        city = "Lyon"  # the regression: a lookup keyed on the wrong city
    return f"sunny, 21C in {city}"


def _span(capture: OtlpCapture | None, name: str, attributes: dict[str, Any]) -> AbstractContextManager[Any]:
    if capture is None or os.environ.get("WEATHER_ROOT_SPAN") != "1":
        return nullcontext()
    tracer = capture.tracer_provider.get_tracer("weather-agent")
    return tracer.start_as_current_span(name, attributes=attributes)


def _client(trace: str | None) -> Any:
    """The OpenAI client, as each tracing SDK has its users make it."""
    if trace == "langfuse":
        from langfuse.openai import OpenAI as LangfuseOpenAI  # type: ignore[attr-defined]

        return LangfuseOpenAI()
    from openai import OpenAI

    if trace == "langsmith":
        from langsmith.wrappers import wrap_openai

        return wrap_openai(OpenAI())
    return OpenAI()


def _tool(trace: str | None, capture: OtlpCapture | None, call_id: str, arguments: dict[str, Any]) -> str:
    """Run get_weather, inside the observation or run a tracing SDK records it as."""
    if trace == "langfuse":
        from langfuse import get_client

        with get_client().start_as_current_observation(
            as_type="tool", name="get_weather", input=arguments, metadata={"tool_call_id": call_id}
        ) as observation:
            result = get_weather(**arguments)
            observation.update(output=result)
            return result
    if trace == "langsmith":
        from langsmith import traceable

        return str(traceable(run_type="tool", name="get_weather")(get_weather)(**arguments))
    return get_weather(**arguments)


def openai_turn(history: list[dict[str, Any]], capture: OtlpCapture | None, trace: str | None = None) -> str:
    """One turn of the plain loop: call the model until it answers with text."""
    client = _client(trace)
    root = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather_agent"}
    with _span(capture, "invoke_agent weather_agent", root):
        while True:
            # A copy: LangSmith's local runs keep the list they were given.
            reply = client.chat.completions.create(model=MODEL, messages=list(history), tools=[TOOL_SCHEMA])
            message = reply.choices[0].message
            if not message.tool_calls:
                history.append({"role": "assistant", "content": message.content})
                return message.content or ""
            history.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                assert call.type == "function"
                attributes = {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": call.function.name,
                    "gen_ai.tool.call.id": call.id,
                    "gen_ai.tool.call.arguments": call.function.arguments,
                }
                with _span(capture, f"execute_tool {call.function.name}", attributes) as span:
                    result = _tool(trace, capture, call.id, json.loads(call.function.arguments))
                    if span is not None:
                        span.set_attribute("gen_ai.tool.call.result", result)
                history.append({"role": "tool", "tool_call_id": call.id, "content": result})


def langsmith_turn(history: list[dict[str, Any]], user_input: str, runs: list[Any]) -> str:
    """One turn traced by LangSmith, kept local (nothing is sent); its run tree is added
    to `runs` as the API returns a run read with its child runs."""
    from langsmith import Client, traceable, tracing_context

    history.append({"role": "user", "content": user_input})
    finished: list[Any] = []
    # Never reached: "local" records the run tree without posting it.
    offline = Client(api_url="http://127.0.0.1:9", api_key="unused", auto_batch_tracing=False)
    turn = traceable(run_type="chain", name="weather_agent")(openai_turn)
    with tracing_context(enabled="local", project_name="weather", client=offline):
        answer = str(turn(history, None, "langsmith", langsmith_extra={"on_end": finished.append}))
    runs.extend(_as_run(tree) for tree in finished)
    return answer


def _as_run(tree: Any) -> dict[str, Any]:
    """A finished run tree as LangSmith's `Run` model writes it, children nested."""
    from langsmith import schemas

    children = [_as_run(child) for child in tree.child_runs]
    fields = tree.model_dump(exclude={"child_runs", "parent_run", "session_name", "ls_client"})
    fields = {key: value for key, value in fields.items() if key in schemas.Run.model_fields}
    usage = (tree.outputs or {}).get("usage_metadata") or {}
    run = schemas.Run(
        **fields,
        status="error" if tree.error else "success",
        prompt_tokens=usage.get("input_tokens"),
        completion_tokens=usage.get("output_tokens"),
    )
    data: dict[str, Any] = json.loads(run.model_dump_json(exclude={"child_runs"}))
    data["child_runs"] = children
    return data


def gemini_turn(history: list[Any], user_input: str) -> str:
    """One turn of a loop on google-genai (its automatic function calling off): Gemini's
    `generateContent` at GOOGLE_GEMINI_BASE_URL."""
    from google import genai
    from google.genai import types

    client = genai.Client()
    declaration = types.FunctionDeclaration(
        name="get_weather",
        description="Get the current weather for a city.",
        parameters_json_schema=TOOL_SCHEMA["function"]["parameters"],
    )
    config = types.GenerateContentConfig(
        system_instruction=SYSTEM,
        tools=[types.Tool(function_declarations=[declaration])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    history.append(types.Content(role="user", parts=[types.Part.from_text(text=user_input)]))
    while True:
        reply = client.models.generate_content(model=GEMINI_MODEL, contents=history, config=config)
        content = reply.candidates[0].content  # type: ignore[index]
        history.append(content)
        calls = reply.function_calls or []
        if not calls:
            return reply.text or ""
        parts = [
            types.Part.from_function_response(
                name="get_weather", response={"result": get_weather(**(c.args or {}))}
            )
            for c in calls
        ]
        for part, call in zip(parts, calls, strict=True):
            part.function_response.id = call.id  # type: ignore[union-attr]
        history.append(types.Content(role="user", parts=parts))


def bedrock_turn(history: list[Any], user_input: str) -> str:
    """One turn of a loop on boto3's `bedrock-runtime` `converse` at
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME."""
    import boto3

    client = boto3.client("bedrock-runtime")
    spec = {"name": "get_weather", "description": "Get the current weather for a city."}
    tools = {
        "tools": [{"toolSpec": {**spec, "inputSchema": {"json": TOOL_SCHEMA["function"]["parameters"]}}}]
    }
    history.append({"role": "user", "content": [{"text": user_input}]})
    while True:
        reply = client.converse(
            modelId=BEDROCK_MODEL, messages=history, system=[{"text": SYSTEM}], toolConfig=tools
        )
        message = reply["output"]["message"]
        history.append(message)
        uses = [block["toolUse"] for block in message["content"] if "toolUse" in block]
        if reply["stopReason"] != "tool_use" or not uses:
            return "".join(block.get("text", "") for block in message["content"])
        results = [
            {
                "toolResult": {
                    "toolUseId": use["toolUseId"],
                    "content": [{"text": get_weather(**use["input"])}],
                }
            }
            for use in uses
        ]
        history.append({"role": "user", "content": results})


def pydantic_ai_agent(capture: OtlpCapture | None) -> Any:
    from openai import AsyncOpenAI
    from pydantic_ai import Agent
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=AsyncOpenAI()))
    capabilities = []
    if capture is not None:
        settings = InstrumentationSettings(tracer_provider=capture.tracer_provider)
        capabilities.append(Instrumentation(settings=settings))
    agent = Agent(model, name="weather_agent", instructions=SYSTEM, capabilities=capabilities)
    agent.tool_plain(get_weather)
    return agent


def openai_agents_agent() -> Any:
    from agents import (  # type: ignore[import-not-found,unused-ignore]  # a framework run's own venv
        Agent,
        OpenAIChatCompletionsModel,
        function_tool,
        set_tracing_disabled,
    )
    from openai import AsyncOpenAI

    if os.environ.get("WEATHER_TRACE") != "openinference":
        set_tracing_disabled(True)  # the SDK's own exporter would post traces to OpenAI
    model = OpenAIChatCompletionsModel(model=MODEL, openai_client=AsyncOpenAI())
    return Agent(name="weather_agent", instructions=SYSTEM, model=model, tools=[function_tool(get_weather)])


def instrument(kind: str, trace: str) -> OtlpCapture:
    capture = OtlpCapture("weather-agent")
    if trace == "openai-v2":
        # Read when the instrumentor starts: message content on the span attributes
        # (2.3b0 and before take `true`, and write log records instead).
        os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(  # type: ignore[no-untyped-call,unused-ignore]
            tracer_provider=capture.tracer_provider, logger_provider=capture.logger_provider
        )
    elif trace == "openinference" and kind == "openai-agents":
        from openinference.instrumentation.openai_agents import (  # type: ignore[import-not-found,unused-ignore]
            OpenAIAgentsInstrumentor,
        )

        OpenAIAgentsInstrumentor().instrument(tracer_provider=capture.tracer_provider)
    elif trace == "openinference":
        from openinference.instrumentation.openai import OpenAIInstrumentor as OpenInferenceInstrumentor

        OpenInferenceInstrumentor().instrument(tracer_provider=capture.tracer_provider)
    elif trace == "langfuse":
        from langfuse import Langfuse

        # The SDK adds its own exporter to the provider it is given, aimed here at a port
        # where nothing listens; the capture's in-memory exporter sees the same spans.
        Langfuse(
            public_key="pk-lf-zeroclaw",
            secret_key="sk-lf-zeroclaw",
            base_url="http://127.0.0.1:9",
            tracer_provider=capture.tracer_provider,
        )
    elif trace == "google-genai":
        os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
        from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor

        # Its releases allow google-genai below 3; the 3.x client it wraps is the same.
        GoogleGenAiSdkInstrumentor().instrument(
            tracer_provider=capture.tracer_provider,
            logger_provider=capture.logger_provider,
            skip_dep_check=True,
        )
    elif trace == "botocore":
        os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
        from opentelemetry.instrumentation.botocore import BotocoreInstrumentor

        BotocoreInstrumentor().instrument(
            tracer_provider=capture.tracer_provider, logger_provider=capture.logger_provider
        )
    elif trace not in ("pydantic-ai", "langsmith"):
        raise SystemExit(f"WEATHER_TRACE={trace!r} is not an instrumentation this agent knows")
    return capture


def main() -> None:
    kind = os.environ.get("WEATHER_AGENT", "openai")
    trace = os.environ.get("WEATHER_TRACE")
    capture = instrument(kind, trace) if trace and trace != "langsmith" else None
    runs: list[Any] = []
    history: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    agent = pydantic_ai_agent(capture) if kind == "pydantic-ai" else None
    sdk_agent = openai_agents_agent() if kind == "openai-agents" else None
    previous: Any = None
    turns: list[Any] = []  # the conversation of the google-genai and boto3 loops
    for line in sys.stdin:
        user_input = json.loads(line)["user_input"]
        if agent is not None:
            result = agent.run_sync(user_input, message_history=previous)
            previous, answer = result.all_messages(), result.output
        elif sdk_agent is not None:
            from agents import Runner  # type: ignore[import-not-found,unused-ignore]

            items = (previous or []) + [{"role": "user", "content": user_input}]
            result = Runner.run_sync(sdk_agent, items)
            previous, answer = result.to_input_list(), result.final_output
        elif kind == "google-genai":
            answer = gemini_turn(turns, user_input)
        elif kind == "boto3":
            answer = bedrock_turn(turns, user_input)
        elif trace == "langsmith":
            answer = langsmith_turn(history, user_input, runs)
        elif trace == "langfuse":
            from langfuse import get_client

            history.append({"role": "user", "content": user_input})
            with get_client().start_as_current_observation(as_type="agent", name="weather_agent") as root:
                answer = openai_turn(history, capture, trace)
                root.update(input=user_input, output=answer)
        else:
            history.append({"role": "user", "content": user_input})
            answer = openai_turn(history, capture, trace)
        print(json.dumps({"answer": answer}), flush=True)
    if trace == "langsmith":
        Path(os.environ["WEATHER_TRACE_FILE"]).write_text(json.dumps(runs, default=str))
    if capture is not None:
        # Written first: every span is in memory as it ends, and the Langfuse SDK's own
        # exporter spends seconds at shutdown retrying the port where nothing listens.
        write_json(Path(os.environ["WEATHER_TRACE_FILE"]), capture.traces_json(), capture.logs_json())
        capture.shutdown()


if __name__ == "__main__":
    main()
