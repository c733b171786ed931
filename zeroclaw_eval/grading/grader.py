"""Grading: one `GradeResult` per declared check, from a `RunRecord` and the workspace.

A grader never raises: an invalid regex, an unreadable file or a path that leaves the
workspace is a failed check with a detail. Dispatch checks read only the recorded
calls, the canonical fact of what crossed the tool boundary.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Iterator
from typing import Any

from zeroclaw_eval._support.json.pointer import MISSING, join_pointer, resolve_pointer
from zeroclaw_eval._support.json.text import compact_json, json_equal, quote
from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord
from zeroclaw_eval.cases.model import DispatchCheck, Expects
from zeroclaw_eval.errors import InvalidRegex
from zeroclaw_eval.grading.details import ToolCalls, number_text
from zeroclaw_eval.grading.judge import judge_checks
from zeroclaw_eval.grading.matching import arguments_contain, regex_search, response_as_json
from zeroclaw_eval.grading.result import BUDGET, REQUEST, RESPONSE, SIDE_EFFECT, TOOL, GradeResult, make_grade
from zeroclaw_eval.grading.trajectory import grade_trajectory
from zeroclaw_eval.grading.workspace_checks import workspace_checks
from zeroclaw_eval.tools.workspace import Workspace


def grade(
    expects: Expects, record: RunRecord, workspace: Workspace | None = None, *, words: bool = True
) -> list[GradeResult]:
    """Grade every declared check of `expects` against `record`, in family order.

    With `words` false a passing check of the common families gets no words (`detail`
    ""): a run that keeps passing cases compact never shows them, and putting what each
    check found into words is most of grading's work. A failing check always gets them.
    """
    grades: list[GradeResult] = []
    grades.extend(_response_checks(expects, record.final_response, words))
    if expects.judge:
        grades.extend(judge_checks(expects.judge, record.final_response))
    grades.extend(_tool_checks(expects, record.calls, words))
    grades.extend(_request_checks(expects, record.steps, words))
    if expects.workspace is not None:
        grades.extend(workspace_checks(expects.workspace, workspace))
    if expects.budget is not None:
        grades.extend(_budget_checks(expects, record, words))
    return grades


def in_words(grades: list[GradeResult], expects: Expects, record: RunRecord) -> list[GradeResult]:
    """`grades` (of `grade(..., words=False)`) with every passing check in words, for a case
    that turns out not to pass: it keeps every detail. The checks of the record are graded
    again; a workspace check, which the workspace gone could not grade again, always has
    its words."""
    if all(g.detail or not g.passed for g in grades):
        return grades
    again = {g.check_id: g for g in grade(expects, record) if g.category != SIDE_EFFECT}
    return [again.get(g.check_id, g) if g.passed and not g.detail else g for g in grades]


def _response_checks(expects: Expects, response: str, words: bool) -> Iterator[GradeResult]:
    quoted: list[str] = []

    def found() -> str:  # the response quoted once, and only for a check that says it
        if not quoted:
            quoted.append(f"found {quote(response)}" if response else "the final response is empty")
        return quoted[0]

    for i, needle in enumerate(expects.response_contains):
        ok = needle in response
        detail = (
            f"expected the final response to contain {quote(needle)}; {found()}" if words or not ok else ""
        )
        yield make_grade(
            f"response_contains[{i}]",
            RESPONSE,
            f"/expects/response_contains/{i}",
            ok,
            detail,
            needle,
            response,
        )
    for i, needle in enumerate(expects.response_not_contains):
        ok = needle not in response
        detail = (
            f"expected the final response not to contain {quote(needle)}; {found()}"
            if words or not ok
            else ""
        )
        yield make_grade(
            f"response_not_contains[{i}]",
            RESPONSE,
            f"/expects/response_not_contains/{i}",
            ok,
            detail,
            needle,
            response,
        )
    for i, pattern in enumerate(expects.response_matches):
        pointer = f"/expects/response_matches/{i}"
        try:
            ok = regex_search(pattern, response)
            detail = f"expected the final response to match /{pattern}/ (RE2); {found()}"
        except InvalidRegex as exc:
            ok, detail = False, f"invalid regex /{pattern}/ (RE2 syntax: {exc})"
        yield make_grade(f"response_matches[{i}]", RESPONSE, pointer, ok, detail, pattern, response)
    if expects.response_json:
        document = response_as_json(response)
        for pointer, expected in expects.response_json.items():
            check_id = f"response_json[{json.dumps(pointer, ensure_ascii=False)}]"
            field = join_pointer("/expects/response_json", pointer)
            want = compact_json(expected)
            if document is MISSING:
                detail = f"expected {pointer or '(root)'} = {want}; response is not JSON ({found()})"
                yield make_grade(check_id, RESPONSE, field, False, detail, expected, response)
                continue
            actual = resolve_pointer(document, pointer)
            if actual is MISSING:
                ok, shown = False, "no such member in the response JSON"
                actual = None
            else:
                ok, shown = json_equal(actual, expected), f"found {compact_json(actual)}"
            detail = f"expected {pointer or '(root)'} = {want}; {shown}"
            yield make_grade(check_id, RESPONSE, field, ok, detail, expected, actual)


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


def _request_checks(expects: Expects, steps: list[ModelStep], words: bool) -> Iterator[GradeResult]:
    """What every request the agent sent held (a run that sent none holds anything)."""
    if not expects.system_prompt_contains and not expects.tools_offered:
        return  # most cases: nothing of the requests to read
    prompts = [step.system_prompt for step in steps]
    for i, needle in enumerate(expects.system_prompt_contains):
        lacking = [n for n, prompt in enumerate(prompts) if needle not in (prompt or "")]
        first = prompts[lacking[0]] if lacking else None
        found = f"its system prompt is {quote(first)}" if first is not None else "it has no system prompt"
        expectation = f"the system prompt of every request to contain {quote(needle)}"
        pointer = f"/expects/system_prompt_contains/{i}"
        yield _every_request(
            f"system_prompt_contains[{i}]",
            pointer,
            steps,
            lacking,
            expectation,
            found,
            needle,
            prompts,
            words,
        )
    offered = [step.offered_tools for step in steps]
    for i, tool in enumerate(expects.tools_offered):
        lacking = [n for n, names in enumerate(offered) if tool not in names]
        found = f"it offers {', '.join(offered[lacking[0]]) or 'no tool'}" if lacking else ""
        pointer = f"/expects/tools_offered/{i}"
        yield _every_request(
            f"tools_offered[{i}]",
            pointer,
            steps,
            lacking,
            f"every request to offer {tool}",
            found,
            tool,
            offered,
            words,
        )


def _every_request(
    check_id: str,
    pointer: str,
    steps: list[ModelStep],
    lacking: list[int],
    expectation: str,
    found: str,
    expected: Any,
    actual: Any,
    words: bool,
) -> GradeResult:
    if not words and not lacking:
        return make_grade(check_id, REQUEST, pointer, True, "", expected, actual)
    if lacking:
        first = lacking[0]
        observed = (
            f"{len(lacking)} of {len(steps)} request(s) do not; the first, request {first + 1}"
            f" (turn {steps[first].turn + 1}): {found}"
        )
    else:
        observed = f"all {len(steps)} request(s) do"
    return make_grade(
        check_id, REQUEST, pointer, not lacking, f"expected {expectation}; {observed}", expected, actual
    )


def _budget_checks(expects: Expects, record: RunRecord, words: bool) -> Iterator[GradeResult]:
    assert expects.budget is not None
    spent = {
        "max_input_tokens": (record.input_tokens, "input tokens"),
        "max_output_tokens": (record.output_tokens, "output tokens"),
        "max_total_tokens": (record.input_tokens + record.output_tokens, "tokens in all"),
        "max_duration_ms": (round(record.duration_ms, 3), "ms of wall time"),
        "max_llm_calls": (record.llm_calls, "LLM calls"),
    }
    for key, (value, unit) in spent.items():
        bound = getattr(expects.budget, key)
        if bound is not None:
            ok = value <= bound
            detail = (
                f"expected at most {number_text(bound)} {unit}; spent {number_text(value)}"
                if words or not ok
                else ""
            )
            yield make_grade(f"budget.{key}", BUDGET, f"/expects/budget/{key}", ok, detail, bound, value)
