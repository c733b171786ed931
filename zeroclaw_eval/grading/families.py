"""The check families, one table: for each, its keys in a fixture's `expects`, its
admission rules, how it grades, what part of a run it reads, and the mutation operators
that change that part.

`grading.grader.grade` grades each family in this order; mutation testing's
`observable` is what the families read (a mutant that changes none of it is no mutant);
a test holds the table to the fixture model (every key of `expects` in exactly one
family), the schema, the admission rules (`cases.rules.EXPECTS_RULES`), the mutation
operators and the fixture reference page. A new family is a row here (with its grading
module), its keys in `cases.model.Expects`, and its section of the reference page.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass

from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.contradictions import Later
from zeroclaw_eval.cases.location import RawProblem
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.cases.rules import judge_rules, response_rules, tool_rules, turn_rules, workspace_rules
from zeroclaw_eval.grading.budget_checks import budget_checks, reads_spending
from zeroclaw_eval.grading.judges.check import judge_checks
from zeroclaw_eval.grading.request_checks import reads_requests, request_checks
from zeroclaw_eval.grading.response_checks import reads_response, response_checks
from zeroclaw_eval.grading.result import BUDGET, REQUEST, RESPONSE, SIDE_EFFECT, TOOL, GradeResult
from zeroclaw_eval.grading.tool_checks import reads_calls, tool_checks
from zeroclaw_eval.grading.turn_checks import reads_turns, turn_checks
from zeroclaw_eval.grading.workspace_checks import workspace_checks
from zeroclaw_eval.tools.workspace import Workspace

#: Grades a family's checks: `(expects, record, workspace, words)` -> its grades.
Grader = Callable[[Expects, RunRecord, "Workspace | None", bool], Iterable[GradeResult]]


@dataclass(frozen=True)
class CheckFamily:
    """One family of checks."""

    name: str
    #: Its keys in `expects`, in the order it grades them.
    keys: tuple[str, ...]
    #: The category its grades carry.
    category: str
    grade: Grader
    #: What of a run its checks read: two runs it reads alike, it grades alike.
    reads: Callable[[RunRecord], Hashable]
    #: The mutation operators that change what it reads (`zeroclaw eval mutate`).
    operators: tuple[str, ...]
    #: The admission rules of its checks no run can pass, or every run passes (None: the
    #: model's own rules are all it has).
    rules: Callable[[Expects, Later, int | None], Iterator[RawProblem]] | None = None


def _judge_checks(
    expects: Expects, record: RunRecord, workspace: Workspace | None, words: bool
) -> Iterable[GradeResult]:
    return judge_checks(expects.judge, record) if expects.judge else ()


def _reads_judged(record: RunRecord) -> Hashable:
    """The judge family reads the final response, and (a conversation's judge) every turn."""
    return reads_response(record), reads_turns(record)


def _workspace_checks(
    expects: Expects, record: RunRecord, workspace: Workspace | None, words: bool
) -> Iterable[GradeResult]:
    return workspace_checks(expects.workspace, workspace) if expects.workspace is not None else ()


def _reads_workspace(record: RunRecord) -> Hashable:
    """The workspace family reads the case workspace, which no record holds: a file
    mutant is graded with its edit made, never judged by the record."""
    return None


FAMILIES: tuple[CheckFamily, ...] = (
    CheckFamily(
        "response",
        ("response_contains", "response_not_contains", "response_matches", "response_json"),
        RESPONSE,
        response_checks,
        reads_response,
        ("alter_response", "alter_turn_order"),
        response_rules,
    ),
    CheckFamily(
        "turn",
        ("turn_response_contains",),
        RESPONSE,
        turn_checks,
        reads_turns,
        ("alter_response", "alter_turn_order"),
        turn_rules,
    ),
    CheckFamily(
        "judge",
        ("judge",),
        RESPONSE,
        _judge_checks,
        _reads_judged,
        ("alter_response", "alter_turn_order"),
        judge_rules,
    ),
    CheckFamily(
        "tool",
        (
            "tools_used",
            "tools_not_used",
            "min_tool_calls",
            "max_tool_calls",
            "exact_tool_calls",
            "all_tools_succeeded",
            "tool_arguments_contain",
            "tool_results_contain",
            "trajectory",
        ),
        TOOL,
        tool_checks,
        reads_calls,
        (
            "drop_call",
            "duplicate_call",
            "swap_calls",
            "rename_tool",
            "alter_argument",
            "drop_argument",
            "alter_result",
            "fail_call",
            "alter_turn_order",
        ),
        tool_rules,
    ),
    CheckFamily(
        "request", ("system_prompt_contains", "tools_offered"), REQUEST, request_checks, reads_requests, ()
    ),
    CheckFamily(
        "workspace",
        ("workspace",),
        SIDE_EFFECT,
        _workspace_checks,
        _reads_workspace,
        ("write_elsewhere", "skip_write", "alter_file"),
        workspace_rules,
    ),
    CheckFamily("budget", ("budget",), BUDGET, budget_checks, reads_spending, ("inflate_budget",)),
)


def observable(record: RunRecord) -> Hashable:
    """Everything of `record` that some check reads, and nothing else: what each family
    reads. Two runs alike here are graded alike by every check."""
    return tuple(family.reads(record) for family in FAMILIES)
