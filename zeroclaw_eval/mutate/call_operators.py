"""Mutants of the dispatch list: calls dropped, duplicated, swapped, renamed, given other
arguments, other results, or made to fail.

Every operator applies at each call it can change. A change no check could ever see is
not made (altering a call that never happened, swapping calls to the same tool).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from zeroclaw_eval._support.json.pointer import resolve_pointer
from zeroclaw_eval._support.json.text import compact_json
from zeroclaw_eval.boundary.record import RecordedCall, RunRecord
from zeroclaw_eval.cases.model import LlmTrace, ToolCallSpec
from zeroclaw_eval.mutate.edits import is_number, leaves, nudge_number, nudge_text, replaced, without
from zeroclaw_eval.mutate.mutant import Mutant, argument_text, describe_call, shown

#: The result a call made to fail answers with.
FAILURE = "error: the tool failed"
#: A needle longer than this is cut to its last characters (where `nudge_text` edits).
NEEDLE = 60


def _position(calls: Sequence[RecordedCall], index: int) -> str:
    call = calls[index]
    in_turn = sum(1 for other in calls[:index] if other.turn == call.turn)
    return f"turn {call.turn + 1}, call {in_turn}"


def _tool_index(calls: Sequence[RecordedCall], index: int) -> int:
    """Which call to its tool `calls[index]` is (0-based): a check's `call_index`."""
    return sum(1 for other in calls[:index] if other.name == calls[index].name)


def needle_of(text: str) -> str:
    """A needle for `text` that sees a change to its end: the text, or its last
    characters from a word's start (a suggestion is read by people)."""
    if len(text) <= NEEDLE:
        return text
    tail = text[-NEEDLE:]
    space = tail.find(" ")
    return tail[space + 1 :] if 0 <= space < NEEDLE // 3 else tail


def _dispatch(family: str, call: RecordedCall, needle: str, index: int) -> dict[str, Any]:
    return {family: [{"tool": call.name, "needle": needle, "call_index": index}]}


def _call_candidates(calls: Sequence[RecordedCall], index: int) -> list[dict[str, Any]]:
    """Checks that pin one call down: its tool, its arguments, its result, the count."""
    call = calls[index]
    at = _tool_index(calls, index)
    arguments = argument_text(call)
    found: list[dict[str, Any]] = [{"tools_used": [call.name]}]
    if arguments:
        found.append(_dispatch("tool_arguments_contain", call, needle_of(arguments), at))
    if call.result:
        found.append(_dispatch("tool_results_contain", call, needle_of(call.result), at))
    found.append({"all_tools_succeeded": all(c.success for c in calls)})
    found.append({"exact_tool_calls": len(calls)})
    # The last call to the tool, by index: fails once any call to it goes missing.
    mine = [c for c in calls if c.name == call.name]
    last = mine[-1]
    text = argument_text(last)
    if text:
        found.append(_dispatch("tool_arguments_contain", last, needle_of(text), len(mine) - 1))
    return found


def _trajectory(calls: Sequence[RecordedCall]) -> dict[str, Any]:
    """The run's calls, by tool, in their order (a strict trajectory), which a missing,
    extra, renamed or reordered call fails: the check a reordering is about, and the last
    resort of the other call operators."""
    return {"trajectory": {"mode": "strict", "calls": [{"tool": call.name} for call in calls]}}


def _with_calls(record: RunRecord, calls: list[RecordedCall]) -> RunRecord:
    return replace(record, calls=calls)


def call_mutants(record: RunRecord, unused_tool: str) -> Iterator[Mutant]:
    """The in-memory mutants of `record`'s calls; `unused_tool` is a tool the case does
    not use, the name a renamed call gets."""
    calls = record.calls
    for index, call in enumerate(calls):
        where = _position(calls, index)
        candidates = (*_call_candidates(calls, index), _trajectory(calls))
        rest = calls[:index] + calls[index + 1 :]
        yield Mutant(
            "drop_call",
            where,
            describe_call(call),
            "(no call)",
            _with_calls(record, rest),
            candidates=candidates,
        )
        doubled = [*calls[: index + 1], call, *calls[index + 1 :]]
        yield Mutant(
            "duplicate_call",
            where,
            describe_call(call),
            f"{describe_call(call)} twice",
            _with_calls(record, doubled),
            candidates=({"exact_tool_calls": len(calls)}, {"max_tool_calls": len(calls)}, _trajectory(calls)),
        )
        renamed = replace(call, name=unused_tool)
        yield Mutant(
            "rename_tool",
            where,
            call.name,
            unused_tool,
            _with_calls(record, _swapped_in(calls, index, renamed)),
            candidates=candidates,
        )
        yield from _argument_mutants(record, index, where)
        at = _tool_index(calls, index)
        # Results are read only by "contains" checks, which an empty result passes none
        # of: a character added to it is a change no passing check could see.
        if call.result:
            altered = nudge_text(call.result)
            yield Mutant(
                "alter_result",
                where,
                shown(call.result),
                shown(altered),
                _with_calls(record, _swapped_in(calls, index, replace(call, result=altered))),
                candidates=(_dispatch("tool_results_contain", call, needle_of(call.result), at), *candidates),
            )
        if call.success:
            failed = replace(call, success=False, result=FAILURE)
            yield Mutant(
                "fail_call",
                where,
                "succeeded",
                f"failed with {shown(FAILURE)}",
                _with_calls(record, _swapped_in(calls, index, failed)),
                candidates=({"all_tools_succeeded": True}, *candidates),
            )


def _swapped_in(calls: list[RecordedCall], index: int, call: RecordedCall) -> list[RecordedCall]:
    return [*calls[:index], call, *calls[index + 1 :]]


def _argument_mutants(record: RunRecord, index: int, where: str) -> Iterator[Mutant]:
    calls = record.calls
    call = calls[index]
    at = _tool_index(calls, index)
    whole = argument_text(call)
    for pointer, value in leaves(call.arguments):
        new = nudge_number(value) if is_number(value) else nudge_text(value)
        altered = replace(call, arguments=replaced(call.arguments, pointer, new))
        needles = [needle_of(value) if isinstance(value, str) else compact_json(value)]
        parent, _, last = pointer.rpartition("/")
        if pointer and isinstance(resolve_pointer(call.arguments, parent), dict):
            # `"n":3` pins a number where a bare `3` may occur elsewhere in the arguments.
            key = last.replace("~1", "/").replace("~0", "~")
            needles.append(compact_json({key: value})[1:-1])
        needles += [needle_of(whole), whole]
        yield Mutant(
            "alter_argument",
            f"{where}, {pointer or 'arguments'}",
            shown(value) if isinstance(value, str) else compact_json(value),
            shown(new) if isinstance(new, str) else compact_json(new),
            _with_calls(record, _swapped_in(calls, index, altered)),
            candidates=tuple(_dispatch("tool_arguments_contain", call, n, at) for n in needles),
        )
    if isinstance(call.arguments, dict):
        for key, value in call.arguments.items():
            dropped = replace(call, arguments=without(call.arguments, key))
            needle = compact_json({key: value})[1:-1]  # `"key":value`, as compact JSON spells it
            yield Mutant(
                "drop_argument",
                f"{where}, {key}",
                needle if len(needle) <= NEEDLE else shown(needle),
                "(no such argument)",
                _with_calls(record, _swapped_in(calls, index, dropped)),
                candidates=tuple(
                    _dispatch("tool_arguments_contain", call, n, at)
                    for n in (needle, compact_json(key), needle_of(whole))
                ),
            )


def scripted_calls(trace: LlmTrace) -> list[tuple[int, int, int]]:
    """Where each scripted call sits: (turn, step, call) indexes, in dispatch order."""
    found = []
    for t, turn in enumerate(trace.turns):
        for s, step in enumerate(turn.steps or []):
            for c in range(len(step.response.tool_calls)):
                found.append((t, s, c))
    return found


def swap_mutants(record: RunRecord, trace: LlmTrace) -> Iterator[Mutant]:
    """Adjacent calls to different tools in one turn, asked for in the other order.

    The order of calls to different tools reaches a check only through what the tools
    do (a read before the write it needs fails), so each swap is a changed script that
    is replayed, tools and all. Only a replayed run whose calls match its script one to
    one can be swapped.
    """
    calls = record.calls
    places = scripted_calls(trace)
    if len(places) != len(calls) or any(
        _spec(trace, place).name != call.name for place, call in zip(places, calls, strict=True)
    ):
        return
    for index in range(len(calls) - 1):
        first, second = calls[index], calls[index + 1]
        if first.turn != second.turn or first.name == second.name:
            continue
        swapped = trace.model_copy(deep=True)
        a, b = _spec(swapped, places[index]), _spec(swapped, places[index + 1])
        _put(swapped, places[index], b)
        _put(swapped, places[index + 1], a)
        in_turn = int(_position(calls, index).rpartition(" ")[2])
        yield Mutant(
            "swap_calls",
            f"turn {first.turn + 1}, calls {in_turn} and {in_turn + 1}",
            f"{first.name} then {second.name}",
            f"{second.name} then {first.name}",
            trace=swapped,
            # The order itself first: what a swap changes, said as a check.
            candidates=(
                _trajectory(calls),
                {"all_tools_succeeded": all(c.success for c in calls)},
                *(
                    _dispatch("tool_results_contain", call, needle_of(call.result), _tool_index(calls, i))
                    for i, call in ((index, first), (index + 1, second))
                    if call.result
                ),
            ),
        )


def _spec(trace: LlmTrace, place: tuple[int, int, int]) -> ToolCallSpec:
    t, s, c = place
    steps = trace.turns[t].steps or []
    return steps[s].response.tool_calls[c]


def _put(trace: LlmTrace, place: tuple[int, int, int], spec: ToolCallSpec) -> None:
    t, s, c = place
    steps = trace.turns[t].steps or []
    steps[s].response.tool_calls[c] = spec
