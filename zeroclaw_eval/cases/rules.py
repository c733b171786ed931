"""The admission rules that span fields: what no single field's type can say.

A fixture with no turns, an `expects` that declares no check, bounds that contradict
each other, a check that no run could ever pass or fail, a setup path that is not a
plain file in the workspace. Each message says why no run could ever pass, or ever
fail, the entry. The rules also run on the parts of a fixture that did validate when
another part did not, so that every problem of a fixture is reported at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sized
from typing import Any

from pydantic import TypeAdapter, ValidationError

from zeroclaw_eval._support.json.depth import MAX_DEPTH, too_deep
from zeroclaw_eval._support.json.pointer import is_pointer, join_pointer
from zeroclaw_eval.cases.contradictions import Later, contradiction_rules
from zeroclaw_eval.cases.location import RawProblem
from zeroclaw_eval.cases.model import (
    ECHO_TOOL,
    Expects,
    JudgeVerdict,
    LlmTrace,
    NonEmpty,
    Setup,
    Turn,
    WorkspaceExpects,
)
from zeroclaw_eval.cases.patterns import regex_problem
from zeroclaw_eval.cases.questions import questions
from zeroclaw_eval.cases.workspace_paths import file_parts, workspace_path_problem
from zeroclaw_eval.errors import did_you_mean


def partial_rule_problems(
    data: Any, invalid_expects: set[str], known_tools: Iterable[str] | None = None
) -> Iterator[RawProblem]:
    """Cross-field rules for the parts that validated, when the whole fixture did not.

    `invalid_expects` are the expectation keys already reported (unknown or invalid);
    the rules still run on the rest, so that every problem is reported at once: among
    them, each valid name in `tools` that is not one of `known_tools`.
    """
    if not isinstance(data, dict):
        return
    tools = data.get("tools", [])  # left out: none (but echo, where the case calls it)
    if isinstance(tools, list):
        # An entry the model refused (not a string, empty) is reported by validation already.
        named = [(index, tool) for index, tool in enumerate(tools) if _valid_tool_name(tool)]
        doubles = data.get("tool_doubles")
        yield from _tool_problems(named, known_tools, doubles if isinstance(doubles, dict) else ())
        if isinstance(doubles, dict):
            # Only the entries whose doubles are a list: validation reports the others.
            listed = {tool: entries for tool, entries in doubles.items() if isinstance(entries, list)}
            yield from _double_problems([tool for _, tool in named], listed)
    expects = data.get("expects")
    if isinstance(expects, dict):
        known = {k: v for k, v in expects.items() if k in Expects.model_fields and k not in invalid_expects}
        try:
            model = Expects.model_validate(known)
        except ValidationError:
            pass
        else:
            # A misspelt or invalid key would otherwise also read as "declares no check".
            turns = data.get("turns")
            count = len(turns) if isinstance(turns, list) else None
            yield from _expects_problems(model, known, count, empty_ok=len(known) < len(expects))
    setup = data.get("setup")
    if isinstance(setup, dict):
        try:
            yield from _setup_problems(Setup.model_validate(setup))
        except ValidationError:
            pass
    turns = data.get("turns")
    if isinstance(turns, list):
        for index, turn in enumerate(turns):
            try:
                yield from _turn_problems(index, Turn.model_validate(turn))
            except ValidationError:
                pass
        if not turns:
            yield from _no_turns()


def rule_problems(
    trace: LlmTrace, data: Any, known_tools: Iterable[str] | None, text: str | None = None
) -> Iterator[RawProblem]:
    """The cross-field rules of a fixture the models accepted (`data` is its raw JSON,
    parsed from `text` when given)."""
    if not trace.turns:
        yield from _no_turns()
    for index, turn in enumerate(trace.turns):
        yield from _turn_problems(index, turn)
    if trace.setup is not None:
        yield from _setup_problems(trace.setup)
    user = trace.simulated_user
    if user is not None and user.max_turns <= len(trace.turns):
        message = (
            f"max_turns {user.max_turns} leaves no turn past the {len(trace.turns)} scripted one(s): the"
            " simulated user could never speak (max_turns counts the scripted turns too)"
        )
        yield "/simulated_user/max_turns", False, message
    yield from _expects_problems(trace.expects, data["expects"], len(trace.turns))
    # Each rule family is asked only where the fixture has something for it: every
    # fixture of a suite comes here, and most list no tools and double none.
    if trace.tools:
        yield from _tool_problems(enumerate(trace.tools), known_tools, trace.tool_doubles)
    if trace.tool_doubles:
        yield from _double_problems(trace.tools, trace.tool_doubles)
    # Each level of nesting opens with a bracket of the text: a text with no more brackets
    # than the limit (most fixtures, by far) cannot nest a value past it.
    if text is None or text.count("{") + text.count("[") > MAX_DEPTH:
        yield from _depth_problems(trace)


def _tool_problems(
    named: Iterable[tuple[int, str]], known_tools: Iterable[str] | None, doubled: Iterable[str] = ()
) -> Iterator[RawProblem]:
    """The one rule of a fixture's `tools`: each (index, name) names one of `known_tools`
    (None: any name, for an agent that runs tools of its own), or, where the known tools
    say so (`doubles_known`, with `[eval].mcp`), one of the fixture's `doubled` tools."""
    if known_tools is None:
        return
    known: list[str] | None = None  # made for the first name (most fixtures name none)
    for index, tool in named:
        if known is None:
            extra = set(doubled) if getattr(known_tools, "doubles_known", False) else set()
            known = sorted(set(known_tools) | extra)
        if tool not in known:
            close = did_you_mean(tool, known)
            hint = f"did you mean {close}? " if close else ""
            yield (
                f"/tools/{index}",
                False,
                f"unknown tool {tool!r}; {hint}the known tools are: {', '.join(known)}",
            )


def _valid_tool_name(value: Any) -> bool:
    """Whether `value` is a name the model admits in `tools` (its own rule, `NonEmpty`)."""
    try:
        _TOOL_NAME.validate_python(value, strict=True)
    except ValidationError:
        return False
    return True


#: A name in `tools`, as the model types it.
_TOOL_NAME: TypeAdapter[str] = TypeAdapter(NonEmpty)


def _depth_problems(trace: LlmTrace) -> Iterator[RawProblem]:
    """Free JSON nested deeper than `MAX_DEPTH`: every writer of it (compact JSON, the
    reports) recurses, so such a value would crash the run or its report, not grade."""
    free: list[tuple[str, Any]] = []
    for t, turn in enumerate(trace.turns):
        for s, step in enumerate(turn.steps or ()):
            for c, call in enumerate(step.response.tool_calls):
                free.append((f"/turns/{t}/steps/{s}/response/tool_calls/{c}/arguments", call.arguments))
    for pointer, value in trace.expects.response_json.items():
        free.append((join_pointer("/expects/response_json", pointer), value))
    for tool, doubles in trace.tool_doubles.items():
        for d, double in enumerate(doubles):
            free.append((join_pointer("/tool_doubles", tool, d, "when"), double.when))
    if trace.expects.trajectory is not None:
        for c, entry in enumerate(trace.expects.trajectory.calls):
            if entry.args is not None:
                free.append((f"/expects/trajectory/calls/{c}/args", entry.args))
    for pointer, value in free:
        path = too_deep(value)
        if path is not None:
            message = (
                f"objects and arrays are nested more than {MAX_DEPTH} levels deep here;"
                " flatten the value (or pass it as a string)"
            )
            yield join_pointer(pointer, *path), False, message


def _double_problems(tools: Iterable[str], tool_doubles: Mapping[str, Sized]) -> Iterator[RawProblem]:
    """Doubles of a tool the case is not offered (never asked), or no double at all."""
    offered = {ECHO_TOOL, *tools}
    for tool, doubles in tool_doubles.items():
        pointer = join_pointer("/tool_doubles", tool)
        if tool not in offered:
            message = (
                f"doubles of {tool!r}, which the case is not offered, would never answer a call;"
                f" add {tool!r} to tools"
            )
            yield pointer, True, message
        elif not doubles:
            yield (
                pointer,
                False,
                f"no double of {tool!r}: every call to it would fail; add one or remove the key",
            )


def _no_turns() -> Iterator[RawProblem]:
    yield "/turns", False, "no conversation turns: replay would run the agent zero times"


def _turn_problems(index: int, turn: Turn) -> Iterator[RawProblem]:
    for step_index, step in enumerate(turn.steps or ()):
        response = step.response
        # The pointer is written only for a problem: every step of every fixture comes here.
        if response.type == "text" and response.content is None:
            pointer = f"/turns/{index}/steps/{step_index}/response/content"
            yield pointer, False, "missing required key 'content' for a text response"
        if response.type == "text" and response.tool_calls:
            message = "a text response cannot request tool calls; use type tool_calls"
            yield f"/turns/{index}/steps/{step_index}/response/tool_calls", True, message
        if response.type == "tool_calls" and not response.tool_calls:
            pointer = f"/turns/{index}/steps/{step_index}/response/tool_calls"
            yield pointer, False, "a tool_calls response needs at least one call"


def _setup_problems(setup: Setup) -> Iterator[RawProblem]:
    files = {relative: file_parts(relative) for relative in setup.workspace_files}
    for relative, parts in files.items():
        problem = workspace_path_problem(relative)
        if problem is None and not parts:
            problem = f"path {relative!r} names the workspace itself, not a file in it"
        elif problem is None and (relative.endswith(("/", "\\")) or "" in parts):
            problem = f"path {relative!r} is not a plain file path (an empty or trailing segment)"
        elif problem is None:
            # Seeding "a" as a file and "a/b" beside it cannot both be done.
            inside = [
                other
                for other, theirs in files.items()
                if theirs[: len(parts)] == parts and other != relative
            ]
            if inside and len(files[inside[0]]) > len(parts):
                problem = f"path {relative!r} is a file, but {inside[0]!r} needs it to be a folder"
        if problem:
            yield join_pointer("/setup/workspace_files", relative), True, problem


def _expects_problems(
    expects: Expects, raw: dict[str, Any], turns: int | None, *, empty_ok: bool = False
) -> Iterator[RawProblem]:
    if not expects.declares_a_check() and not empty_ok:
        yield (
            "/expects",
            False,
            "expects declares no check: a case that checks nothing always passes",
        )
    order = list(raw)

    def later(a: str, b: str) -> str:
        return f"/expects/{max(a, b, key=order.index)}"

    for rules in EXPECTS_RULES:
        yield from rules(expects, later, turns)


def tool_rules(expects: Expects, later: Later, turns: int | None) -> Iterator[RawProblem]:
    """The tool family's checks no run can pass, or every run passes: a vacuous
    `min_tool_calls: 0`, bounds that contradict each other or `tools_used`, a tool both
    used and not used, a trajectory that can never fail or never pass."""
    if expects.min_tool_calls == 0:
        message = "min_tool_calls: 0 is vacuous (every run makes at least 0 calls); remove it"
        yield "/expects/min_tool_calls", False, message
    low, high, exact = expects.min_tool_calls, expects.max_tool_calls, expects.exact_tool_calls
    if low is not None and high is not None and low > high:
        message = f"min_tool_calls ({low}) is greater than max_tool_calls ({high}); no run can pass"
        yield later("min_tool_calls", "max_tool_calls"), True, message
    if exact is not None and low is not None and exact < low:
        message = f"exact_tool_calls ({exact}) is below min_tool_calls ({low}); no run can pass"
        yield later("exact_tool_calls", "min_tool_calls"), True, message
    if exact is not None and high is not None and exact > high:
        message = f"exact_tool_calls ({exact}) is above max_tool_calls ({high}); no run can pass"
        yield later("exact_tool_calls", "max_tool_calls"), True, message
    for index, tool in enumerate(expects.tools_not_used):
        if tool in expects.tools_used:
            message = f"{tool!r} is in both tools_used and tools_not_used; no run can pass"
            yield f"/expects/tools_not_used/{index}", False, message
    if expects.tools_used and (expects.max_tool_calls is not None or expects.exact_tool_calls is not None):
        yield from _count_problems(expects, later)
    if expects.trajectory is not None:
        yield from _trajectory_problems(expects)


def response_rules(expects: Expects, later: Later, turns: int | None) -> Iterator[RawProblem]:
    """The response family's checks no run can pass: text both required and forbidden,
    a `response_json` key that is no JSON pointer, a pattern RE2 cannot compile."""
    for index, text in enumerate(expects.response_not_contains):
        if any(text in needle for needle in expects.response_contains):
            message = f"{text!r} is inside a response_contains entry; no run can pass both"
            yield f"/expects/response_not_contains/{index}", False, message
    for pointer in expects.response_json:
        if not is_pointer(pointer):
            message = (
                f"{pointer!r} is not a JSON pointer (RFC 6901): it must be empty or start with '/',"
                " and a '~' in a key is written '~0' (a '/' in a key '~1'); no response can hold it"
            )
            yield join_pointer("/expects/response_json", pointer), True, message
    for index, pattern in enumerate(expects.response_matches):
        reason = regex_problem(pattern)
        if reason is not None:
            message = f"RE2 cannot compile this pattern ({reason}), so no response can match it"
            yield f"/expects/response_matches/{index}", False, message


def judge_rules(expects: Expects, later: Later, turns: int | None) -> Iterator[RawProblem]:
    """The judge family's checks that say two things: a scored check (`threshold`) that
    passes on a `no`, a dimension named twice (its two grades would share one id), and a
    recorded verdict of one of its questions that does not fit it (see `_verdict_problem`)."""
    for index, check in enumerate(expects.judge):
        asked = {question.sha256: question for question in questions(index, check)}
        for number, verdict in enumerate(check.verdicts):
            question = asked.get(verdict.rubric_sha256)  # another question's (an older rubric): not graded
            if question is not None:
                problem = _verdict_problem(verdict, question.scored, question.dimension)
                if problem is not None:
                    yield f"/expects/judge/{index}/verdicts/{number}", False, problem
        if check.threshold is not None and check.pass_if == "no":
            message = "a check with a threshold passes on a score, not on a verdict: leave pass_if out"
            yield f"/expects/judge/{index}/pass_if", False, message
        seen: set[str] = set()
        for number, name in enumerate(check.dimensions):
            if name in seen:
                yield (
                    f"/expects/judge/{index}/dimensions/{number}",
                    False,
                    f"the dimension {name!r} is named twice",
                )
            seen.add(name)


def _verdict_problem(verdict: JudgeVerdict, scored: bool, dimension: str | None) -> str | None:
    """What keeps a recorded verdict from answering its question: a score where a yes or
    no was asked, a yes without the score a scored check needs, a score beside a no or an
    unknown, or another dimension named than the question's."""
    if verdict.score is not None and verdict.verdict != "yes":
        return f"a verdict {verdict.verdict} carries no score (a scored judge answers a score, or unknown)"
    if scored and verdict.verdict == "yes" and verdict.score is None:
        return "the check asks for a score: this verdict gives none (judge it again with --rejudge)"
    if scored and verdict.verdict == "no":
        return "the check asks for a score: its verdicts are a score, or unknown"
    if not scored and verdict.score is not None:
        return "the check asks yes or no: this verdict gives a score"
    if verdict.dimension != dimension:
        return f"this verdict names the dimension {verdict.dimension!r}, and its rubric digest {dimension!r}"
    return None


def workspace_rules(expects: Expects, later: Later, turns: int | None) -> Iterator[RawProblem]:
    """The workspace family's paths no run can satisfy, or that leave the workspace."""
    if expects.workspace is not None:
        yield from _workspace_check_problems(expects.workspace)


def turn_rules(expects: Expects, later: Later, turns: int | None) -> Iterator[RawProblem]:
    """The turn family's checks no run can pass: a turn the fixture does not have (`turns`:
    how many it has; None where its turns did not validate)."""
    if turns is None:
        return
    for index, check in enumerate(expects.turn_response_contains):
        if check.turn >= turns:
            message = (
                f"turn {check.turn} (0-based) is not a turn of this fixture, which has {turns};"
                " no run can answer it"
            )
            yield f"/expects/turn_response_contains/{index}/turn", False, message


#: The admission rules of each check family that has some (the table of check families,
#: `grading.families`, names each family's), and those of pairs across families
#: (`cases.contradictions`): every fixture's `expects` is held to them.
EXPECTS_RULES = (tool_rules, response_rules, turn_rules, judge_rules, workspace_rules, contradiction_rules)


def _trajectory_problems(expects: Expects) -> Iterator[RawProblem]:
    """A trajectory no run can pass, or one an empty run passes (it would certify nothing)."""
    trajectory = expects.trajectory
    assert trajectory is not None
    mode, calls, at = trajectory.mode, trajectory.calls, "/expects/trajectory"
    if not calls:
        why = (
            "no run can pass it: subset asks for at least one call, each one of these"
            if mode == "subset"
            else "a run that makes no call passes it, so it certifies nothing"
        )
        yield f"{at}/calls", True, f"the trajectory expects no call; {why}; list the calls"
        return
    for index, entry in enumerate(calls):
        here = f"{at}/calls/{index}"
        how = entry.args_match
        if entry.args is None and how is not None and how != "ignore":
            yield (
                f"{here}/args_match",
                True,
                "args_match compares args, which this call does not give; add args",
            )
        if entry.args is not None and how == "ignore":
            yield f"{here}/args", True, "args_match is ignore, so these args are never compared; remove one"
        if isinstance(how, list) and entry.args is not None:
            for number, name in enumerate(how):
                if name not in entry.args:
                    message = f"{name!r} is not among args; a field compared must be given (or left out)"
                    yield f"{here}/args_match/{number}", False, message
    if mode == "subset":
        return  # the run may leave any call out: no bound on calls contradicts it
    needed = len(calls)
    for key in ("max_tool_calls", "exact_tool_calls"):
        bound = getattr(expects, key)
        if bound is not None and (
            bound < needed or (key == "exact_tool_calls" and mode != "superset" and bound != needed)
        ):
            message = (
                f"the trajectory ({mode}) needs {needed} call(s) but {key} allows {bound}; no run passes both"
            )
            yield f"{at}/calls", True, message
    for index, entry in enumerate(calls):
        if entry.tool in expects.tools_not_used:
            message = (
                f"{entry.tool!r} is in tools_not_used, and the trajectory ({mode}) needs a call to it;"
                " no run can pass both"
            )
            yield f"{at}/calls/{index}/tool", False, message
        if entry.status == "error" and expects.all_tools_succeeded is True:
            message = (
                "the trajectory needs this call to fail, and all_tools_succeeded: true every call to succeed"
            )
            yield f"{at}/calls/{index}/status", False, message


def _count_problems(expects: Expects, later: Callable[[str, str], str]) -> Iterator[RawProblem]:
    named = len(set(expects.tools_used))
    for key in ("max_tool_calls", "exact_tool_calls"):
        bound = getattr(expects, key)
        if bound is not None and named > bound:
            message = (
                f"tools_used names {named} different tools but {key} allows {bound} call(s);"
                " no run can pass both"
            )
            yield later("tools_used", key), True, message


def _workspace_check_problems(workspace: WorkspaceExpects) -> Iterator[RawProblem]:
    # A workspace check reads only inside the workspace: a path that leaves it can never
    # be read, so the check could never pass (and its failure would read as the agent's).
    base = "/expects/workspace"
    listed = [("file_exists", workspace.file_exists), ("file_absent", workspace.file_absent)]
    for family, paths in listed:
        for index, relative in enumerate(paths):
            problem = workspace_path_problem(relative)
            if problem is not None:
                yield f"{base}/{family}/{index}", False, f"{problem}; no run can pass this check"
    for relative in workspace.file_contains:
        problem = workspace_path_problem(relative)
        if problem is not None:
            pointer = join_pointer(f"{base}/file_contains", relative)
            yield pointer, True, f"{problem}; no run can pass these checks"
