"""What a check can see of a run, so that a mutant no check could tell from the real run
is known for what it is (equivalent) and never reported as a survivor."""

from __future__ import annotations

from collections.abc import Hashable

from zeroclaw_eval._support.json.text import compact_json
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.model import LlmTrace
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS


def observable(record: RunRecord) -> Hashable:
    """Everything of `record` that some check reads, and nothing else.

    Checks read the final response; each tool's calls in their order (the order of
    calls to *different* tools reaches no check); how many calls there were; whether
    each succeeded; the tokens and LLM calls spent; and what the set of requests held
    (system prompts and offered tools are checked on every request, so their order and
    repeats do not matter). Wall time is not here: it is never the same twice.
    """
    per_tool: dict[str, list[tuple[str, str, bool]]] = {}
    for call in record.calls:
        arguments = call.arguments if isinstance(call.arguments, str) else "\0" + compact_json(call.arguments)
        per_tool.setdefault(call.name, []).append((arguments, call.result, call.success))
    requests = frozenset((step.system_prompt, tuple(step.offered_tools)) for step in record.steps)
    return (
        record.final_response,
        tuple(sorted((name, tuple(calls)) for name, calls in per_tool.items())),
        record.input_tokens,
        record.output_tokens,
        record.llm_calls,
        requests,
    )


def unused_tool(trace: LlmTrace, record: RunRecord) -> str:
    """A tool name the case names nowhere (its tools, doubles, checks) and never calls:
    what a renamed call becomes, so that no check kills the rename by coincidence."""
    expects = trace.expects
    named = [*expects.tools_used, *expects.tools_not_used, *expects.tools_offered]
    named += [check.tool for check in (*expects.tool_arguments_contain, *expects.tool_results_contain)]
    taken = set(trace.tools) | set(trace.tool_doubles) | set(named) | {call.name for call in record.calls}
    for name in sorted(BUILTIN_TOOLS):
        if name not in taken:
            return name
    return next(f"other_tool_{n}" for n in range(len(taken) + 1) if f"other_tool_{n}" not in taken)
