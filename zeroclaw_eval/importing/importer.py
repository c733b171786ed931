"""The import, end to end: trace files in, one proven fixture per selected trace out.

Nothing is overwritten: a fixture whose file exists already is reported, not written.
A trace refused (unfaithful, or a file that exists) does not stop the others; the
command's exit code says whether every selected trace became a fixture.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

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
    selected: int = 0


def import_traces(
    sources: list[tuple[Path, str]], out: Path, selection: Selection, scrubber: Scrubber
) -> ImportOutcome:
    """Each selected trace of `sources` (a path, and its name as given) as a fixture in `out`."""
    outcome = ImportOutcome()
    names: set[str] = set()
    for path, shown in sources:
        found = read_source(path, shown)
        outcome.passed_over += found.passed_over
        for known, refused in found.refused:
            if selection.takes(known):
                outcome.selected += 1
                outcome.refused.append(refused)
        for trace in found.traces:
            if not selection.takes(trace):
                continue
            outcome.selected += 1
            try:
                outcome.written.append(_import_one(scrubber.trace(trace), out, names))
            except UnfaithfulTrace as refused:
                outcome.refused.append(refused)
    return outcome


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
