"""The vacuity check: does each fixture fail at least one check when nothing happens?

Admission rejects what it can see on the page; it cannot see a check that an empty run
already satisfies: a lone `max_tool_calls: 0`, only negative checks, `file_absent`
alone, budget caps alone. Such a case passes whatever the agent does, so it certifies
nothing and cannot be part of a gate. Here every admitted fixture is graded against an
empty run (`setup.workspace_files` applied in a fresh workspace, nothing else: final
response "", no calls, no tokens, no LLM calls, duration 0); a fixture is vacuous when
none of its checks that decide the case fails there. A judge check that does not gate
(`grading.judges.gate`: no calibration backs its judge) decides nothing, so a case whose
only failing check against the empty run is such a one is vacuous too, and says why.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.cases.limits import DEFAULT_MAX_FIXTURE_BYTES
from zeroclaw_eval.cases.model import LlmTrace
from zeroclaw_eval.collect.suite import display_path, fixture_files, load_fixtures
from zeroclaw_eval.errors import ExitCode
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.grading.judges.gate import ALWAYS, JudgeGate
from zeroclaw_eval.grading.result import GradeResult, located
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS
from zeroclaw_eval.tools.sandbox import case_workspace


@dataclass(frozen=True)
class VacuousCase:
    """A fixture none of whose deciding checks fails against an empty run."""

    name: str
    path: Path
    model_name: str
    #: Every check of the fixture (each passes vacuously, or fails but is diagnostic),
    #: located in the fixture text so that a report can point at the field.
    checks: tuple[GradeResult, ...]

    @property
    def check_ids(self) -> list[str]:
        """The ids of the checks that pass vacuously, in family order."""
        return [check.check_id for check in self.checks]


@dataclass(frozen=True)
class VacuityReport:
    """The vacuity verdict on a suite: vacuous and rejected fixtures, and how many ran."""

    #: The fixture files and folders checked, as the report names them.
    suite: str
    #: Number of admitted fixtures graded against the empty run.
    checked: int
    vacuous: tuple[VacuousCase, ...]
    #: Fixtures that failed admission: not vacuous but invalid, reported apart.
    rejected: tuple[RejectedFixture, ...]

    @property
    def total(self) -> int:
        """Number of fixtures found in the suite, admitted or not."""
        return self.checked + len(self.rejected)

    def exit_code(self) -> ExitCode:
        """`OK` when every fixture can fail; `FAILED` for a vacuous or rejected fixture or
        an empty suite."""
        # An empty suite certifies nothing, as in `SuiteReport.exit_code()`.
        return ExitCode.gate(not (self.vacuous or self.rejected or self.total == 0))


def empty_run_grades(trace: LlmTrace, gate: JudgeGate | None = None) -> list[GradeResult]:
    """Grade `trace.expects` against an empty run: setup applied, nothing else happened;
    the judge checks `gate` does not let decide marked diagnostic (None: every judge
    check decides, as with `always`)."""
    # Nothing runs, so only workspace checks read the workspace: a case without them
    # needs none (and a setup that cannot be seeded is no concern of the empty run).
    with case_workspace(trace, needed=trace.expects.workspace is not None) as workspace:
        grades = grade(trace.expects, RunRecord(), workspace)
    return (gate or JudgeGate(ALWAYS)).apply(grades, trace.expects, RunRecord())


def find_vacuous(case: Case, gate: JudgeGate | None = None) -> VacuousCase | None:
    """`case` as a `VacuousCase` when no deciding check fails against an empty run, else None."""
    grades = empty_run_grades(case.trace, gate)
    if any(not result.passed and not result.diagnostic for result in grades):
        return None
    checks = tuple(located(case, result) for result in grades)
    return VacuousCase(case.name, case.path, case.trace.model_name, checks)


def check_vacuity(
    suite: Path | Sequence[Path],
    known_tools: Iterable[str] | None = BUILTIN_TOOLS,
    *,
    max_fixture_bytes: int = DEFAULT_MAX_FIXTURE_BYTES,
    judge_gate: JudgeGate | None = None,
) -> VacuityReport:
    """Admit every fixture of a suite (a folder, fixture files, or several of both, as
    `run` takes them) and grade each admitted one against an empty run.

    `known_tools` are the tools a fixture's `tools` may name (None: any, as for an agent
    that runs its own tools); a file over `max_fixture_bytes` is rejected, as a run
    rejects it; `judge_gate` says which judge checks decide a case (None: all of them,
    as `always`; the command line builds it from the configuration). Raises `UsageError`
    (exit code 2) when a target does not exist.
    """
    targets = [suite] if isinstance(suite, Path) else list(suite)
    fixtures = load_fixtures(fixture_files(targets), known_tools, max_bytes=max_fixture_bytes)
    cases = [fixture for fixture in fixtures if isinstance(fixture, Case)]
    rejected = tuple(fixture for fixture in fixtures if isinstance(fixture, RejectedFixture))
    vacuous = tuple(found for case in cases if (found := find_vacuous(case, judge_gate)) is not None)
    label = " ".join(display_path(target) for target in targets)
    return VacuityReport(label, len(cases), vacuous, rejected)
