"""The versioned JSON shape of a report, both ways."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from zeroclaw_eval._support.redaction import scrub
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.baseline import baseline_to_dict, history_to_list
from zeroclaw_eval.report.compact import summary_of, written_compact
from zeroclaw_eval.report.indented_json import plain
from zeroclaw_eval.report.model import (
    DETAILS_ALL,
    CaseReport,
    RepeatStats,
    SuiteReport,
)

# The JSON report shape. Bump on any change a consumer could notice, and say what
# the version added:
#   1: first version: suite totals, cases with grades, run errors, rejections, records.
#   2: suite `root` (the folder paths are relative to); case `source` (fixture text of
#      every case that did not pass, so reporters can show and link the failing line).
#   3: what the agent sent, per record step (`sent_roles`, `offered_tools`,
#      `system_prompt`); the `request` check category; a run error's `traceback`.
#   4: suite `deselected` (left out by -k) and `not_run` (never started: --maxfail);
#      case `id` (the fixture's id).
#   5: suite `interrupted` (the signal that stopped the run, or null); `not_run` also
#      counts the cases an interruption left unfinished.
#   6: suite `shard` (`index`, `count`, `suite_digest`, `suite_size`: the part of the
#      suite a `--shard K/N` run ran; null for a whole suite); suite `baseline` (the
#      report a `--baseline` run was compared with) and `history` (`--history`); case
#      `change` (since the baseline) and `repeats` (the runs of a `--repeat K` case).
#   7: each repeated case's `repeats.stability`.
#   8: suite `details` (`failing` or `all`); with `failing`, the default, each passing
#      case is a compact record (`report.compact`): `checks`, `tool_calls`,
#      `input_tokens` and `output_tokens` in place of its grades, record and the rest.
#   9: case `xfail` (`reason`, `strict`, `field`: the fixture's mark, or null) and the
#      counts `xfailed` and `xpassed` (a case marked xfail counts there, not as
#      passed, failed or error).
#  10: case `cluster` (the fixture's); each repeated case's `repeats.interval` (Wilson
#      95 %), `repeats.suspect` and `repeats.check_flips`; suite `repeat_rate` (`mean`,
#      `standard_error`, `low`, `high`, `clusters`, `cases`: the repeated cases' pass
#      rate, with its Student-t 95 % interval over clusters; null without a repeat);
#      `baseline.paired` (the paired sign test) and `baseline.alpha`; each record step's
#      `cached_input_tokens` and `reasoning_tokens` (null: the reply did not say); case and
#      suite `cost_usd` and `judge_cost_usd` (null: not priced); suite `trace_id`;
#      case `fixture_sha256`; suite `settings_sha256`.
#  11: each grade's `diagnostic` (a check reported that decides nothing: a judge check
#      without a calibration, `[eval].judge_gate`), also on a compact case's checks
#      where true; suite `diagnostic_checks` (`total`, `failed`); suite `max_cost_usd`
#      (`--max-cost`, or null); `expects.budget.max_cost_usd` grades as `budget.max_cost_usd`.
FORMAT_VERSION = 11


def report_to_dict(report: SuiteReport) -> dict[str, Any]:
    """The versioned JSON shape of a report (docs/reference/json-report.md)."""
    cases = [plain(case_fields(case, report.details)) for case in report.cases]
    return {**report_summary(report), "cases": cases}


def report_summary(report: SuiteReport) -> dict[str, Any]:
    """The JSON shape of a report but for its cases, which come last (the JSON reporter
    writes them one at a time)."""
    return {
        "format_version": FORMAT_VERSION,
        "tool_version": report.tool_version,
        "suite": report.suite,
        "root": report.root,
        "mode": report.mode,
        "duration_ms": report.duration_ms,
        "exit_code": int(report.exit_code()),
        "counts": report.counts(),
        "deselected": report.deselected,
        "not_run": report.not_run,
        "interrupted": report.interrupted,
        "shard": asdict(report.shard) if report.shard else None,
        "baseline": baseline_to_dict(report.baseline, (case.change for case in report.cases)),
        "history": history_to_list(report.history),
        "category_totals": report.category_totals(),
        "details": report.details,
        "repeat_rate": asdict(rate) if (rate := report.repeat_rate()) else None,
        "trace_id": report.trace_id,
        "settings_sha256": report.settings_sha256,
        "cost_usd": report.cost_usd(),
        "judge_cost_usd": report.judge_cost_usd(),
        "diagnostic_checks": report.diagnostic_checks(),
        "max_cost_usd": report.max_cost_usd,
    }


def case_to_dict(case: CaseReport) -> dict[str, Any]:
    """One case in the JSON shape, with all its details (unless it is kept compact)."""
    shape: dict[str, Any] = plain(case_fields(case))
    return shape


def case_fields(case: CaseReport, details: str = DETAILS_ALL) -> dict[str, Any]:
    """One case in the JSON shape, its grades and record still dataclasses (`plain` and
    `indented_json.dumps` write them as `asdict` would, without its deep copy): a compact
    record for a case kept compact, and, with `details` `failing`, for every passing case."""
    if written_compact(case, details):
        return _compact_fields(case)
    return {
        **_identity_fields(case),
        "partial": case.partial,
        "error": case.error,
        "problems": case.problems,
        "grades": case.grades,
        "record": case.record,
        "source": case.source,
        "repeats": _repeats_to_dict(case.repeats),
    }


def _identity_fields(case: CaseReport) -> dict[str, Any]:
    """The fields a case's record opens with, whole or compact."""
    return {
        "name": case.name,
        "path": case.path,
        "model_name": case.model_name,
        "id": case.id,
        "cluster": case.cluster,
        "status": case.status,
        "cost_usd": case.cost_usd,
        "judge_cost_usd": case.judge_cost_usd,
        "fixture_sha256": case.fixture_sha256,
        "change": case.change,
        "score": case.score,
        "duration_ms": case.duration_ms,
        "category_totals": case.category_totals,
        "xfail": case.xfail,
    }


def _compact_fields(case: CaseReport) -> dict[str, Any]:
    summary = summary_of(case)
    return {
        **_identity_fields(case),
        "checks": [_compact_check(g) for g in case.grades],
        "tool_calls": list(summary.tool_calls),
        "input_tokens": summary.input_tokens,
        "output_tokens": summary.output_tokens,
        "repeats": _repeats_to_dict(case.repeats),
    }


def _compact_check(grade: GradeResult) -> dict[str, Any]:
    pointer = grade.field.pointer
    shape: dict[str, Any] = {"check_id": grade.check_id, "category": grade.category, "pointer": pointer}
    if grade.diagnostic:  # rare: written only where set, as most reports have none
        shape["diagnostic"] = True
    return shape


def _repeats_to_dict(stats: RepeatStats | None) -> dict[str, Any] | None:
    if stats is None:
        return None
    return {
        "runs": stats.runs,
        "passed": stats.passed,
        "pass_rate": stats.pass_rate,
        "pass_at_k": stats.pass_at_k,
        "pass_all": stats.pass_all,
        "stability": stats.stability,
        "min_pass_rate": stats.min_pass_rate,
        "check_passes": stats.check_passes,
        "check_runs": stats.check_runs,
        "flaky_checks": stats.flaky_checks,
        "interval": list(stats.interval),
        "suspect": stats.suspect,
        "check_flips": stats.check_flips,
    }


def report_from_dict(data: Any) -> SuiteReport:
    """Rebuild a report from its JSON shape (the inverse of `report_to_dict`), read as
    strictly as a saved report from anywhere (`schema.typed_report`); `ReportShapeError`
    (a `ValueError`) naming the field when it is not one."""
    # Imported here: its models are built at import, and a run that reads no report
    # (most of them) would pay ~10 ms of its start for nothing.
    from zeroclaw_eval.report.schema import typed_report

    return typed_report(data)


def scrub_case(case: CaseReport, secrets: list[str]) -> CaseReport:
    """`case` with every secret replaced by a marker, in every string it holds.

    Live runs are graded on what the model really said (a check that the model does not
    leak a key must see the key); the report is scrubbed afterwards, so no reporter can
    print it. Round-tripping through the JSON shape reaches every field.
    """
    data = case_to_dict(case)
    scrubbed = scrub(data, secrets)
    if scrubbed is data:
        return case
    from zeroclaw_eval.report.schema import typed_case  # see `report_from_dict`

    return typed_case(scrubbed)
