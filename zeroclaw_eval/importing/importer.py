"""The import, end to end: trace files in, one proven fixture per selected trace out.

Nothing is overwritten: a fixture whose file exists already is reported, not written.
A trace refused (unfaithful, or a file that exists) does not stop the others; the
command's exit code says whether every selected trace became a fixture.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zeroclaw_eval.boundary.provider import Message
from zeroclaw_eval.boundary.sent import entry, message_text
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.files import create_new
from zeroclaw_eval.importing.conversation import conversation
from zeroclaw_eval.importing.fixture import fixture_of, proven_case
from zeroclaw_eval.importing.scrub import Scrubber
from zeroclaw_eval.importing.sources import Selection, read_source
from zeroclaw_eval.importing.trace import ImportedTrace, UnfaithfulTrace


@dataclass(frozen=True)
class Written:
    """A fixture written: where, from which trace, and what it holds."""

    path: Path
    trace: ImportedTrace
    steps: int
    calls: int
    checks: tuple[str, ...]


@dataclass
class ImportOutcome:
    """What an import did."""

    written: list[Written] = field(default_factory=list)
    refused: list[UnfaithfulTrace] = field(default_factory=list)
    #: Traces with no GenAI or OpenInference spans (not agent runs).
    passed_over: int = 0
    #: Traces whose run another trace carries on (see `continued`): (trace id, by).
    continued: list[tuple[str, str]] = field(default_factory=list)
    selected: int = 0


def import_traces(
    sources: list[tuple[Path, str]], out: Path, selection: Selection, scrubber: Scrubber
) -> ImportOutcome:
    """Each selected trace of `sources` (a path, and its name as given) as a fixture in `out`."""
    outcome = ImportOutcome()
    names: set[str] = set()
    traces: list[ImportedTrace] = []
    for path, shown in sources:
        found = read_source(path, shown)
        outcome.passed_over += found.passed_over
        for known, refused in found.refused:
            if selection.takes(known):
                outcome.selected += 1
                outcome.refused.append(refused)
        traces.extend(found.traces)
    carried_on = continued(traces)
    for trace in traces:
        if not selection.takes(trace):
            continue
        outcome.selected += 1
        if trace.trace_id in carried_on:
            outcome.continued.append((trace.trace_id, carried_on[trace.trace_id]))
        else:
            try:
                outcome.written.append(_import_one(scrubber.trace(trace), out, names))
            except UnfaithfulTrace as refused:
                outcome.refused.append(refused)
    return outcome


def _said(messages: list[Message]) -> list[tuple[Any, ...]]:
    """The conversation a request carries, compared by what was said: each message's
    role, text and tool call ids (the agent's own framing left out)."""
    said = []
    for message in messages:
        role = entry(message, "role")
        if role in ("system", "developer"):
            continue
        calls = tuple(entry(call, "id") for call in entry(message, "tool_calls") or [])
        said.append(
            (role, message_text(entry(message, "content")) or None, calls, entry(message, "tool_call_id"))
        )
    return said


def continued(traces: list[ImportedTrace]) -> dict[str, str]:
    """The traces whose run another trace carries on, each with the id of the one that
    does: a trace of one model call that asks for tool calls, whose request and reply
    begin a later model call's request in another trace. An agent whose runs no span
    wraps makes a trace of each model call; the last one holds the run so far, from
    which the whole case is read (`conversation`), so the earlier ones add nothing."""
    found: dict[str, str] = {}
    for trace in traces:
        if len(trace.calls) != 1 or trace.tools or trace.agent is not None:
            continue
        (call,) = trace.calls
        if call.reply is None or not call.reply.tool_calls:
            continue
        calls = [request.as_openai() for request in call.reply.tool_calls]
        reply: Message = {"role": "assistant", "content": call.reply.content, "tool_calls": calls}
        head = _said([*call.messages, reply])
        for other in traces:
            if other is not trace and any(
                _said(later.messages)[: len(head)] == head for later in other.calls
            ):
                found[trace.trace_id] = other.trace_id
                break
    return found


def case_name(trace: ImportedTrace) -> str:
    """The fixture's name: the agent's (or service's) name and the trace id's first 8."""
    label = trace.agent or trace.service or "trace"
    slug = re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_").lower() or "trace"
    return f"{slug[:40]}_{trace.trace_id[:8]}"


def _import_one(trace: ImportedTrace, out: Path, names: set[str]) -> Written:
    talk = conversation(trace)
    name = case_name(trace)
    if name in names:  # two traces whose ids start alike: the whole id tells them apart
        name = f"{name}{trace.trace_id[8:]}"
    names.add(name)
    path = out / f"{name}.json"
    fixture = fixture_of(trace, talk, name)
    case = proven_case(trace, talk, fixture, path)
    try:
        create_new(path, case.text.encode("utf-8"))
    except FileExistsError:
        raise UnfaithfulTrace(
            trace.trace_id,
            None,
            None,
            f"{path} exists already and is not overwritten; move it or import elsewhere",
        ) from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    checks = tuple(key for key in fixture["expects"])
    steps = sum(len(turn["steps"]) for turn in talk.turns)
    return Written(path, trace, steps, len(talk.record.calls), checks)
