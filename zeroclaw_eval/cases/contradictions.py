"""Checks of two families that no run can satisfy together: admission refuses them.

A fixture whose checks contradict each other can never pass, whatever the agent does:
it certifies nothing, and its failure would read as the agent's. The bounds of one family
(`min_tool_calls` above `max_tool_calls`, a tool both used and not used) are in
`cases.rules`; here are the pairs across families, found by asking what each check needs
of the run's dispatch list, its final answer and its workspace:

- **calls needed against the calls allowed**: `tools_used`, `tool_arguments_contain` and
  `tool_results_contain` (a call to the tool; with `call_index: N`, N + 1 of them),
  `all_tools_succeeded: false` (a failed call) and a `subset` trajectory (at least one
  call) need calls that `max_tool_calls` or `exact_tool_calls` may not allow;
- **a tool needed and a tool forbidden**: a needle on the calls to a tool in
  `tools_not_used`; a tool used, or searched, that a `strict`, `unordered` or `subset`
  trajectory (the calls are these and no others) does not list, or lists too few times;
- **a failure needed where none can happen**: `all_tools_succeeded: false` with a
  `strict`, `unordered` or `subset` trajectory whose every call is `ok`, and at least
  `min_tool_calls` from a trajectory that allows fewer;
- **the final answer**: the last turn's needle in `turn_response_contains` holding a
  text `response_not_contains` forbids (the final response is the last turn's answer);
- **the workspace**: a path that must exist, or hold text, inside one that must be absent.

Each problem points at one of the two checks and names the other's pointer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator

from zeroclaw_eval._support.json.pointer import join_pointer
from zeroclaw_eval.cases.location import RawProblem
from zeroclaw_eval.cases.model import Expects, TrajectoryCall
from zeroclaw_eval.cases.workspace_paths import file_parts

#: Names the later of two keys of `expects` (where a contradiction between them is shown).
Later = Callable[[str, str], str]

#: The trajectory modes that allow no call besides those listed (`subset`: some of them).
_CLOSED = ("strict", "unordered", "subset")


def contradiction_rules(expects: Expects, later: Later, turns: int | None) -> Iterator[RawProblem]:
    """Every pair of checks of `expects` no run can satisfy together (see the module)."""
    if _asks_of_calls(expects):
        yield from _calls_needed_and_allowed(expects)
        yield from _tools_needed_and_forbidden(expects)
    if turns and expects.turn_response_contains and expects.response_not_contains:
        yield from _final_answer(expects, turns)
    if expects.workspace is not None and expects.workspace.file_absent:
        yield from _workspace(expects)


def _asks_of_calls(expects: Expects) -> bool:
    """Whether more than one check speaks of the dispatch list (most fixtures: no)."""
    return (
        expects.trajectory is not None
        or bool(expects.tool_arguments_contain or expects.tool_results_contain)
        or expects.all_tools_succeeded is False
    )


def _needs(expects: Expects) -> tuple[Counter[str], list[str]]:
    """How many calls to each tool the checks need at least, and the pointers of those
    that need some (a `superset` trajectory's calls among them; the calls of the other
    modes are bounded by the trajectory's own rule, in `cases.rules`)."""
    needed: Counter[str] = Counter()
    who: list[str] = []
    for index, tool in enumerate(expects.tools_used):
        needed[tool] = max(needed[tool], 1)
        who.append(f"/expects/tools_used/{index}")
    for family in ("tool_arguments_contain", "tool_results_contain"):
        for index, check in enumerate(getattr(expects, family)):
            needed[check.tool] = max(needed[check.tool], (check.call_index or 0) + 1)
            who.append(f"/expects/{family}/{index}")
    trajectory = expects.trajectory
    if trajectory is not None and trajectory.mode == "superset" and trajectory.calls:
        # Its calls are among the run's: each call to a tool can serve a needle too.
        for tool, count in Counter(entry.tool for entry in trajectory.calls).items():
            needed[tool] = max(needed[tool], count)
        who.append("/expects/trajectory/calls")
    return needed, who


def _calls_needed_and_allowed(expects: Expects) -> Iterator[RawProblem]:
    needed, who = _needs(expects)
    least = sum(needed.values())
    trajectory = expects.trajectory
    if expects.all_tools_succeeded is False:
        # A failed call is needed: one more, unless a call needed anyway may fail (not one
        # a superset trajectory expects to be ok).
        ok = 0
        if trajectory is not None and trajectory.mode == "superset":
            ok = sum(entry.status == "ok" for entry in trajectory.calls)
        elif trajectory is not None and trajectory.mode == "subset":
            # Each call is one of the entries the checks leave usable: a needed call may
            # fail only where its tool has an entry that is not ok.
            may_fail = {entry.tool for entry in _usable(expects) if entry.status != "ok"}
            ok = least if not may_fail & set(needed) else -1
        if least == ok:
            least += 1
            who.append("/expects/all_tools_succeeded")
    if least == 0 and trajectory is not None and trajectory.mode == "subset":
        least, who = 1, ["/expects/trajectory/mode"]
    # What `cases.rules` already says: the distinct tools used, a trajectory's own calls.
    said = len(set(expects.tools_used))
    if trajectory is not None and trajectory.mode != "subset":
        said = max(said, len(trajectory.calls))
    for key in ("max_tool_calls", "exact_tool_calls"):
        bound = getattr(expects, key)
        if bound is not None and said <= bound < least:
            named = ", ".join(who[:3]) + (" and more" if len(who) > 3 else "")
            message = (
                f"{key} allows {bound} call(s), but {named} need(s) at least {least}; no run can pass both"
            )
            yield f"/expects/{key}", False, message


def _tools_needed_and_forbidden(expects: Expects) -> Iterator[RawProblem]:
    forbidden = {tool: index for index, tool in enumerate(expects.tools_not_used)}
    for family in ("tool_arguments_contain", "tool_results_contain"):
        for index, check in enumerate(getattr(expects, family)):
            if check.tool in forbidden:
                message = (
                    f"{check.tool!r} is in tools_not_used (/expects/tools_not_used/{forbidden[check.tool]}),"
                    " so no call to it can hold the needle; no run can pass both"
                )
                yield f"/expects/{family}/{index}/tool", False, message
    trajectory = expects.trajectory
    if trajectory is None or trajectory.mode not in _CLOSED or not trajectory.calls:
        return
    mode = trajectory.mode
    calls = _usable(expects) if mode == "subset" else trajectory.calls
    closed = f"the trajectory ({mode}) allows no call but its own"
    if not calls:
        message = (
            "subset asks for at least one of these calls, and tools_not_used or all_tools_succeeded: true"
            " rules out each of them; no run can pass both"
        )
        yield "/expects/trajectory/calls", False, message
        return
    if mode == "subset" and len(calls) < len(trajectory.calls):
        closed += " (those tools_not_used and all_tools_succeeded leave)"
    listed = Counter(entry.tool for entry in calls)
    for index, tool in enumerate(expects.tools_used):
        if tool not in listed:
            yield f"/expects/tools_used/{index}", False, f"{closed}, none to {tool!r}; no run can pass both"
    for family in ("tool_arguments_contain", "tool_results_contain"):
        for index, check in enumerate(getattr(expects, family)):
            wanted = (check.call_index or 0) + 1
            if check.tool in forbidden or listed[check.tool] >= wanted:
                continue
            which = f"call {wanted - 1} (0-based) to {check.tool!r}"
            message = f"{closed}: {listed[check.tool]} to {check.tool!r}, so {which} is never made"
            yield f"/expects/{family}/{index}", False, f"{message}; no run can pass both"
    for key in ("min_tool_calls", "exact_tool_calls"):  # a strict trajectory's exact: `cases.rules`
        low = getattr(expects, key)
        if low is not None and low > len(calls) and (key == "min_tool_calls" or mode == "subset"):
            message = f"{key} ({low}) is more than the {len(calls)} call(s) {closed}; no run can pass both"
            yield f"/expects/{key}", False, message
    if expects.all_tools_succeeded is False and all(entry.status == "ok" for entry in calls):
        message = (
            f"all_tools_succeeded: false needs a failed call, and {closed}, each of them ok"
            " (/expects/trajectory/calls); no run can pass both"
        )
        yield "/expects/all_tools_succeeded", False, message


def _usable(expects: Expects) -> list[TrajectoryCall]:
    """The entries of a `subset` trajectory a run's call may match, as the other checks
    allow: not to a tool in `tools_not_used`, not failed where every call must succeed."""
    assert expects.trajectory is not None
    forbidden = set(expects.tools_not_used)
    succeed = expects.all_tools_succeeded is True
    return [
        entry
        for entry in expects.trajectory.calls
        if entry.tool not in forbidden and not (succeed and entry.status == "error")
    ]


def _final_answer(expects: Expects, turns: int) -> Iterator[RawProblem]:
    last = turns - 1
    for index, check in enumerate(expects.turn_response_contains):
        if check.turn != last:
            continue
        for banned, text in enumerate(expects.response_not_contains):
            if text in check.needle:
                message = (
                    f"turn {last} is the last, whose answer is the final response, and {text!r}"
                    f" (/expects/response_not_contains/{banned}) is inside this needle; no run can pass both"
                )
                yield f"/expects/turn_response_contains/{index}/needle", False, message


def _workspace(expects: Expects) -> Iterator[RawProblem]:
    workspace = expects.workspace
    assert workspace is not None
    base = "/expects/workspace"
    present = [(f"{base}/file_exists/{i}", path) for i, path in enumerate(workspace.file_exists)]
    present += [(join_pointer(f"{base}/file_contains", path), path) for path in workspace.file_contains]
    for index, absent in enumerate(workspace.file_absent):
        gone = file_parts(absent)
        if not gone:
            continue  # the workspace itself: a rule of its own (`cases.workspace_paths`)
        for pointer, path in present:
            if file_parts(path)[: len(gone)] == gone:
                inside = "is" if file_parts(path) == gone else "is inside"
                message = (
                    f"{path!r} ({pointer}) {inside} this path, which must be absent; no run can pass both"
                )
                yield f"{base}/file_absent/{index}", False, message
