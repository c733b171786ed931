"""An imported conversation as a fixture: its turns, the tools offered, provenance, and
the checks its recorded run proves, proven before the fixture is written.

The checks pin down what the agent did in the traced run, at the boundaries a replay
grades: which tools it dispatched, in which order and with which arguments and outcome
(a strict `trajectory`), what each tool answered (`tool_results_contain`), the final
answer (`response_contains`) and every earlier turn's (`turn_response_contains`), and the
tools every request offered. A call's outcome is
stated only where the trace proves it (`results.proven_outcome`): a call nothing proves
has no `status`, and `all_tools_succeeded` is written only when every call is proven to
have succeeded. Each check is graded against the recorded run before the file is written
(a check the run fails is a bug here, and the trace is refused rather than the check
dropped), and the fixture must fail an empty run, as every fixture of a gate must.

Each recorded result is scripted as a double of its tool (`tool_doubles`, matched by
the recorded arguments), so that replaying the case answers every call as the trace
recorded it and never reaches a real system (a refund, a payment API) unless the import
is asked for live tools.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from zeroclaw_eval._support.json.scan import encodes
from zeroclaw_eval._support.json.text import compact_json, json_equal, loads_untrusted, pretty_json
from zeroclaw_eval._support.redaction import REDACTED
from zeroclaw_eval.boundary.record import RecordedCall
from zeroclaw_eval.cases.admission import admit_bytes
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.cases.scaffold import string_values
from zeroclaw_eval.errors import UnfaithfulTrace
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.grading.vacuity import find_vacuous
from zeroclaw_eval.importing.conversation import Conversation
from zeroclaw_eval.importing.scrub import PLACEHOLDER_EMAIL
from zeroclaw_eval.importing.trace import ImportedTrace
from zeroclaw_eval.tools.doubles import with_doubles
from zeroclaw_eval.tools.tool import ToolOutcome

#: The longest needle taken from a tool's result or the final answer: long enough to
#: pin it down, short enough to read in a report.
NEEDLE_CHARS = 120


def fixture_of(
    trace: ImportedTrace, talk: Conversation, name: str, *, live_tools: bool = False
) -> dict[str, Any]:
    """The fixture data of `trace` (as `talk`), named `name`; its recorded results as
    doubles unless `live_tools`."""
    fixture: dict[str, Any] = {"model_name": name}
    # `echo` too: a case is offered the built-in echo only where it names it.
    tools = list(talk.tools)
    if tools:
        fixture["tools"] = tools
    fixture["turns"] = talk.turns
    fixture["expects"] = suggested_expects(talk)
    doubles = {} if live_tools else recorded_doubles(talk)
    if doubles:
        fixture["tool_doubles"] = doubles
    fixture["provenance"] = _provenance(trace, talk)
    return fixture


def recorded_doubles(talk: Conversation) -> dict[str, list[dict[str, Any]]]:
    """Each recorded call's result as a double of its tool, `when` its arguments (every
    key: a call with other arguments finds no answer and fails): the answers of one tool
    to the same arguments in the order they were given, each but the last for as many
    calls in a row as it answered (`times`), and doubles with more keys first, so that a
    call's own arguments are matched before a double that asks for fewer of them."""
    # Per tool and arguments (equal as JSON), the answers given in a row: [answer, count].
    groups: list[tuple[str, Any, list[list[Any]]]] = []
    for call, proven in zip(talk.record.calls, talk.proven, strict=True):
        when = call.arguments if isinstance(call.arguments, dict) else {}
        answer: dict[str, Any] = {"when": when, "result": call.result}
        if proven is False:
            answer["success"] = False
        runs = next(
            (runs for tool, asked, runs in groups if tool == call.name and json_equal(asked, when)), None
        )
        if runs is None:
            groups.append((call.name, when, [[answer, 1]]))
        elif json_equal(runs[-1][0], answer):
            runs[-1][1] += 1
        else:
            runs.append([answer, 1])
    doubles: dict[str, list[dict[str, Any]]] = {}
    for tool, _, runs in groups:
        for number, (answer, count) in enumerate(runs, 1):
            doubles.setdefault(tool, []).append(answer if number == len(runs) else {**answer, "times": count})
    for entries in doubles.values():
        entries.sort(key=lambda double: -len(double["when"]))
    return doubles


def _provenance(trace: ImportedTrace, talk: Conversation) -> dict[str, Any]:
    provenance: dict[str, Any] = {
        "format": trace.format,
        "source": trace.source,
        "trace_id": trace.trace_id,
        "span_ids": list(dict.fromkeys(span for span in talk.span_ids if span)),
    }
    if trace.service:
        provenance["service"] = trace.service
    if trace.provider:
        provenance["provider"] = trace.provider
    if trace.started_ns:
        try:
            started = datetime.fromtimestamp(trace.started_ns / 1e9, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return provenance  # a time no calendar holds: left out, not made up
        provenance["started"] = started.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return provenance


#: What scrubbing put in place of a secret or an address: text the agent never wrote.
_PLACEHOLDERS = re.compile(f"{re.escape(REDACTED)}|{re.escape(PLACEHOLDER_EMAIL)}")
#: A needle must say something: three letters or digits at least (not a lone `{`).
_WORDY = re.compile(r"\w[^\w]*\w[^\w]*\w")


def needle(text: str) -> str | None:
    """A needle `text` holds: the first line that says something (three letters or
    digits), stripped, cut to `NEEDLE_CHARS`, and the longest stretch of it that
    scrubbing did not write (a tool that answered with an address answers with it again
    in replay, not with the placeholder)."""
    for line in text.splitlines():
        pieces = [piece.strip() for piece in _PLACEHOLDERS.split(line)]
        best = max(pieces, key=len)[:NEEDLE_CHARS].rstrip()
        if _WORDY.search(best):
            return best
    return None


def result_needle(result: str) -> str | None:
    """A needle of a tool's result: for JSON, its first string value (outermost first)
    with something to say that the result's text holds as written (JSON text is written
    differently by each agent: spaces and key order; and a value written with escapes,
    `"Z\\u00fcrich"`, is not in the text the replay's tool answers with); else
    `needle` of the text."""
    stripped = result.strip()
    if stripped[:1] in ("{", "["):
        try:
            data = loads_untrusted(stripped)
        except ValueError:
            data = None
        if isinstance(data, (dict, list)):
            held = (found for value in string_values(data) if (found := needle(value)) is not None)
            return next((found for found in held if found in result), None)
    return needle(result)


def suggested_expects(talk: Conversation) -> dict[str, Any]:
    """The checks the recorded run of `talk` passes and an empty run fails."""
    calls = talk.record.calls
    expects: dict[str, Any] = {}
    answer = needle(talk.record.final_response)
    if answer is not None:
        expects["response_contains"] = [answer]
    # Every turn's answer, not only the last (which `response_contains` checks).
    earlier = [(turn.index, needle(turn.response or "")) for turn in talk.record.turns[:-1]]
    turns = [{"turn": index, "needle": found} for index, found in earlier if found is not None]
    if turns:
        expects["turn_response_contains"] = turns
    if not calls:
        # Nothing dispatched, and nothing must be: an agent that starts calling tools fails.
        expects["exact_tool_calls"] = 0
        return expects
    expects["tools_used"] = list(dict.fromkeys(call.name for call in calls))
    if talk.offered_every:
        expects["tools_offered"] = sorted(talk.offered_every)
    trajectory = [_trajectory_call(call, proven) for call, proven in zip(calls, talk.proven, strict=True)]
    expects["trajectory"] = {"mode": "strict", "calls": trajectory}
    raw = _raw_argument_checks(calls)
    if raw:
        expects["tool_arguments_contain"] = raw
    results = _result_checks(calls)
    if results:
        expects["tool_results_contain"] = results
    if all(proven is True for proven in talk.proven):
        expects["all_tools_succeeded"] = True
    return {key: value for key, value in expects.items() if value != []}


def _trajectory_call(call: RecordedCall, proven: bool | None) -> dict[str, Any]:
    expected: dict[str, Any] = {"tool": call.name}
    if isinstance(call.arguments, dict):
        expected["args"] = call.arguments
    if proven is not None:  # an outcome nothing proves is left to either
        expected["status"] = "ok" if proven else "error"
    return expected


def _indexed(calls: list[RecordedCall]) -> list[tuple[RecordedCall, int]]:
    """Each call with its index among the calls to its tool (a check's `call_index`)."""
    seen: dict[str, int] = {}
    indexed = []
    for call in calls:
        indexed.append((call, seen.get(call.name, 0)))
        seen[call.name] = seen.get(call.name, 0) + 1
    return indexed


def _raw_argument_checks(calls: list[RecordedCall]) -> list[dict[str, Any]]:
    """Arguments the trajectory cannot compare (raw text, not an object) as needles."""
    checks = []
    for call, index in _indexed(calls):
        if isinstance(call.arguments, str) and call.arguments:
            checks.append({"tool": call.name, "needle": call.arguments[:NEEDLE_CHARS], "call_index": index})
    return checks


def _result_checks(calls: list[RecordedCall]) -> list[dict[str, Any]]:
    checks = []
    for call, index in _indexed(calls):
        found = result_needle(call.result)
        if found is not None:
            checks.append({"tool": call.name, "needle": found, "call_index": index})
    return checks


def proven_case(trace: ImportedTrace, talk: Conversation, fixture: dict[str, Any], path: Path) -> Case:
    """`fixture` admitted as the file `path` would be, its checks graded against the
    recorded run (every one passes) and an empty run (one fails at least); else
    `UnfaithfulTrace` saying which."""
    text = pretty_json(fixture) + "\n"
    if not encodes(text):  # a lone surrogate scrubbing did not reach: said, not raised
        raise UnfaithfulTrace(
            trace.trace_id, None, None, "it holds a lone surrogate (\\ud800-\\udfff), which UTF-8 cannot"
        )
    # Any tool name: the case replays against the agent that recorded the trace, which
    # runs its own tools (as an agent command or service does).
    admitted = admit_bytes(text.encode("utf-8"), path, None)
    if not isinstance(admitted, Case):
        problems = "; ".join(problem.what() for problem in admitted.problems)
        raise UnfaithfulTrace(
            trace.trace_id, None, None, f"the fixture made of it is not admitted: {problems}"
        )
    _check_doubles(trace, admitted, talk)
    failed = [result for result in grade(admitted.trace.expects, talk.record) if not result.passed]
    if failed:
        shown = "; ".join(f"{result.check_id}: {result.detail}" for result in failed)
        raise UnfaithfulTrace(
            trace.trace_id, None, None, f"its own recorded run fails the checks suggested for it ({shown})"
        )
    if find_vacuous(admitted) is not None:
        raise UnfaithfulTrace(
            trace.trace_id,
            None,
            None,
            "nothing the run did can be checked: no tool call and no answer text"
            f" (the final answer was {compact_json(talk.record.final_response)})",
        )
    return admitted


def _check_doubles(trace: ImportedTrace, case: Case, talk: Conversation) -> None:
    """Each recorded call, asked of the case's doubles in order, gets the answer it got
    in the trace: a replay through them is the recorded run."""
    if not case.trace.tool_doubles:
        return
    doubled = with_doubles({}, case.trace.tool_doubles, any_name=True)
    for index, call in enumerate(talk.record.calls):
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        outcome = doubled[call.name].run(arguments, None)
        if not isinstance(outcome, ToolOutcome) or (outcome.content, outcome.success) != (
            call.result,
            call.success,
        ):
            raise UnfaithfulTrace(
                trace.trace_id,
                None,
                None,
                f"the doubles written for it answer call {index + 1} ({call.name}) otherwise than the trace"
                " recorded (a bug of the import: please report it)",
            )
