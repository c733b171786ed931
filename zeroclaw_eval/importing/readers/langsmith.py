"""A LangSmith export, read into `ImportedTrace`s.

What LangSmith's API returns for runs: a root run with its `child_runs` nested
(`read_run(..., load_child_runs=True)`), or a flat list of runs (`list_runs`, JSON or
JSON lines) that each name their `trace_id`. A run of `run_type: "llm"` is a model call:
its `inputs` the request (`messages`, and `tools`, as `wrap_openai` records the client's
arguments; LangChain's serialized messages too), its `outputs` the reply (a whole Chat
Completion, LangChain's `generations`, or a message). A `tool` run is a tool run:
`inputs` the arguments, `outputs.output` the result, `error` a failure. The root run
names the agent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from zeroclaw_eval._support.json.text import compact_json
from zeroclaw_eval.boundary.provider import ModelResponse
from zeroclaw_eval.importing.messages import chat_messages, reply_of, tool_names
from zeroclaw_eval.importing.trace import ImportedTrace, ModelCall, ToolRun, iso_ns, read_once, tokens


def _run(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("run_type"), str) and "id" in item


def is_langsmith(document: Any) -> bool:
    """Whether `document` is a LangSmith run export."""
    items = document if isinstance(document, list) else [document]
    return bool(items) and all(_run(item) for item in items)


def _flattened(runs: list[Any]) -> Iterator[dict[str, Any]]:
    """Each run, then its child runs, depth first: without recursion, so that runs
    nested as deep as JSON's reader goes are read, not a `RecursionError`."""
    stack = list(reversed(runs))
    while stack:
        run = stack.pop()
        if _run(run):
            yield run
            children = run.get("child_runs")
            stack.extend(reversed(children if isinstance(children, list) else []))


def langsmith_records(document: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each run of a LangSmith export with the id of its trace, for `read_langsmith`
    once every file is in."""
    for run in _flattened(document if isinstance(document, list) else [document]):
        yield str(run.get("trace_id") or run.get("id")), run


def _content(run: dict[str, Any]) -> dict[str, Any]:
    """What a run says of itself: its child runs are runs of their own (a flat list
    that also nests them holds each twice, once with them and once without)."""
    return {key: value for key, value in run.items() if key != "child_runs"}


def read_langsmith(trace_id: str, runs: list[dict[str, Any]], shown: str) -> ImportedTrace:
    """One trace of LangSmith exports: its runs, of every file that held them, each read
    once (`read_once`)."""
    trace = ImportedTrace("langsmith", shown, trace_id)
    runs, trace.conflicting = read_once(runs, lambda run: str(run.get("id")), _content)
    root = next((run for run in runs if not run.get("parent_run_id")), None)
    if root is not None and isinstance(root.get("name"), str) and root["name"]:
        trace.agent = root["name"]
    for run in runs:
        run_id = str(run.get("id"))
        start = iso_ns(run.get("start_time")) or 0
        if trace.started_ns is None or (start and start < trace.started_ns):
            trace.started_ns = start or trace.started_ns
        if run.get("end_time") is None:
            trace.unfinished.append(run_id)
        if run.get("run_type") == "llm":
            trace.calls.append(_model_call(run_id, start, run))
            trace.provider = trace.provider or _provider(run)
        elif run.get("run_type") == "tool":
            trace.tools.append(_tool_run(run_id, start, run))
    return trace


def _model_call(run_id: str, start: int, run: dict[str, Any]) -> ModelCall:
    inputs = run.get("inputs")
    call = ModelCall(run_id, start, chat_messages(inputs), None, label=str(run.get("name") or ""))
    call.reply_attribute = "outputs"
    call.failed = _failed(run)
    reply = reply_of(run.get("outputs"))
    if reply is not None:
        call.reply = ModelResponse(
            reply.content,
            reply.tool_calls,
            tokens(run.get("prompt_tokens")),
            tokens(run.get("completion_tokens")),
        )
    if isinstance(inputs, dict) and isinstance(inputs.get("tools"), list):
        call.offered = tool_names(inputs["tools"])
    return call


def _tool_run(run_id: str, start: int, run: dict[str, Any]) -> ToolRun:
    outputs = run.get("outputs")
    result = outputs.get("output") if isinstance(outputs, dict) and "output" in outputs else outputs
    if result is not None and not isinstance(result, str):
        result = compact_json(result)
    inputs = run.get("inputs")
    # A LangChain tool records its one argument as `input`; a traced function, its keywords.
    arguments = inputs.get("input") if isinstance(inputs, dict) and set(inputs) == {"input"} else inputs
    failed = _failed(run)
    return ToolRun(
        run_id,
        start,
        str(run.get("name") or ""),
        "",
        arguments,
        str(run.get("error")) if failed and run.get("error") is not None else result,
        not failed,
    )


def _failed(run: dict[str, Any]) -> bool:
    """Whether LangSmith says a run failed: its `error` is set, its `status` says so (in
    any case), or its outputs are only an error (what a traced function that caught its
    exception returns: `{"error": ...}`)."""
    if run.get("error") is not None or str(run.get("status") or "").strip().lower() == "error":
        return True
    outputs = run.get("outputs")
    return isinstance(outputs, dict) and set(outputs) == {"error"} and outputs["error"] not in (None, "")


def _provider(run: dict[str, Any]) -> str | None:
    """The provider LangChain and `wrap_openai` note in a run's metadata (`ls_provider`)."""
    extra = run.get("extra")
    metadata = extra.get("metadata") if isinstance(extra, dict) else None
    provider = metadata.get("ls_provider") if isinstance(metadata, dict) else None
    return provider if isinstance(provider, str) and provider else None
