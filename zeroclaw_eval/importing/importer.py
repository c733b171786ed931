"""The import, end to end: trace files in, one proven fixture per selected trace out.

Nothing is overwritten: a fixture whose file exists already is reported, not written.
A trace refused (unfaithful, or a file that exists) does not stop the others; the
command's exit code says whether every selected trace became a fixture.
"""

from __future__ import annotations

import errno
import hashlib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from zeroclaw_eval._support.files import create_new
from zeroclaw_eval.boundary.provider import Message
from zeroclaw_eval.errors import UnfaithfulTrace, UsageError
from zeroclaw_eval.importing.conversation import conversation
from zeroclaw_eval.importing.fixture import fixture_of, proven_case
from zeroclaw_eval.importing.messages import said
from zeroclaw_eval.importing.scrub import Scrubber
from zeroclaw_eval.importing.sources import Gathered, Selection, gathered_traces, read_source
from zeroclaw_eval.importing.trace import ImportedTrace


@dataclass(frozen=True)
class Written:
    """A fixture written: where, from which trace, and what it holds."""

    path: Path
    trace: ImportedTrace
    steps: int
    calls: int
    checks: tuple[str, ...]
    #: The tools whose recorded results it scripts as doubles.
    doubled: tuple[str, ...] = ()


@dataclass
class ImportOutcome:
    """What an import did."""

    written: list[Written] = field(default_factory=list)
    refused: list[UnfaithfulTrace] = field(default_factory=list)
    #: Traces with no span of a format import reads (not agent runs).
    passed_over: int = 0
    #: Traces whose run another trace carries on (see `continued`): (trace id, by).
    continued: list[tuple[str, str]] = field(default_factory=list)
    #: Traces that hold only the requests of calls another trace answers (see
    #: `request_halves`): (trace id, the one that answers).
    halves: list[tuple[str, str]] = field(default_factory=list)
    selected: int = 0


def import_traces(
    sources: list[tuple[Path, str]],
    out: Path,
    selection: Selection,
    scrubber: Scrubber,
    *,
    live_tools: bool = False,
) -> ImportOutcome:
    """Each selected trace of `sources` (a path, and its name as given) as a fixture in
    `out`, its recorded tool results scripted as doubles unless `live_tools`."""
    outcome = ImportOutcome()
    gathered = Gathered()
    for path, shown in sources:
        read_source(path, shown, gathered)
    found = gathered_traces(gathered)
    outcome.passed_over = found.passed_over
    for known, refused in found.refused:
        if selection.takes(known):
            outcome.selected += 1
            outcome.refused.append(scrubber.refusal(refused))
    traces: list[ImportedTrace] = []
    for trace in found.traces:
        if not selection.takes(trace):
            continue
        outcome.selected += 1
        try:
            scrubbed = scrubber.trace(trace)
        except UnfaithfulTrace as refused:  # arguments nested deeper than a fixture holds
            outcome.refused.append(scrubber.refusal(refused))
            continue
        conflict = scrubbed.conflict()
        if conflict is not None:
            outcome.refused.append(scrubber.refusal(conflict))
            continue
        traces.append(scrubbed)
    halves = request_halves(traces)
    outcome.halves = [
        (trace.trace_id, halves[trace.trace_id]) for trace in traces if trace.trace_id in halves
    ]
    by_id = {trace.trace_id: trace for trace in traces}
    for half, by in halves.items():  # a log span of Logfire's may not say the provider
        by_id[by].provider = by_id[by].provider or by_id[half].provider
    traces = [trace for trace in traces if trace.trace_id not in halves]
    carried_on = continued(traces)
    names: set[str] = set()
    for trace, earlier in _runs(traces, carried_on):
        try:
            outcome.written.append(_import_one(_joined(trace, earlier), out, names, live_tools))
        except UnfaithfulTrace as refused:  # it may quote the trace: scrubbed as the fixture is
            outcome.refused.append(scrubber.refusal(refused))
        else:
            outcome.continued.extend((start.trace_id, trace.trace_id) for start in earlier)
    return outcome


def _runs(
    traces: list[ImportedTrace], carried_on: dict[str, str]
) -> list[tuple[ImportedTrace, list[ImportedTrace]]]:
    """Each trace no other carries on, with the traces whose run it carries on (followed
    through each that carries another on), in the order they were read."""
    starts: dict[str, list[ImportedTrace]] = {}
    for trace in traces:
        last, seen = trace.trace_id, {trace.trace_id}
        while last in carried_on and carried_on[last] not in seen:
            last = carried_on[last]
            seen.add(last)
        if last != trace.trace_id:
            starts.setdefault(last, []).append(trace)
    return [(trace, starts.get(trace.trace_id, [])) for trace in traces if trace.trace_id not in carried_on]


def _joined(trace: ImportedTrace, earlier: list[ImportedTrace]) -> ImportedTrace:
    """`trace` with the model calls and tool runs of the traces whose run it carries on:
    each of their calls a step of its own (its tokens and the tools it offered kept), not
    a step read back from the history."""
    if not earlier:
        return trace
    return replace(
        trace,
        calls=[call for start in earlier for call in start.calls] + trace.calls,
        tools=[run for start in earlier for run in start.tools] + trace.tools,
        unfinished=[span for start in earlier for span in start.unfinished] + trace.unfinished,
        provider=trace.provider or next((start.provider for start in earlier if start.provider), None),
    )


def request_halves(traces: list[ImportedTrace]) -> dict[str, str]:
    """The traces that hold nothing but requests another trace's call answers, each with
    the id of that trace: Logfire's streamed call is a span that ends when the stream
    starts (the request) and a log span with the request and the reply, each a trace of
    its own when nothing wraps the run."""
    answered: dict[tuple[tuple[str, ...], ...], str] = {}
    for trace in traces:
        for call in trace.calls:
            if call.reply is not None:
                answered.setdefault(said(call.messages), trace.trace_id)
    found: dict[str, str] = {}
    for trace in traces:
        requests = [call for call in trace.calls if call.reply is None and not call.failed and call.messages]
        if not trace.calls or len(requests) < len(trace.calls) or trace.tools:
            continue
        by = {answered.get(said(call.messages)) for call in requests}
        if len(by) == 1 and None not in by and trace.trace_id not in by:
            found[trace.trace_id] = str(next(iter(by)))
    return found


def continued(traces: list[ImportedTrace]) -> dict[str, str]:
    """The traces whose run another trace carries on, each with the id of the one that
    does: a trace of one model call that asks for tool calls, whose request and reply
    begin a later model call's request in another trace. An agent whose runs no span
    wraps makes a trace of each model call; the last one holds the run so far, from
    which the whole case is read (`conversation`), so the earlier ones add nothing.

    Every request's conversation is indexed by each of its beginnings once, each by a
    digest chained over its messages (`_beginnings`), so the index takes time and memory
    in proportion to the messages, not to their square (a beginning kept as a tuple of
    its messages would be: a 1.7 MB trace of a long conversation took 1.6 GB), nor to
    the square of the traces."""
    begins: dict[bytes, set[str]] = {}
    for trace in traces:
        for call in trace.calls:
            for beginning in _beginnings(said(call.messages)):
                holders = begins.setdefault(beginning, set())
                if len(holders) < 2:  # two are enough to find one that is not the trace itself
                    holders.add(trace.trace_id)
    found: dict[str, str] = {}
    for trace in traces:
        if len(trace.calls) != 1 or trace.tools or trace.agent is not None:
            continue
        (call,) = trace.calls
        if call.reply is None or not call.reply.tool_calls:
            continue
        calls = [request.as_openai() for request in call.reply.tool_calls]
        reply: Message = {"role": "assistant", "content": call.reply.content, "tool_calls": calls}
        *_, whole = _beginnings(said([*call.messages, reply]))
        others = begins.get(whole, set()) - {trace.trace_id}
        if others:
            found[trace.trace_id] = min(others)
    return found


def _beginnings(spoken: tuple[tuple[str, ...], ...]) -> list[bytes]:
    """A digest of each beginning of a conversation (its first message, its first two,
    ...), each chained from the one before, so that each message is hashed once: SHA-256,
    whose collisions no trace can make, over each of its texts with its length (the
    parts of a message, and the messages, cannot run into each other)."""
    digests = []
    chained = hashlib.sha256()
    for message in spoken:
        for part in message:
            data = part.encode("utf-8", "surrogatepass")
            chained.update(len(data).to_bytes(8, "big"))
            chained.update(data)
        chained.update(b"\xff" * 8)  # no text is that long: the end of a message
        digests.append(chained.copy().digest())
    return digests


def case_name(trace: ImportedTrace) -> str:
    """The fixture's name: the agent's (or service's) name and the first 8 letters and
    digits of the trace id; nothing else of either, so the name is a plain file name."""
    label = trace.agent or trace.service or "trace"
    slug = re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_").lower() or "trace"
    plain = re.sub(r"[^A-Za-z0-9]+", "", trace.trace_id).lower()[:8] or _digest(trace)
    return f"{slug[:40]}_{plain}"


def _digest(trace: ImportedTrace) -> str:
    return hashlib.sha256(trace.trace_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _import_one(trace: ImportedTrace, out: Path, names: set[str], live_tools: bool) -> Written:
    talk = conversation(trace)
    name = case_name(trace)
    # Two traces whose ids begin alike, here or in a file written before: the digest of
    # the whole id tells them apart.
    if name in names or (out / f"{name}.json").exists():
        name = f"{name}_{_digest(trace)}"
    names.add(name)
    path = out / f"{name}.json"
    fixture = fixture_of(trace, talk, name, live_tools=live_tools)
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
    except IsADirectoryError:
        raise UnfaithfulTrace(trace.trace_id, None, None, f"{path} is a folder") from None
    except (OSError, ValueError) as exc:
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EACCES, errno.EROFS, errno.ENOTDIR):
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise UnfaithfulTrace(trace.trace_id, None, None, f"cannot write {path}: {exc}") from None
    checks = tuple(key for key in fixture["expects"])
    steps = sum(len(turn["steps"]) for turn in talk.turns)
    doubled = tuple(fixture.get("tool_doubles", {}))
    return Written(path, trace, steps, len(talk.record.calls), checks, doubled)
