"""The tool family: the recorded dispatch list (the one fact of what crossed the tool
boundary) against `tools_used`, `tools_not_used`, the bounds on the number of calls,
`all_tools_succeeded`, the needles of `tool_arguments_contain` and `tool_results_contain`,
and the `trajectory`."""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from zeroclaw_eval._support.json.text import compact_json, quote
from zeroclaw_eval.boundary.record import RecordedCall, RunRecord
from zeroclaw_eval.cases.model import DispatchCheck, Expects
from zeroclaw_eval.grading.details import ToolCalls
from zeroclaw_eval.grading.matching import arguments_contain
from zeroclaw_eval.grading.result import TOOL, GradeResult, make_grade
from zeroclaw_eval.grading.trajectory import grade_trajectory
from zeroclaw_eval.tools.workspace import Workspace


def tool_checks(
    expects: Expects, record: RunRecord, workspace: Workspace | None, words: bool
) -> Iterator[GradeResult]:
    """Every check of the tool family `expects` declares, against `record`'s calls."""
    return _tool_checks(expects, record.calls, words)


def reads_calls(record: RunRecord) -> Hashable:
    """What the tool family reads of a run: each tool's calls in their order (the order of
    calls to different tools reaches no check), each call's arguments, result and
    success, and so how many there were."""
    per_tool: dict[str, list[tuple[str, str, bool]]] = {}
    for call in record.calls:
        arguments = call.arguments if isinstance(call.arguments, str) else "\0" + compact_json(call.arguments)
        per_tool.setdefault(call.name, []).append((arguments, call.result, call.success))
    return tuple(sorted((name, tuple(calls)) for name, calls in per_tool.items()))


def _tool_checks(expects: Expects, calls: list[RecordedCall], words: bool) -> Iterator[GradeResult]:
    names = [call.name for call in calls]
    made = ", ".join(names) if names else "none"
    for i, tool in enumerate(expects.tools_used):
        ok = tool in names
        detail = f"expected {tool} to be called; calls made: {made}" if words or not ok else ""
        yield make_grade(f"tools_used[{i}]", TOOL, f"/expects/tools_used/{i}", ok, detail, tool, names)
    for i, tool in enumerate(expects.tools_not_used):
        ok = tool not in names
        detail = f"expected {tool} not to be called; calls made: {made}" if words or not ok else ""
        yield make_grade(
            f"tools_not_used[{i}]", TOOL, f"/expects/tools_not_used/{i}", ok, detail, tool, names
        )
    for key, holds, said in _BOUNDS:
        bound = getattr(expects, key)
        if bound is not None:
            ok = holds(len(calls), bound)
            detail = (
                f"expected {said} {bound} tool call(s); found {len(calls)} ({made})"
                if words or not ok
                else ""
            )
            yield make_grade(key, TOOL, f"/expects/{key}", ok, detail, bound, len(calls))
    if expects.all_tools_succeeded is not None:
        failed = [c for c in calls if not c.success]
        if expects.all_tools_succeeded:
            ok, expectation = not failed, "every tool call to succeed"
        else:
            ok, expectation = bool(failed), "at least one tool call to fail"
        detail = ""
        if words or not ok:
            listed = "; ".join(f"{c.name}: {quote(c.result)}" for c in failed) or "none"
            detail = f"expected {expectation}; {len(calls)} call(s), failed: {listed}"
        yield make_grade(
            "all_tools_succeeded",
            TOOL,
            "/expects/all_tools_succeeded",
            ok,
            detail,
            expects.all_tools_succeeded,
            not failed,
        )
    by_tool = ToolCalls(calls)
    for family, results in (("tool_arguments_contain", False), ("tool_results_contain", True)):
        for i, check in enumerate(getattr(expects, family)):
            yield _dispatch_check(f"{family}[{i}]", f"/expects/{family}/{i}", check, by_tool, results, words)
    if expects.trajectory is not None:
        yield grade_trajectory(expects.trajectory, calls)


#: The bounds on the number of tool calls: the key, whether a count keeps it, and in words.
_BOUNDS: tuple[tuple[str, Callable[[int, int], bool], str], ...] = (
    ("min_tool_calls", operator.ge, "at least"),
    ("max_tool_calls", operator.le, "at most"),
    ("exact_tool_calls", operator.eq, "exactly"),
)


def _dispatch_check(
    check_id: str, pointer: str, check: DispatchCheck, by_tool: ToolCalls, results: bool, words: bool
) -> GradeResult:
    calls = by_tool.calls
    mine = by_tool.to(check.tool)
    where = "result" if results else "arguments"

    def matches(call: RecordedCall) -> bool:
        return check.needle in call.result if results else arguments_contain(call.arguments, check.needle)

    if check.call_index is None:
        ok = any(matches(call) for call in mine)
        target = f"some call to {check.tool}"
    else:
        ok = check.call_index < len(mine) and matches(mine[check.call_index])
        target = f"call {check.call_index} (0-based) to {check.tool}"
    detail = ""
    if words or not ok:
        if mine:
            described = by_tool.described(check.tool, results=results)
            observed = f"{check.tool} was called {len(mine)} time(s): {described}"
        else:
            observed = (
                f"{check.tool} was never called; calls made: {', '.join(c.name for c in calls) or 'none'}"
            )
        detail = f"expected the {where} of {target} to contain {quote(check.needle)}; {observed}"
    found = [call.result if results else call.arguments for call in mine]
    # With a call_index, what was found is that call alone (None when there is no such
    # call), not every call: a report's "found" must be what the check looked at.
    actual: Any = found
    if check.call_index is not None:
        actual = found[check.call_index] if check.call_index < len(found) else None
    return make_grade(check_id, TOOL, pointer, ok, detail, check.needle, actual)
