"""The `trajectory` check: the recorded dispatch list against an expected list of calls.

Modes, over the calls the tool boundary recorded, in dispatch order:

- `strict`: exactly the expected calls, in their order;
- `unordered`: exactly the expected calls, in any order;
- `subset`: at least one call, each one of the expected (the run may leave some out);
- `superset`: each expected call among the run's, which may make others too.

A call matches an expected one when the tool is the same, its arguments compare as the
entry's `args_match` says (`exact`, the default when `args` is given: equal as JSON;
`subset`: every key of `args` is among the arguments, equal; `superset`: every argument
is among `args`, equal; a list of field names: those fields alone, each present in both
and equal, or absent from both; `ignore`, the default without `args`), and its outcome
is the entry's `status` when one is given. The unordered modes pair calls with expected
entries by a maximum matching (Kuhn's augmenting paths; both lists are short), so the
verdict never depends on which of two alike calls is tried first.

The verdict names the first divergence (the expected entry no call matched, or the call
no entry matched, by index) and points at that entry of the fixture.
"""

from __future__ import annotations

from typing import Any

from zeroclaw_eval._support.json.text import compact_json, json_equal
from zeroclaw_eval.boundary.record import RecordedCall
from zeroclaw_eval.cases.model import Trajectory, TrajectoryCall
from zeroclaw_eval.grading.result import TOOL, GradeResult, make_grade

POINTER = "/expects/trajectory"


def grade_trajectory(trajectory: Trajectory, calls: list[RecordedCall]) -> GradeResult:
    """The verdict of the trajectory check on the recorded `calls`."""
    expected = trajectory.calls
    if trajectory.mode == "strict":
        ok, where, said = _strict(expected, calls)
    else:
        ok, where, said = _matched(trajectory.mode, expected, calls)
    made = "; ".join(f"[{i}] {_called(call)}" for i, call in enumerate(calls)) or "none"
    detail = (
        f"expected the calls to be, {_MODE_WORDS[trajectory.mode]}: {_listing(expected)}; calls made: {made}"
    )
    if not ok:
        detail = f"{said}. {detail}"
    wanted = [entry.model_dump(exclude_none=True) for entry in expected]
    actual = [_as_written(call, expected[i] if i < len(expected) else None) for i, call in enumerate(calls)]
    return make_grade("trajectory", TOOL, where, ok, detail, wanted, actual)


def _as_written(call: RecordedCall, entry: TrajectoryCall | None) -> dict[str, Any]:
    """A recorded call in the words of the trajectory entry it is shown against (`tool`,
    `args`, `status`: "ok" | "error"), with what that entry leaves out left out too, so a
    diff of the two shows only what differs; a call past the entries, whole."""
    shown: dict[str, Any] = {"tool": call.name}
    if entry is None or entry.args is not None:
        shown["args"] = call.arguments
    if entry is None or entry.status is not None:
        shown["status"] = "ok" if call.success else "error"
    return shown


_MODE_WORDS = {
    "strict": "in this order",
    "unordered": "these in any order",
    "subset": "some of these (at least one), nothing else",
    "superset": "these among others, in any order",
}


def matches(entry: TrajectoryCall, call: RecordedCall) -> bool:
    """Whether `call` is the call `entry` expects (see the module)."""
    if call.name != entry.tool:
        return False
    if entry.status is not None and call.success != (entry.status == "ok"):
        return False
    return _arguments_match(entry, call.arguments)


def _how(entry: TrajectoryCall) -> str | list[str]:
    """How `entry`'s args compare: as it says, else `exact` with args and `ignore` without."""
    if entry.args_match is not None:
        return entry.args_match
    return "ignore" if entry.args is None else "exact"


def _arguments_match(entry: TrajectoryCall, received: Any) -> bool:
    how = _how(entry)
    if how == "ignore":
        return True
    wanted = entry.args or {}
    if how == "exact":
        return json_equal(received, wanted)
    if not isinstance(received, dict):
        return False  # arguments that are not an object share no field with `args`
    if how == "subset":
        return all(key in received and json_equal(received[key], value) for key, value in wanted.items())
    if how == "superset":
        return all(key in wanted and json_equal(value, wanted[key]) for key, value in received.items())
    return all(
        (field in received) == (field in wanted)
        and (field not in wanted or json_equal(received[field], wanted[field]))
        for field in how
    )


def _strict(expected: list[TrajectoryCall], calls: list[RecordedCall]) -> tuple[bool, str, str]:
    for index, entry in enumerate(expected):
        if index >= len(calls):
            return (
                False,
                f"{POINTER}/calls/{index}",
                f"call {index} (0-based) was never made: expected {_entry(entry)}",
            )
        if not matches(entry, calls[index]):
            said = f"call {index} (0-based) is {_called(calls[index])}, not the expected {_entry(entry)}"
            return False, f"{POINTER}/calls/{index}", said
    if len(calls) > len(expected):
        extra = len(expected)
        return False, f"{POINTER}/calls", f"call {extra} (0-based), {_called(calls[extra])}, is one too many"
    return True, POINTER, ""


def _matched(mode: str, expected: list[TrajectoryCall], calls: list[RecordedCall]) -> tuple[bool, str, str]:
    pair = _maximum_matching(expected, calls)  # expected index -> call index
    matched_calls = set(pair.values())
    unmatched_entry = next((i for i in range(len(expected)) if i not in pair), None)
    unmatched_call = next((j for j in range(len(calls)) if j not in matched_calls), None)
    entry_missing = unmatched_entry is not None and mode in ("unordered", "superset")
    call_extra = unmatched_call is not None and mode in ("unordered", "subset")
    if entry_missing:
        assert unmatched_entry is not None
        said = (
            f"no call matches expected call {unmatched_entry} (0-based), {_entry(expected[unmatched_entry])}"
        )
        return False, f"{POINTER}/calls/{unmatched_entry}", said
    if call_extra:
        assert unmatched_call is not None
        said = f"call {unmatched_call} (0-based), {_called(calls[unmatched_call])}, matches no expected call"
        return False, f"{POINTER}/calls", said
    if mode == "subset" and not calls:
        return False, f"{POINTER}/mode", "no call was made, and subset asks for at least one"
    return True, POINTER, ""


def _maximum_matching(expected: list[TrajectoryCall], calls: list[RecordedCall]) -> dict[int, int]:
    """A maximum matching of expected entries to calls (each used once), by augmenting paths."""
    fits = [[j for j, call in enumerate(calls) if matches(entry, call)] for entry in expected]
    owner: dict[int, int] = {}  # call index -> expected index

    def augment(i: int, seen: set[int]) -> bool:
        for j in fits[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(len(expected)):
        augment(i, set())
    return {i: j for j, i in owner.items()}


def _entry(entry: TrajectoryCall) -> str:
    args = "" if entry.args is None else compact_json(entry.args)
    how = _how(entry)
    shown = f"{entry.tool}({args})" if args else f"{entry.tool}(…)"
    kind = f" (args {how})" if how not in ("ignore", "exact") else ""
    status = f" {entry.status}" if entry.status else ""
    return f"{shown}{kind}{status}"


def _called(call: RecordedCall) -> str:
    args = compact_json(call.arguments) if isinstance(call.arguments, dict) else repr(call.arguments)
    return f"{call.name}({args}) {'ok' if call.success else 'error'}"


def _listing(expected: list[TrajectoryCall]) -> str:
    return "; ".join(f"[{i}] {_entry(entry)}" for i, entry in enumerate(expected)) or "none"
