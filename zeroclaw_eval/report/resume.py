"""`run --resume REPORT` and `run --rerun-failed REPORT`: a run that takes up an earlier
report of the same suite, runs only what that report lacks, and writes one report of the
whole.

- `--resume` keeps every case the earlier report has a result for (a run cut short by a
  runner's time limit or Ctrl-C writes the cases that finished, marked interrupted) and
  runs the rest: a live suite does not pay again for what it already ran.
- `--rerun-failed` keeps the cases that did not fail the gate (passed, or failed as their
  `xfail` mark expected) and runs every other: those that failed, errored or were
  rejected, and those the earlier report lacks.

The report is refused, never guessed at, when it is of another suite: another suite
label, another mode, another shard, or a case whose fixture the suite no longer has. The
report written holds each fixture of the run once, the kept cases as the earlier report
had them and the others as this run graded them, in the suite's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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


def read_earlier(path: Path, *, failed_only: bool) -> Earlier:
    """The report at `path` (read as strictly as every saved report), and the cases a run
    keeps from it: every case (`--resume`), or those that did not fail the gate."""
    from zeroclaw_eval.report.saved import read_report

    option = "--rerun-failed" if failed_only else "--resume"
    report = read_report(path, role=f"{option} ")
    kept = tuple(case for case in report.cases if not (failed_only and case.blocks_gate))
    return Earlier(path, option, report, kept)


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
