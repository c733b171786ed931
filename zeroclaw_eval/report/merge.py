"""Merging the reports of a sharded run (`--shard K/N`) into the report of the whole suite.

Merging is refused, never guessed: every report must be a shard of the same suite (one
suite digest, one shard count, one mode), and together they must be every shard
exactly once, each fixture in one of them once. A missing shard would certify cases
that never ran; a shard given twice, or a case copied from one shard into another in
place of one that failed, would count a pass twice. Each shard was read as every saved
report is (`schema`): its cases' statuses and its counts are its cases' own, and the
merged verdict is derived again from the cases it carries.
"""

from __future__ import annotations

from collections.abc import Sequence

from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.report.model import DETAILS_ALL, DETAILS_FAILING, SuiteReport


def merge_reports(reports: Sequence[tuple[str, SuiteReport]]) -> SuiteReport:
    """One report of the whole suite from its shard reports, each given with the name
    it is known by (its file) for the messages.

    Cases come in the order of their paths, which is the suite's order for a suite
    folder; counts of deselected and not-run cases add up; the duration is the slowest
    shard's (the shards ran side by side). Raises `UsageError` when the reports are not
    every shard of one suite exactly once.
    """
    if not reports:
        raise UsageError("give the JSON reports of every shard to merge")
    _check_shards(reports)
    first = reports[0][1]
    cases = sorted((case for _, report in reports for case in report.cases), key=lambda case: case.path)
    interrupted = next((r.interrupted for _, r in reports if r.interrupted is not None), None)
    return SuiteReport(
        first.suite,
        first.mode,
        cases,
        max(report.duration_ms for _, report in reports),
        first.tool_version,
        first.root,
        deselected=sum(report.deselected for _, report in reports),
        not_run=sum(report.not_run for _, report in reports),
        interrupted=interrupted,
        # Every detail only if every shard kept them: a merged report says what it holds.
        details=DETAILS_ALL
        if all(report.details == DETAILS_ALL for _, report in reports)
        else DETAILS_FAILING,
    )


def _check_shards(reports: Sequence[tuple[str, SuiteReport]]) -> None:
    whole = [name for name, report in reports if report.shard is None]
    if whole:
        raise UsageError(f"{whole[0]} is not a shard report: write each with `zeroclaw eval run --shard K/N`")
    name, first = reports[0]
    assert first.shard is not None
    count, digest = first.shard.count, first.shard.suite_digest
    seen: dict[int, str] = {}
    for other, report in reports:
        shard = report.shard
        assert shard is not None
        if shard.count != count:
            raise UsageError(f"{other} is shard {shard.index}/{shard.count}, but {name} is one of {count}")
        if shard.suite_digest != digest:
            raise UsageError(
                f"{other} and {name} ran different suites (their fixture lists differ): merge the shards"
                " of one checkout"
            )
        if report.mode != first.mode:
            raise UsageError(f"{other} ran in {report.mode} mode, {name} in {first.mode} mode")
        if report.tool_version != first.tool_version:
            raise UsageError(
                f"{other} was written by zeroclaw-eval {report.tool_version}, {name} by {first.tool_version}:"
                " shards split the suite alike only within one version"
            )
        if shard.index in seen:
            raise UsageError(f"shard {shard.index}/{count} is given twice: {seen[shard.index]} and {other}")
        seen[shard.index] = other
    missing = [str(index) for index in range(1, count + 1) if index not in seen]
    if missing:
        raise UsageError(
            f"shard(s) {', '.join(missing)} of {count} missing: a merged report must hold every shard"
            " (a shard that did not run would pass cases it never ran)"
        )
    owner: dict[str, str] = {}
    for other, report in reports:
        for case in report.cases:
            key = case.path.replace("\\", "/")
            if key in owner:
                raise UsageError(
                    f"{case.path} is a case of both {owner[key]} and {other}: each fixture runs in one"
                    " shard, so one of them was edited"
                )
            owner[key] = other
    # Each fixture of the suite is a case, deselected by -k, or not run (--maxfail, an
    # interruption) in exactly one shard: fewer means a shard lost some.
    accounted = sum(len(r.cases) + r.deselected + r.not_run for _, r in reports)
    if accounted != first.shard.suite_size:
        raise UsageError(
            f"the shards account for {accounted} of the suite's {first.shard.suite_size} fixtures: merge the"
            " reports of one sharded run, unedited"
        )
