"""`run --resume REPORT` and `run --rerun-failed REPORT`: a run that takes up an earlier
report of the same suite, runs only what that report lacks, and writes one report of the
whole.

- `--resume` keeps every case the earlier report has a result for (a run cut short by a
  runner's time limit or Ctrl-C writes the cases that finished, marked interrupted) and
  runs the rest: a live suite does not pay again for what it already ran.
- `--rerun-failed` keeps the cases that did not fail the gate (passed, or failed as their
  `xfail` mark expected) and runs every other: those that failed, errored or were
  rejected, and those the earlier report lacks.

A kept verdict must be one this run would give: a case whose fixture changed since (its
SHA-256 is in the report) is run again, as is a repeated case whose runs or minimum pass
rate differ from this run's. The report is refused, never guessed at, when it is of
another suite or was run otherwise: another working folder, suite label, mode or shard,
a case whose fixture the suite no longer has, a case twice, or other settings (the
agent, the provider, the repeats: `settings_sha256`). The report written holds each
fixture of the run once, the kept cases as the earlier report had them (their change
since a baseline is this run's to say) and the others as this run graded them, in the
suite's order.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.report.model import CaseReport, SuiteReport


def _key(path: str) -> str:
    # A report written on Windows stores its paths with backslashes.
    return path.replace("\\", "/")


@dataclass(frozen=True)
class Earlier:
    """The earlier report a run takes up, and the cases it keeps from it."""

    path: Path
    #: `--resume` or `--rerun-failed`: what the messages name.
    option: str
    report: SuiteReport
    kept: tuple[CaseReport, ...]

    @property
    def skipped(self) -> frozenset[str]:
        """The paths of the kept cases, as reports show them: this run leaves them out."""
        return frozenset(_key(case.path) for case in self.kept)


def fixture_digest(text: str) -> str:
    """The SHA-256 of a fixture's text, as a report keeps it."""
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def read_earlier(
    path: Path, *, failed_only: bool, settings: str, repeat: int = 1, min_pass_rate: float | None = None
) -> Earlier:
    """The report at `path` (read as strictly as every saved report), and the cases a run
    with `settings` (its `settings_sha256`), `repeat` and `min_pass_rate` keeps from it:
    every case (`--resume`), or those that did not fail the gate, but for those whose
    fixture or repeats changed since. `UsageError` for a report of another folder or
    other settings, or holding a case twice."""
    from zeroclaw_eval.report.saved import read_report

    option = "--rerun-failed" if failed_only else "--resume"
    report = read_report(path, role=f"{option} ")
    if report.root != os.getcwd():
        raise UsageError(
            f"{option} {path} was run in {report.root}, and this run in {os.getcwd()}: its case paths"
            " name other files; resume a run from the folder it ran in"
        )
    if report.settings_sha256 != settings:
        raise UsageError(
            f"{option} {path} was run with other settings (the agent, the provider, the mode or the"
            " repeats differ, or it was written before they were recorded): its verdicts are not this"
            " run's to keep; run the suite afresh"
        )
    seen: set[str] = set()
    for case in report.cases:
        if _key(case.path) in seen:
            raise UsageError(f"{option} {path} holds {case.path} twice: it was edited; run the suite afresh")
        seen.add(_key(case.path))
    kept = tuple(
        replace(case, change=None)  # its change since a baseline is this run's to say
        for case in report.cases
        if not (failed_only and case.blocks_gate) and _unchanged(case, repeat, min_pass_rate)
    )
    return Earlier(path, option, report, kept)


def _unchanged(case: CaseReport, repeat: int, min_pass_rate: float | None) -> bool:
    """Whether this run would give `case` the verdict it has: its fixture is the one it
    ran (by digest), and it was repeated as this run repeats."""
    if case.fixture_sha256 is None:
        return False
    try:
        now = fixture_digest(Path(case.path).read_bytes().decode("utf-8", "surrogateescape"))
    except OSError:
        return True  # gone: `check_same_suite` refuses the report, saying which
    if now != case.fixture_sha256:
        return False
    runs = case.repeats.runs if case.repeats is not None else 1
    rate = case.repeats.min_pass_rate if case.repeats is not None else None
    return runs == repeat and rate == min_pass_rate


def check_same_suite(
    earlier: Earlier, *, label: str, mode: str, shown: Sequence[str], shard: tuple[int, int, str] | None
) -> None:
    """`UsageError` unless the earlier report is of the suite this run collected: its
    `label`, `mode`, fixture paths as `shown` (the whole suite's) and `shard` (index,
    count and suite digest; None for a whole suite)."""
    report, option = earlier.report, earlier.option
    if report.suite != label:
        raise UsageError(
            f"{option} {earlier.path} is a report of {report.suite!r}, and this run is of {label!r};"
            " resume a run with the suite it ran"
        )
    if report.mode != mode:
        raise UsageError(f"{option} {earlier.path} ran in {report.mode} mode, and this run is {mode}")
    theirs = (report.shard.index, report.shard.count, report.shard.suite_digest) if report.shard else None
    if theirs != shard:
        said = f"shard {theirs[0]}/{theirs[1]}" if theirs else "the whole suite"
        if theirs and shard and theirs[:2] == shard[:2]:
            said += " of another fixture list (the suite changed since)"
        raise UsageError(f"{option} {earlier.path} is a report of {said}; give this run the same --shard")
    files = {_key(name) for name in shown}
    gone = [case.path for case in report.cases if _key(case.path) not in files]
    if gone:
        raise UsageError(
            f"{option} {earlier.path} holds {gone[0]}, which this suite does not have"
            f"{f' (and {len(gone) - 1} more)' if len(gone) > 1 else ''}: a report of another suite, or"
            " of one whose fixtures were removed since; run the suite afresh"
        )


def resumed(earlier: Earlier, report: SuiteReport, shown: Sequence[str]) -> SuiteReport:
    """`report` (this run's) with the earlier report's kept cases, one report in the
    order of `shown` (the suite's fixture paths): each fixture once."""
    cases = [*earlier.kept, *report.cases]
    seen: set[str] = set()
    for case in cases:
        key = _key(case.path)
        if key in seen:  # the kept ones were left out of the run: this is a bug, say so
            raise UsageError(f"{case.path} would be counted twice (kept from {earlier.path} and run again)")
        seen.add(key)
    position = {_key(name): index for index, name in enumerate(shown)}
    cases.sort(key=lambda case: position.get(_key(case.path), len(position)))
    report.cases = cases
    report.duration_ms += earlier.report.duration_ms
    return report
