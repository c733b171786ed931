"""What a mutation run finds: per fixture, each mutant killed or surviving, and the gate.

The gate: with a minimum score, the suite's score (killed / all mutants, in percent)
must reach it. Without one, every fixture must kill at least one mutant of each operator
that applies to it, so that no kind of regression goes unseen by a case that could see
it. A rejected fixture, a case that does not pass in replay, or a suite with no mutant
at all fails the gate either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zeroclaw_eval.cases.case import RejectedFixture
from zeroclaw_eval.cases.location import FieldRef
from zeroclaw_eval.errors import ExitCode
from zeroclaw_eval.mutate.mutant import OPERATORS


@dataclass(frozen=True)
class MutantOutcome:
    """How one mutant fared against its fixture's checks."""

    operator: str
    position: str
    before: str
    after: str
    #: The checks that failed on the mutant (none: it survived).
    killed_by: tuple[str, ...]
    #: For a survivor, a check proven to pass the real run and fail this mutant, in
    #: words; `check` is the same as a partial `expects` object.
    suggestion: str | None = None
    check: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        """Operator and position, e.g. `drop_call[turn 1, call 0]`."""
        return f"{self.operator}[{self.position}]"

    @property
    def killed(self) -> bool:
        """Whether a check of the fixture failed on the mutant."""
        return bool(self.killed_by)


@dataclass(frozen=True)
class FixtureMutation:
    """The mutants of one fixture and their fate; `problem` says why it had none."""

    name: str
    path: Path
    model_name: str
    #: The fixture's `expects`, located: where a survivor is reported.
    expects: FieldRef
    outcomes: tuple[MutantOutcome, ...] = ()
    problem: str | None = None
    #: Mutants the system would not let be made (`name: reason`): not graded, not counted.
    unmade: tuple[str, ...] = ()

    @property
    def killed(self) -> int:
        """Mutants a check of the fixture failed on."""
        return sum(1 for outcome in self.outcomes if outcome.killed)

    @property
    def survivors(self) -> list[MutantOutcome]:
        """Mutants every check of the fixture passed."""
        return [outcome for outcome in self.outcomes if not outcome.killed]

    @property
    def unseen_operators(self) -> list[str]:
        """Operators that apply to the fixture none of whose mutants it kills."""
        applied = {outcome.operator for outcome in self.outcomes}
        seen = {outcome.operator for outcome in self.outcomes if outcome.killed}
        return [operator for operator in OPERATORS if operator in applied - seen]


@dataclass(frozen=True)
class MutationReport:
    """The mutation verdict on a suite."""

    suite: str
    fixtures: tuple[FixtureMutation, ...]
    rejected: tuple[RejectedFixture, ...]
    #: The score the suite must reach, in percent (None: the per-operator rule).
    min_score: float | None = None
    duration_ms: float = 0.0

    @property
    def total(self) -> int:
        """Mutants graded across the suite."""
        return sum(len(fixture.outcomes) for fixture in self.fixtures)

    @property
    def killed(self) -> int:
        """Mutants killed across the suite."""
        return sum(fixture.killed for fixture in self.fixtures)

    @property
    def score(self) -> float | None:
        """Killed mutants in percent of all (None: there were none)."""
        return 100.0 * self.killed / self.total if self.total else None

    def failures(self) -> list[str]:
        """Why the gate fails, one reason a line (empty: it passes)."""
        reasons = [f"{fixture.name}: rejected" for fixture in self.rejected]
        reasons += [f"{f.name}: {f.problem}" for f in self.fixtures if f.problem]
        score = self.score
        if score is None:
            reasons.append("no mutant was graded: there is nothing to score")
        elif self.min_score is not None:
            if score < self.min_score:
                reasons.append(f"mutation score {score:.1f}% is below --min-score {self.min_score:g}%")
        else:
            for fixture in self.fixtures:
                if fixture.unseen_operators:
                    listed = ", ".join(fixture.unseen_operators)
                    reasons.append(f"{fixture.name}: no mutant killed by operator {listed}")
        return reasons

    def exit_code(self) -> ExitCode:
        """`OK` when the gate passes, else `FAILED`."""
        return ExitCode.gate(not self.failures())
