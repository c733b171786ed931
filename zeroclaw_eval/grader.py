"""Grading: one `GradeResult` per declared check, from a `RunRecord` and the workspace.

A grader never raises: an invalid regex, an unreadable file or a path that leaves the
workspace is a failed check with a detail. Dispatch checks read only the recorded
calls, the canonical fact of what crossed the tool boundary.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from zeroclaw_eval.case import DispatchCheck, Expects
from zeroclaw_eval.jsonpos import join_pointer
from zeroclaw_eval.location import FieldRef
from zeroclaw_eval.matching import (
    RegexError,
    arguments_contain,
    compact_json,
    is_missing,
    json_equal,
    regex_search,
    resolve_pointer,
    response_as_json,
)
from zeroclaw_eval.record import RecordedCall, RunRecord
from zeroclaw_eval.workspace import OutsideWorkspace, Workspace

RESPONSE, TOOL, SIDE_EFFECT, BUDGET = "response", "tool", "side_effect", "budget"
CATEGORIES = (RESPONSE, TOOL, SIDE_EFFECT, BUDGET)
_SHOWN = 300  # characters of observed text quoted in a detail


@dataclass(frozen=True)
class GradeResult:
    """The verdict of one declared check, with what was expected and what was found."""

    check_id: str
    category: str
    passed: bool
    detail: str
    field: FieldRef
    expected: Any = None
    actual: Any = None


def _cut(text: str, limit: int) -> tuple[str, str]:
    """`text` cut after `limit` characters, and the note that says how much was left out."""
    if len(text) <= limit:
        return text, ""
    return text[:limit], f"… ({len(text) - limit} more characters)"


def quote(text: str, limit: int = _SHOWN) -> str:
    """`text` as a JSON string literal, cut after `limit` characters with a note."""
    head, note = _cut(text, limit)
    return json.dumps(head, ensure_ascii=False) + note


def describe_calls(calls: list[RecordedCall], *, results: bool = False) -> str:
    """The observed calls, numbered per tool, for a detail."""
    if not calls:
        return "no tool was called"
    lines = []
    for index, call in enumerate(calls):
        payload = quote(call.result) if results else _argument_text(call.arguments)
        status = "" if call.success else " (failed)"
        lines.append(f"[{index}] {call.name}{status}: {payload}")
    return "; ".join(lines)


def _argument_text(arguments: Any) -> str:
    # Raw (unparsed) argument text is quoted so it cannot be mistaken for an object.
    if isinstance(arguments, str):
        return quote(arguments)
    head, note = _cut(compact_json(arguments), _SHOWN)
    return head + note


def _grade(
    check_id: str,
    category: str,
    pointer: str,
    passed: bool,
    detail: str,
    expected: Any = None,
    actual: Any = None,
) -> GradeResult:
    return GradeResult(check_id, category, passed, detail, FieldRef(pointer), expected, actual)


def grade(expects: Expects, record: RunRecord, workspace: Workspace | None = None) -> list[GradeResult]:
    """Grade every declared check of `expects` against `record`, in family order."""
    grades: list[GradeResult] = []
    grades.extend(_response_checks(expects, record.final_response))
    grades.extend(_tool_checks(expects, record.calls))
    if expects.workspace is not None:
        grades.extend(_workspace_checks(expects, workspace))
    if expects.budget is not None:
        grades.extend(_budget_checks(expects, record))
    return grades


def _response_checks(expects: Expects, response: str) -> Iterator[GradeResult]:
    found = f"found {quote(response)}" if response else "the final response is empty"
    for i, needle in enumerate(expects.response_contains):
        ok = needle in response
        detail = f"expected the final response to contain {quote(needle)}; {found}"
        yield _grade(
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
        detail = f"expected the final response not to contain {quote(needle)}; {found}"
        yield _grade(
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
            detail = f"expected the final response to match /{pattern}/ (RE2); {found}"
        except RegexError as exc:
            ok, detail = False, f"invalid regex /{pattern}/ (RE2 syntax: {exc})"
        yield _grade(f"response_matches[{i}]", RESPONSE, pointer, ok, detail, pattern, response)
    if expects.response_json:
        document = response_as_json(response)
        for pointer, expected in expects.response_json.items():
            check_id = f"response_json[{json.dumps(pointer, ensure_ascii=False)}]"
            field = join_pointer("/expects/response_json", pointer)
            want = compact_json(expected)
            if is_missing(document):
                detail = f"expected {pointer or '(root)'} = {want}; response is not JSON ({found})"
                yield _grade(check_id, RESPONSE, field, False, detail, expected, response)
                continue
            actual = resolve_pointer(document, pointer)
            if is_missing(actual):
                ok, shown = False, "no such member in the response JSON"
                actual = None
            else:
                ok, shown = json_equal(actual, expected), f"found {compact_json(actual)}"
            detail = f"expected {pointer or '(root)'} = {want}; {shown}"
            yield _grade(check_id, RESPONSE, field, ok, detail, expected, actual)


def _tool_checks(expects: Expects, calls: list[RecordedCall]) -> Iterator[GradeResult]:
    names = [call.name for call in calls]
    made = ", ".join(names) if names else "none"
    for i, tool in enumerate(expects.tools_used):
        detail = f"expected {tool} to be called; calls made: {made}"
        yield _grade(f"tools_used[{i}]", TOOL, f"/expects/tools_used/{i}", tool in names, detail, tool, names)
    for i, tool in enumerate(expects.tools_not_used):
        detail = f"expected {tool} not to be called; calls made: {made}"
        yield _grade(
            f"tools_not_used[{i}]",
            TOOL,
            f"/expects/tools_not_used/{i}",
            tool not in names,
            detail,
            tool,
            names,
        )
    bounds: list[tuple[str, int | None, Callable[[int, int], bool], str]] = [
        ("min_tool_calls", expects.min_tool_calls, lambda n, b: n >= b, "at least"),
        ("max_tool_calls", expects.max_tool_calls, lambda n, b: n <= b, "at most"),
        ("exact_tool_calls", expects.exact_tool_calls, lambda n, b: n == b, "exactly"),
    ]
    for key, bound, holds, words in bounds:
        if bound is not None:
            detail = f"expected {words} {bound} tool call(s); found {len(calls)} ({made})"
            yield _grade(key, TOOL, f"/expects/{key}", holds(len(calls), bound), detail, bound, len(calls))
    if expects.all_tools_succeeded is not None:
        failed = [c for c in calls if not c.success]
        listed = "; ".join(f"{c.name}: {quote(c.result)}" for c in failed) or "none"
        if expects.all_tools_succeeded:
            ok, words = not failed, "every tool call to succeed"
        else:
            ok, words = bool(failed), "at least one tool call to fail"
        detail = f"expected {words}; {len(calls)} call(s), failed: {listed}"
        yield _grade(
            "all_tools_succeeded",
            TOOL,
            "/expects/all_tools_succeeded",
            ok,
            detail,
            expects.all_tools_succeeded,
            not failed,
        )
    for family, results in (("tool_arguments_contain", False), ("tool_results_contain", True)):
        for i, check in enumerate(getattr(expects, family)):
            yield _dispatch_check(f"{family}[{i}]", f"/expects/{family}/{i}", check, calls, results)


def _dispatch_check(
    check_id: str, pointer: str, check: DispatchCheck, calls: list[RecordedCall], results: bool
) -> GradeResult:
    mine = [call for call in calls if call.name == check.tool]
    where = "result" if results else "arguments"

    def matches(call: RecordedCall) -> bool:
        return check.needle in call.result if results else arguments_contain(call.arguments, check.needle)

    if check.call_index is None:
        ok = any(matches(call) for call in mine)
        target = f"some call to {check.tool}"
    else:
        ok = check.call_index < len(mine) and matches(mine[check.call_index])
        target = f"call {check.call_index} (0-based) to {check.tool}"
    if mine:
        observed = f"{check.tool} was called {len(mine)} time(s): {describe_calls(mine, results=results)}"
    else:
        observed = f"{check.tool} was never called; calls made: {', '.join(c.name for c in calls) or 'none'}"
    detail = f"expected the {where} of {target} to contain {quote(check.needle)}; {observed}"
    actual = [call.result if results else call.arguments for call in mine]
    return _grade(check_id, TOOL, pointer, ok, detail, check.needle, actual)


def _workspace_checks(expects: Expects, workspace: Workspace | None) -> Iterator[GradeResult]:
    assert expects.workspace is not None
    spec = expects.workspace

    def where(relative: str) -> tuple[Any, str | None]:
        if workspace is None:
            return None, "the case has no workspace"
        try:
            return workspace.resolve(relative), None
        except OutsideWorkspace as exc:
            return None, f"{exc}; nothing was read"

    for i, relative in enumerate(spec.file_exists):
        path, problem = where(relative)
        ok = path is not None and path.exists()
        detail = (
            problem or f"expected {relative} to exist in the workspace; {'it does' if ok else 'it does not'}"
        )
        yield _grade(
            f"workspace.file_exists[{i}]",
            SIDE_EFFECT,
            f"/expects/workspace/file_exists/{i}",
            ok,
            detail,
            relative,
            ok,
        )
    for i, relative in enumerate(spec.file_absent):
        path, problem = where(relative)
        ok = path is not None and not path.exists()
        detail = (
            problem
            or f"expected {relative} to be absent from the workspace; {'it is' if ok else 'it exists'}"
        )
        yield _grade(
            f"workspace.file_absent[{i}]",
            SIDE_EFFECT,
            f"/expects/workspace/file_absent/{i}",
            ok,
            detail,
            relative,
            not ok,
        )
    for relative, needles in spec.file_contains.items():
        path, problem = where(relative)
        text: str | None = None
        if problem is None and path is not None:
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                problem = f"cannot read {relative}: {exc.strerror or exc}"
        key = json.dumps(relative, ensure_ascii=False)
        for i, needle in enumerate(needles):
            pointer = join_pointer("/expects/workspace/file_contains", relative, i)
            ok = text is not None and needle in text
            found = problem or (f"found {quote(text)}" if text is not None else "")
            detail = f"expected {relative} to contain {quote(needle)}; {found}"
            yield _grade(
                f"workspace.file_contains[{key}][{i}]",
                SIDE_EFFECT,
                pointer,
                ok,
                detail,
                needle,
                text,
            )


def _budget_checks(expects: Expects, record: RunRecord) -> Iterator[GradeResult]:
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
            detail = f"expected at most {bound} {unit}; spent {value}"
            yield _grade(
                f"budget.{key}",
                BUDGET,
                f"/expects/budget/{key}",
                value <= bound,
                detail,
                bound,
                value,
            )
