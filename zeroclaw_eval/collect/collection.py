"""What a run takes, collected once before any case runs: the fixture files its targets
name, the part of them a shard runs, and the cases `-k` selects among those.

Without `-k` each fixture stays a path until its turn comes, so a large suite is never
held whole; `-k` has to read every fixture's names first, and keeps what it read.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.cases.limits import DEFAULT_MAX_FIXTURE_BYTES
from zeroclaw_eval.collect.sharding import Shard, shard_files, suite_digest
from zeroclaw_eval.collect.suite import display_path, fixture_files, load_fixtures

#: A fixture as a run holds it: admitted, rejected, or a path not read yet.
Fixture = Case | RejectedFixture | Path


@dataclass(frozen=True)
class Collection:
    """The fixtures of one run, from its targets (fixture files and suite folders)."""

    targets: tuple[Path, ...]
    #: Every fixture file the targets name: the whole suite, whichever shard runs.
    files: list[Path]
    #: The files this run takes: `files`, or the part of them `shard` runs.
    taken: list[Path]
    #: The cases to run, in file order: after `-k`, loaded; without it, still paths.
    selected: list[Fixture]
    shard: Shard | None = None
    #: The digest of `files`, for a shard's report (None without a shard).
    digest: str | None = None
    #: When collecting began (`time.perf_counter`): a run's duration counts from here.
    started: float = field(default_factory=time.perf_counter)

    @property
    def label(self) -> str:
        """The targets as a report names the suite."""
        return " ".join(display_path(target) for target in self.targets)

    @property
    def deselected(self) -> int:
        """Fixtures of `taken` that `-k` left out."""
        return len(self.taken) - len(self.selected)


def collect_suite(
    targets: Iterable[Path],
    *,
    nameable: frozenset[str] | None = None,
    max_bytes: int = DEFAULT_MAX_FIXTURE_BYTES,
    keyword: str | None = None,
    shard: Shard | None = None,
    durations: Mapping[str, float] | None = None,
    skip: frozenset[str] = frozenset(),
) -> Collection:
    """The fixtures `targets` name (`UsageError` for a path that names none), the part
    `shard` runs, and those `keyword` selects (read and admitted with the tools
    `nameable` allows, no file over `max_bytes`)."""
    started = time.perf_counter()
    targets = tuple(targets)
    files = fixture_files(targets)
    taken, digest = files, None
    if shard is not None:
        digest = suite_digest(files)
        taken = shard_files(files, shard, durations)
    if skip:  # `--resume`, `--rerun-failed`: the cases an earlier report keeps
        taken = [path for path in taken if display_path(path).replace("\\", "/") not in skip]
    selected: list[Fixture] = list(taken)
    if keyword is not None:
        selected = [*load_fixtures(taken, nameable, max_bytes=max_bytes, keyword=keyword)]
    return Collection(targets, files, taken, selected, shard, digest, started)
