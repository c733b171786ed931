"""`--record DIR`: a live run written back as a replay fixture.

The responses the provider actually gave become the scripted steps; everything else
(model_name, tools, setup, expects) is the case's own, copied from its file as written.
Secrets (the API key) are scrubbed from every string, and `tools` is narrowed to the
tools the live sandbox offered, so the replay offers the same. So a failure seen live
becomes a regression case that replays to the same verdict. A run the sandbox failed by
denying a tool call is not recorded: replay has no approval gate to deny it again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from zeroclaw_eval.admission import Case
from zeroclaw_eval.files import write_atomic
from zeroclaw_eval.jsonpos import loads_strict
from zeroclaw_eval.record import ModelStep, RunRecord
from zeroclaw_eval.secrets import scrub


def _arguments(text: str) -> Any:
    # An object is written as one (readable, and what a fixture author would write);
    # anything else stays the raw text the provider sent, so malformed calls replay as such.
    try:
        parsed = loads_strict(text)
    except ValueError:
        return text
    return parsed if isinstance(parsed, dict) else text


def _step(step: ModelStep) -> dict[str, Any]:
    tokens = {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens}
    if not step.tool_calls:
        return {"response": {"type": "text", "content": step.content or "", **tokens}}
    response: dict[str, Any] = {"type": "tool_calls"}
    if step.content:
        response["content"] = step.content
    response["tool_calls"] = [
        {"id": c["id"], "name": c["name"], "arguments": _arguments(c["arguments"])} for c in step.tool_calls
    ]
    return {"response": {**response, **tokens}}


def offered_tools(case: Case, allowed: Iterable[str]) -> list[str]:
    """The case's tools the live sandbox offered (echo is always offered besides)."""
    allowed = set(allowed)
    return [tool for tool in case.trace.tools if tool in allowed]


def denied_calls(case: Case, record: RunRecord, allowed: Iterable[str]) -> list[str]:
    """Names of the recorded calls the sandbox denied (tools it did not offer)."""
    offered = {"echo", *offered_tools(case, allowed)}
    return [call.name for call in record.calls if call.name not in offered]


def fixture_from_run(
    case: Case, record: RunRecord, secrets: Iterable[str] = (), allowed: Iterable[str] | None = None
) -> dict[str, Any]:
    """The replay fixture of one live run of `case` (`allowed`: the live allowlist)."""
    original: dict[str, Any] = json.loads(case.text)
    turns = []
    for index, turn in enumerate(case.trace.turns):
        steps = [_step(step) for step in record.steps if step.turn == index]
        turns.append({"user_input": turn.user_input, "steps": steps})
    fixture = {**original, "turns": turns}
    if allowed is not None and "tools" in original:
        fixture["tools"] = offered_tools(case, allowed)
    scrubbed: dict[str, Any] = scrub(fixture, secrets)
    return scrubbed


def write_recording(
    folder: Path,
    case: Case,
    record: RunRecord,
    secrets: Iterable[str] = (),
    allowed: Iterable[str] | None = None,
) -> Path | None:
    """Write the recorded fixture as `folder/<case file name>` and return its path.

    `allowed` is the live allowlist the run had (None: not a sandboxed run); a run the
    sandbox failed by denying a call is not written, and None is returned.
    """
    if allowed is not None:
        allowed = list(allowed)
        if denied_calls(case, record, allowed):
            return None
    fixture = fixture_from_run(case, record, secrets, allowed)
    text = json.dumps(fixture, indent=2, ensure_ascii=False) + "\n"
    target = folder / case.name
    write_atomic(target, text.encode("utf-8", errors="backslashreplace"))
    return target
