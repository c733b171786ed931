"""`--record DIR`: a live run captured as a replay fixture.

The responses the provider actually gave become the scripted steps; everything else
(model_name, tools, setup, expects) is the case's own, copied from its file as written.
Secrets (the API key) are scrubbed from every string, and `tools` is narrowed to the
tools the live sandbox offered, so the replay offers the same. So a failure seen live
becomes a regression case that replays to the same verdict. A run the sandbox failed by
denying a tool call is not captured: replay has no approval gate to deny it again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from zeroclaw_eval._support.files import write_atomic
from zeroclaw_eval._support.json.text import pretty_json
from zeroclaw_eval._support.redaction import scrub
from zeroclaw_eval.boundary.provider import decode_arguments
from zeroclaw_eval.boundary.record import ModelStep, RunRecord
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.cases.model import ECHO_TOOL, JudgeVerdict
from zeroclaw_eval.cases.verdicts import add_verdicts
from zeroclaw_eval.tools.builtin import BuiltinOffer, offered_names
from zeroclaw_eval.tools.sandbox import denied_calls, offered_tools


def _step(step: ModelStep) -> dict[str, Any]:
    tokens = {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens}
    if not step.tool_calls:
        return {"response": {"type": "text", "content": step.content or "", **tokens}}
    response: dict[str, Any] = {"type": "tool_calls"}
    if step.content:
        response["content"] = step.content
    # An object is written as one (readable, and what a fixture author would write);
    # anything else stays the raw text the provider sent, so malformed calls replay as such.
    response["tool_calls"] = [
        {"id": c["id"], "name": c["name"], "arguments": decode_arguments(c["arguments"])}
        for c in step.tool_calls
    ]
    return {"response": {**response, **tokens}}


def fixture_from_run(
    case: Case,
    record: RunRecord,
    secrets: Iterable[str] = (),
    allowed: Iterable[str] | None = None,
    as_doubles: Iterable[str] = (),
    verdicts: Mapping[int, list[JudgeVerdict]] | None = None,
) -> dict[str, Any]:
    """The replay fixture of one live run of `case` (`allowed`: the live allowlist); the
    calls of the tools `as_doubles` names become doubles answering them (see `_doubled`),
    and the judges' `verdicts` of the run join its judge checks."""
    original: dict[str, Any] = json.loads(case.text)
    turns = []
    # The scripted turns, then those a simulated user wrote: scripted turns all.
    said = [turn.user_input for turn in case.trace.turns]
    said += [turn.user_input for turn in record.turns[len(said) :]]
    for index, user_input in enumerate(said):
        steps = [_step(step) for step in record.steps if step.turn == index]
        turns.append({"user_input": user_input, "steps": steps})
    fixture = {**original, "turns": turns}
    # The conversation a simulated user had is now the script: the recorded case is it.
    fixture.pop("simulated_user", None)
    if allowed is not None and "tools" in original:
        fixture["tools"] = offered_tools(case.trace.tools, allowed)
        if isinstance(original.get("tool_doubles"), dict):
            # A double of a tool no longer offered would make the fixture fail admission.
            kept = {ECHO_TOOL, *fixture["tools"]}
            doubles = {tool: v for tool, v in original["tool_doubles"].items() if tool in kept}
            if doubles:
                fixture["tool_doubles"] = doubles
            else:
                del fixture["tool_doubles"]
    _doubled(fixture, record, set(as_doubles))
    if verdicts:
        add_verdicts(fixture, verdicts)
    scrubbed: dict[str, Any] = scrub(fixture, secrets)
    return scrubbed


def _doubled(fixture: dict[str, Any], record: RunRecord, names: set[str]) -> None:
    """Each recorded call of a tool in `names` (one a project's MCP server answered live,
    which a replay must not reach) as a double with the arguments it got and what it
    answered, in the order of the calls; a call whose arguments another call already had
    answers as the first did, so it adds none."""
    doubles: dict[str, list[dict[str, Any]]] = {}
    for call in record.calls:
        if call.name not in names or not isinstance(call.arguments, dict):
            continue
        answers = doubles.setdefault(call.name, [])
        if any(answer["when"] == call.arguments for answer in answers):
            continue
        answer: dict[str, Any] = {"when": call.arguments, "result": call.result}
        if not call.success:
            answer["success"] = False
        answers.append(answer)
    if doubles:
        fixture["tool_doubles"] = {**fixture.get("tool_doubles", {}), **doubles}


def write_captured_fixture(
    folder: Path,
    case: Case,
    record: RunRecord,
    secrets: Iterable[str] = (),
    allowed: Iterable[str] | None = None,
    *,
    as_doubles: Iterable[str] = (),
    verdicts: Mapping[int, list[JudgeVerdict]] | None = None,
    builtin_tools: BuiltinOffer = "named",
) -> Path | None:
    """Write the captured fixture as `folder/<case file name>` and return its path.

    `allowed` is the live allowlist the run had (None: not a sandboxed run); a run the
    sandbox failed by denying a call is not written, and None is returned.
    """
    if allowed is not None:
        allowed = list(allowed)
        offered = offered_names(
            case.trace, offered_tools(case.trace.tools, allowed), builtin_tools=builtin_tools
        )
        if denied_calls(record, offered):
            return None
    fixture = fixture_from_run(case, record, secrets, allowed, as_doubles, verdicts)
    text = pretty_json(fixture) + "\n"
    target = folder / case.name
    write_atomic(target, text.encode("utf-8", errors="backslashreplace"))
    return target
