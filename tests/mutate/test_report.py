"""The mutation gate (`zeroclaw_eval.mutate.report`): the per-operator rule, the minimum
score, and what always fails it."""

from __future__ import annotations

from pathlib import Path

from zeroclaw_eval.cases.case import RejectedFixture
from zeroclaw_eval.cases.location import FieldRef
from zeroclaw_eval.mutate.report import FixtureMutation, MutantOutcome, MutationReport


def outcome(operator: str, killed: bool) -> MutantOutcome:
    return MutantOutcome(operator, "x", "a", "b", ("check",) if killed else ())


def fixture(name: str, *outcomes: MutantOutcome, problem: str | None = None) -> FixtureMutation:
    return FixtureMutation(name, Path(name), name, FieldRef("/expects"), outcomes, problem)


def test_the_default_rule_wants_one_kill_per_operator_that_applies() -> None:
    seen = fixture("a.json", outcome("drop_call", True), outcome("drop_call", False))
    assert MutationReport("s", (seen,), ()).exit_code() == 0
    blind = fixture(
        "b.json", outcome("drop_call", True), outcome("alter_result", False), outcome("alter_result", False)
    )
    report = MutationReport("s", (seen, blind), ())
    assert blind.unseen_operators == ["alter_result"]
    assert report.failures() == ["b.json: no mutant killed by operator alter_result"]
    assert report.exit_code() == 1


def test_a_minimum_score_replaces_the_rule() -> None:
    blind = fixture("b.json", *(outcome("drop_call", True) for _ in range(9)), outcome("alter_result", False))
    assert MutationReport("s", (blind,), ()).score == 90.0
    assert MutationReport("s", (blind,), (), min_score=90).exit_code() == 0
    failing = MutationReport("s", (blind,), (), min_score=90.5)
    assert failing.failures() == ["mutation score 90.0% is below --min-score 90.5%"]


def test_rejected_unmutated_and_empty_suites_always_fail() -> None:
    good = fixture("a.json", outcome("drop_call", True))
    rejected = RejectedFixture("r.json", Path("r.json"), [])
    assert MutationReport("s", (good,), (rejected,), min_score=0).failures() == ["r.json: rejected"]
    broken = fixture("c.json", problem="does not pass in replay: x failed")
    assert (
        "c.json: does not pass in replay: x failed"
        in MutationReport("s", (good, broken), (), min_score=0).failures()
    )
    assert MutationReport("s", (), (), min_score=0).failures() == [
        "no mutant was graded: there is nothing to score"
    ]
