"""A support agent whose refund fails in production: the case `zeroclaw eval import`
must neither certify as a success nor replay against the real payment API.

One list of tools serves production and the gate. Run as a command (`python
refund_agent.py`: a turn per stdin line, an answer per stdout line), it is production:
it runs its own tools, each inside a tool span when `REFUND_TOOL_SPANS=1`, and
`REFUND_TRACE` picks the instrumentation that records it (`openai-v2` or
`openinference`), its spans appended to `REFUND_TRACE_FILE` by the package's own
`SpanFileExporter`, as the import guide has production do it. Named in
`[eval].agent` (`make_agent`) with `[eval].tools` (`tools`), it is the same loop in the
gate's process, its tools run by the gate. `REFUND_BROKEN=1` is the regression: it
tells the model every call went fine, whatever the tool answered.

The real `refund` posts to a payment API (a closed port here, so it fails as an
unreachable one does, with `URLError`) and first writes a line to `REFUND_LEDGER`, so a
test can see whether a replay ever reached it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import urllib.request
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from zeroclaw_eval import AgentContext, ProjectTool, openai_http_client

SYSTEM = "You are the support agent of an online shop."
MODEL = "gpt-4o-mini"
ORDER = {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}
REFUND = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
    "required": ["order_id", "amount"],
}
#: Where the payment API would be: a port nothing listens on.
PAYMENTS = "http://127.0.0.1:9/refunds"


def lookup_order(order_id: str) -> dict[str, Any]:
    return {"order_id": order_id, "status": "delivered", "total": 42.5}


def refund(order_id: str, amount: float) -> str:
    ledger = os.environ.get("REFUND_LEDGER")
    if ledger:
        with open(ledger, "a", encoding="utf-8") as file:
            file.write(f"{order_id} {amount}\n")
    body = json.dumps({"order_id": order_id, "amount": amount}).encode()
    with urllib.request.urlopen(urllib.request.Request(PAYMENTS, data=body), timeout=5) as reply:
        return str(reply.read().decode())


def tools() -> list[ProjectTool]:
    """The tools, as the gate offers them (`[eval].tools`)."""
    return [
        ProjectTool("lookup_order", "An order's status and total.", lookup_order, ORDER),
        ProjectTool("refund", "Refund an amount of an order.", refund, REFUND),
    ]


SCHEMAS = [
    {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
    }
    for tool in tools()
]

#: Runs one tool call (name, arguments as JSON text, call id) and returns the result text.
RunTool = Callable[[str, str, str], Awaitable[str]]


async def answer(client: Any, history: list[dict[str, Any]], run_tool: RunTool) -> str:
    """One turn: ask the model until it answers with text, running each tool it asks for."""
    while True:
        reply = await client.chat.completions.create(model=MODEL, messages=list(history), tools=SCHEMAS)
        message = reply.choices[0].message
        if not message.tool_calls:
            history.append({"role": "assistant", "content": message.content})
            return str(message.content or "")
        history.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = await run_tool(call.function.name, call.function.arguments, call.id)
            if os.environ.get("REFUND_BROKEN") == "1":
                result = "done"
            history.append({"role": "tool", "tool_call_id": call.id, "content": result})


class GatedAgent:
    """The agent in the gate's process: the gate runs its tools."""

    def __init__(self, context: AgentContext) -> None:
        from openai import AsyncOpenAI

        self.tools = context.tools
        self.client = AsyncOpenAI(
            api_key="replay",
            base_url="http://zeroclaw.invalid/v1",
            http_client=openai_http_client(context.provider),
        )
        self.history: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]

    async def run_turn(self, user_input: str) -> str:
        self.history.append({"role": "user", "content": user_input})
        return await answer(self.client, self.history, self._run_tool)

    async def _run_tool(self, name: str, arguments: str, call_id: str) -> str:
        return (await self.tools.call(name, arguments, call_id)).content


def make_agent(context: AgentContext) -> GatedAgent:
    """The agent, as `[eval].agent` names it."""
    return GatedAgent(context)


def _tool_span(
    tracer: Any, trace: str, name: str, call_id: str, arguments: str
) -> AbstractContextManager[Any]:
    """The span a tool call runs in, as each convention writes it (none without a tracer)."""
    if tracer is None:
        return nullcontext()
    if trace == "openinference":
        attributes = {"openinference.span.kind": "TOOL", "tool.name": name, "input.value": arguments}
    else:
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.call.arguments": arguments,
        }
    # The exception is caught below, as the agent feeds it back: the span is marked by hand.
    return tracer.start_as_current_span(
        f"execute_tool {name}", attributes=attributes, record_exception=False, set_status_on_exception=False
    )


def production_tool(tracer: Any, trace: str) -> RunTool:
    """How production runs a tool: the function itself, an exception fed back as text."""
    from opentelemetry.trace import Status, StatusCode

    functions = {tool.name: tool.function for tool in tools()}

    async def run(name: str, arguments: str, call_id: str) -> str:
        with _tool_span(tracer, trace, name, call_id, arguments) as span:
            try:
                result = functions[name](**json.loads(arguments))
                text = result if isinstance(result, str) else json.dumps(result)
            except Exception as exc:
                text = f"{type(exc).__name__}: {exc}"
                if span is not None:
                    span.record_exception(exc)
                    span.set_status(Status(StatusCode.ERROR, str(exc)))
                    span.set_attribute("error.type", type(exc).__qualname__)
            if span is not None:
                span.set_attribute(
                    "output.value" if trace == "openinference" else "gen_ai.tool.call.result", text
                )
            return text

    return run


def _trace_to_file(trace: str) -> Any:
    """The instrumentation production turns on, its spans appended to the trace file by
    the package's own exporter (the import guide's recipe); None without `REFUND_TRACE`."""
    if not trace:
        return None
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from zeroclaw_eval import SpanFileExporter

    provider = TracerProvider(resource=Resource.create({"service.name": "support-agent"}))
    provider.add_span_processor(BatchSpanProcessor(SpanFileExporter(os.environ["REFUND_TRACE_FILE"])))
    if trace == "openinference":
        from openinference.instrumentation.openai import OpenAIInstrumentor as OpenInferenceInstrumentor

        OpenInferenceInstrumentor().instrument(tracer_provider=provider)
    else:
        os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(tracer_provider=provider)  # type: ignore[no-untyped-call,unused-ignore]
    return provider


async def production() -> None:
    from openai import AsyncOpenAI

    trace = os.environ.get("REFUND_TRACE", "")
    provider = _trace_to_file(trace)
    tracer = provider.get_tracer("support-agent") if provider is not None else None
    tool_tracer = tracer if os.environ.get("REFUND_TOOL_SPANS") == "1" else None
    client = AsyncOpenAI()  # OPENAI_BASE_URL and OPENAI_API_KEY come from the environment
    history: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    for line in sys.stdin:
        history.append({"role": "user", "content": json.loads(line)["user_input"]})
        named = (
            {"openinference.span.kind": "AGENT", "agent.name": "support_agent"}
            if trace == "openinference"
            else {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support_agent"}
        )
        run = (
            nullcontext()
            if tracer is None
            else tracer.start_as_current_span("invoke_agent", attributes=named)
        )
        with run:
            text = await answer(client, history, production_tool(tool_tracer, trace))
        print(json.dumps({"answer": text}), flush=True)
    if provider is not None:
        provider.shutdown()  # the batch processor writes what it holds


if __name__ == "__main__":
    asyncio.run(production())
