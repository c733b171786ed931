"""Splitting a suite over several machines: which fixtures shard K of N runs, and the
digest that proves shard reports came from the same suite.

Every runner of a CI matrix computes the split alone, from the same fixture files, so
it must depend on nothing but them: each fixture goes, costliest first, to the shard
with the least cost so far; ties between fixtures are broken by a stable hash of the
path, ties between shards by the lowest number. A fixture's cost is a fixed part (a
workspace, an agent, a request's latency: what every case pays, counted as
`CASE_COST` bytes) plus its size, so a few large fixtures do not leave one shard with
a single case and another with most of them. The result is deterministic on every
machine, and shards differ in cost by at most one fixture's.

Size is a poor guess at a live case's cost: one waits on a judge and ten model calls,
the next answers at once, and the slowest shard sets the wall time. `--balance REPORT`
weighs each fixture by its duration in an earlier run's report instead (the same report
on every runner, an artifact of the main branch, so the split stays the same
everywhere); a fixture the report lacks is weighed by its size at the time a byte cost
in the cases it has. Should runners be given different reports, `merge` refuses the
shards: a fixture would be in two of them, or in none.
"""

from __future__ import annotations

import hashlib
import heapq
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from zeroclaw_eval.collect.suite import display_path
from zeroclaw_eval.errors import UsageError

_SPEC = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")
#: What running any case costs besides its size, in bytes of fixture (a typical fixture
#: is 1-4 KB, so case count weighs about as much as size).
CASE_COST = 4096
#: The most shards a suite may be split into. CI matrices stop far below it (GitHub
#: Actions: 256 jobs a matrix); past it a typo (a stray digit) would make millions of
#: empty shards, each one the run keeps a list for.
MAX_SHARDS = 1024


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`K/N` as a shard; `UsageError` for anything else (K from 1 to N)."""
        match = _SPEC.fullmatch(text)
        if match is None:
            raise UsageError(f"--shard {text!r}: expected K/N, e.g. 2/4 (shard 2 of 4)")
        index, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 1 <= index <= count:
            raise UsageError(f"--shard {text!r}: K must be from 1 to N, and N at least 1")
        if count > MAX_SHARDS:
            raise UsageError(f"--shard {text!r}: N may be at most {MAX_SHARDS:,}")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogateescape")).hexdigest()


def _cost(path: Path) -> int:
    try:
        return CASE_COST + path.stat().st_size
    except OSError:  # admission will say what is wrong with it; it still goes somewhere
        return CASE_COST


def _costs(files: Sequence[Path], durations: Mapping[str, float] | None) -> dict[Path, float]:
    """Each fixture's cost: its size (`_cost`), or with `durations` (milliseconds by
    shown path, from an earlier report) its duration, the rest at the time a byte of
    cost took in the fixtures it has."""
    sizes = {path: float(_cost(path)) for path in files}
    if not durations:
        return sizes
    # A fixture's name in the split is its path from the working directory, so that every
    # runner of a matrix names it alike wherever the checkout lies.
    known = {path: durations[name] for path in files if (name := display_path(path)) in durations}
    size_of_known = sum(sizes[path] for path in known)
    per_byte = sum(known.values()) / size_of_known if size_of_known else 0.0
    if per_byte <= 0:  # nothing timed (or every case took no time): sizes still split
        return sizes
    return {path: known.get(path, sizes[path] * per_byte) for path in files}


def split(
    files: Sequence[Path], count: int, durations: Mapping[str, float] | None = None
) -> list[list[Path]]:
    """`files` dealt into `count` shards balanced by cost, each in the given order."""
    order = {path: position for position, path in enumerate(files)}
    costs = _costs(files, durations)
    ranked = sorted(files, key=lambda path: (-costs[path], _hash(display_path(path))))
    # The lightest shard (the first of equals) takes the next fixture: a heap of
    # (load, shard) pops exactly that one.
    lightest = [(0.0, shard) for shard in range(count)]
    shards: list[list[Path]] = [[] for _ in range(count)]
    for path in ranked:
        load, shard = lightest[0]
        heapq.heapreplace(lightest, (load + costs[path], shard))
        shards[shard].append(path)
    return [sorted(shard, key=order.__getitem__) for shard in shards]


def shard_files(
    files: Sequence[Path], shard: Shard, durations: Mapping[str, float] | None = None
) -> list[Path]:
    """The fixtures shard `shard` runs, in the given order (`durations`: `--balance`)."""
    return split(files, shard.count, durations)[shard.index - 1]


def suite_digest(files: Sequence[Path]) -> str:
    """A digest of the whole fixture list (each path and content): shard reports whose
    digests differ came from different suites, or from different checkouts."""
    digest = hashlib.sha256()
    for name, path in sorted((display_path(path), path) for path in files):
        try:
            content = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            content = "unreadable"
        digest.update(f"{name}\0{content}\n".encode("utf-8", errors="surrogateescape"))
    return digest.hexdigest()
