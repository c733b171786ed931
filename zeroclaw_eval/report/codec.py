"""The versioned JSON shape of a report, both ways."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from zeroclaw_eval.fixtures.location import FieldRef, FixtureProblem
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.model import CaseError, CaseReport, SuiteReport
from zeroclaw_eval.run.record import ModelStep, RecordedCall, RunRecord, TurnRecord

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
FORMAT_VERSION = 5
#: Versions `report_from_dict` reads: a field a version lacks takes its default.
READABLE_VERSIONS = (2, 3, 4, 5)


def report_to_dict(report: SuiteReport) -> dict[str, Any]:
    """The versioned JSON shape of a report (see README, "JSON report")."""
    return {
        "format_version": FORMAT_VERSION,
        "tool_version": report.tool_version,
        "suite": report.suite,
        "root": report.root,
        "mode": report.mode,
        "duration_ms": report.duration_ms,
        "exit_code": report.exit_code(),
        "counts": report.counts(),
        "deselected": report.deselected,
        "not_run": report.not_run,
        "interrupted": report.interrupted,
        "category_totals": report.category_totals(),
        "cases": [case_to_dict(case) for case in report.cases],
    }


def case_to_dict(case: CaseReport) -> dict[str, Any]:
    """One case in the JSON shape."""
    return {
        "name": case.name,
        "path": case.path,
        "model_name": case.model_name,
        "id": case.id,
        "status": case.status,
        "score": case.score,
        "duration_ms": case.duration_ms,
        "category_totals": case.category_totals,
        "partial": case.partial,
        "error": asdict(case.error) if case.error else None,
        "problems": [asdict(p) for p in case.problems],
        "grades": [asdict(g) for g in case.grades],
        "record": asdict(case.record) if case.record else None,
        "source": case.source,
    }


def report_from_dict(data: dict[str, Any]) -> SuiteReport:
    """Rebuild a report from its JSON shape (the inverse of `report_to_dict`)."""
    version = data.get("format_version")
    if version not in READABLE_VERSIONS:
        readable = " or ".join(map(str, READABLE_VERSIONS))
        raise ValueError(f"unsupported report format_version {version!r} (expected {readable})")
    cases = [case_from_dict(case) for case in data["cases"]]
    return SuiteReport(
        data["suite"],
        data["mode"],
        cases,
        data["duration_ms"],
        data["tool_version"],
        data["root"],
        deselected=data.get("deselected", 0),
        not_run=data.get("not_run", 0),
        interrupted=data.get("interrupted"),
    )


def case_from_dict(data: dict[str, Any]) -> CaseReport:
    """One case rebuilt from the JSON shape."""
    error = data.get("error")
    record = data.get("record")
    return CaseReport(
        name=data["name"],
        path=data["path"],
        model_name=data.get("model_name"),
        grades=[GradeResult(**{**g, "field": FieldRef(**g["field"])}) for g in data["grades"]],
        error=_error_from_dict(error) if error else None,
        problems=[FixtureProblem(FieldRef(**p["field"]), p["message"]) for p in data["problems"]],
        duration_ms=data["duration_ms"],
        record=_record_from_dict(record) if record else None,
        source=data.get("source"),
        id=data.get("id"),
    )


def _error_from_dict(data: dict[str, Any]) -> CaseError:
    return CaseError(data["message"], FieldRef(**data["field"]), data.get("traceback"))


def _record_from_dict(data: dict[str, Any]) -> RunRecord:
    return RunRecord(
        turns=[TurnRecord(**t) for t in data["turns"]],
        steps=[ModelStep(**s) for s in data["steps"]],
        calls=[RecordedCall(**c) for c in data["calls"]],
        duration_ms=data["duration_ms"],
    )
