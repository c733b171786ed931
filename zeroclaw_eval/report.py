"""The finished result of a run: `CaseReport`s in a `SuiteReport`, and its JSON shape.

A report is data. Reporters render it and the CLI turns `exit_code()` into the process
exit status; nothing here prints, and nothing re-runs or re-grades.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from zeroclaw_eval.grader import CATEGORIES, GradeResult
from zeroclaw_eval.location import FieldRef, FixtureProblem
from zeroclaw_eval.record import ModelStep, RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.secrets import scrub

# The JSON report shape. Bump on any change a consumer could notice, and say what
# the version added:
#   1: first version: suite totals, cases with grades, run errors, rejections, records.
#   2: suite `root` (the folder paths are relative to); case `source` (fixture text of
#      every case that did not pass, so reporters can show and link the failing line).
FORMAT_VERSION = 2

PASSED, FAILED, ERROR, REJECTED = "passed", "failed", "error", "rejected"


@dataclass(frozen=True)
class CaseError:
    """Why a case could not run to completion, and the fixture field it is about."""

    message: str
    field: FieldRef


@dataclass
class CaseReport:
    """The outcome of one fixture: admitted and graded, errored, or rejected."""

    name: str
    path: str
    model_name: str | None = None
    grades: list[GradeResult] = field(default_factory=list)
    error: CaseError | None = None
    problems: list[FixtureProblem] = field(default_factory=list)
    duration_ms: float = 0.0
    record: RunRecord | None = None
    #: The fixture text, kept for cases that did not pass (None for passing ones).
    source: str | None = None

    @property
    def status(self) -> str:
        """`rejected`, `error`, `failed` or `passed`."""
        if self.problems:
            return REJECTED
        if self.error is not None:
            return ERROR
        if not self.grades or not all(g.passed for g in self.grades):
            return FAILED
        return PASSED

    @property
    def passed(self) -> bool:
        """True when the case was admitted, ran to completion and every check passed."""
        return self.status == PASSED

    @property
    def partial(self) -> bool:
        """True when the grades come from the partial record of a run that errored."""
        return self.error is not None and bool(self.grades)

    @property
    def failed_grades(self) -> list[GradeResult]:
        """The checks that did not pass."""
        return [g for g in self.grades if not g.passed]

    @property
    def score(self) -> float:
        """Fraction of checks passed (0.0 for a rejected or errored case)."""
        if self.status in (REJECTED, ERROR) or not self.grades:
            return 0.0
        return sum(g.passed for g in self.grades) / len(self.grades)

    @property
    def category_totals(self) -> dict[str, dict[str, int]]:
        """Per category present: checks passed and checks in all."""
        totals: dict[str, dict[str, int]] = {}
        for category in CATEGORIES:
            mine = [g for g in self.grades if g.category == category]
            if mine:
                totals[category] = {"passed": sum(g.passed for g in mine), "total": len(mine)}
        return totals


@dataclass
class SuiteReport:
    """All cases of one suite run, in fixture order."""

    suite: str
    mode: str
    cases: list[CaseReport] = field(default_factory=list)
    duration_ms: float = 0.0
    tool_version: str = ""
    #: Absolute folder that case paths are relative to (the working directory of the run).
    root: str = ""

    def exit_code(self) -> int:
        """0 iff every case passed; 1 otherwise, and for an empty suite (it proved nothing)."""
        return 0 if self.cases and all(case.passed for case in self.cases) else 1

    def counts(self) -> dict[str, int]:
        """How many cases ended in each status, plus the total."""
        counts = {status: 0 for status in (PASSED, FAILED, ERROR, REJECTED)}
        for case in self.cases:
            counts[case.status] += 1
        counts["total"] = len(self.cases)
        return counts

    def category_totals(self) -> dict[str, dict[str, int]]:
        """Checks passed and in all, per category, over the whole suite."""
        totals: dict[str, dict[str, int]] = {}
        for case in self.cases:
            for category, numbers in case.category_totals.items():
                into = totals.setdefault(category, {"passed": 0, "total": 0})
                into["passed"] += numbers["passed"]
                into["total"] += numbers["total"]
        return {c: totals[c] for c in CATEGORIES if c in totals}


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
        "category_totals": report.category_totals(),
        "cases": [_case_to_dict(case) for case in report.cases],
    }


def _case_to_dict(case: CaseReport) -> dict[str, Any]:
    return {
        "name": case.name,
        "path": case.path,
        "model_name": case.model_name,
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


def scrub_case(case: CaseReport, secrets: list[str]) -> CaseReport:
    """`case` with every secret replaced by a marker, in every string it holds.

    Live runs are graded on what the model really said (a check that the model does not
    leak a key must see the key); the report is scrubbed afterwards, so no reporter can
    print it. Round-tripping through the JSON shape reaches every field.
    """
    data = _case_to_dict(case)
    scrubbed = scrub(data, secrets)
    return case if scrubbed is data else _case_from_dict(scrubbed)


def report_from_dict(data: dict[str, Any]) -> SuiteReport:
    """Rebuild a report from its JSON shape (the inverse of `report_to_dict`)."""
    version = data.get("format_version")
    if version != FORMAT_VERSION:
        raise ValueError(f"unsupported report format_version {version!r} (expected {FORMAT_VERSION})")
    cases = [_case_from_dict(case) for case in data["cases"]]
    return SuiteReport(
        data["suite"], data["mode"], cases, data["duration_ms"], data["tool_version"], data["root"]
    )


def _case_from_dict(data: dict[str, Any]) -> CaseReport:
    error = data.get("error")
    record = data.get("record")
    return CaseReport(
        name=data["name"],
        path=data["path"],
        model_name=data.get("model_name"),
        grades=[GradeResult(**{**g, "field": FieldRef(**g["field"])}) for g in data["grades"]],
        error=CaseError(error["message"], FieldRef(**error["field"])) if error else None,
        problems=[FixtureProblem(FieldRef(**p["field"]), p["message"]) for p in data["problems"]],
        duration_ms=data["duration_ms"],
        record=_record_from_dict(record) if record else None,
        source=data.get("source"),
    )


def _record_from_dict(data: dict[str, Any]) -> RunRecord:
    return RunRecord(
        turns=[TurnRecord(**t) for t in data["turns"]],
        steps=[ModelStep(**s) for s in data["steps"]],
        calls=[RecordedCall(**c) for c in data["calls"]],
        duration_ms=data["duration_ms"],
    )
