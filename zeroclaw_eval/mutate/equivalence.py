"""The tool name a renamed call becomes: one the case names nowhere. (What a check can
see of a run, which tells an equivalent mutant, is `grading.families.observable`.)"""

from __future__ import annotations

from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.model import LlmTrace
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS


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
