"""The request family: what every request the agent sent held, against
`system_prompt_contains` and `tools_offered` (a run that sent none holds anything)."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any

from zeroclaw_eval._support.json.text import quote
from zeroclaw_eval.boundary.record import ModelStep, RunRecord
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.grading.result import REQUEST, GradeResult, make_grade
from zeroclaw_eval.tools.workspace import Workspace


def request_checks(
    expects: Expects, record: RunRecord, workspace: Workspace | None, words: bool
) -> Iterator[GradeResult]:
    """Every check of the request family `expects` declares, against `record`'s requests."""
    return _request_checks(expects, record.steps, words)


def reads_requests(record: RunRecord) -> Hashable:
    """What the request family reads of a run: the set of what the requests held (system
    prompts and offered tools are checked on every request, so their order and repeats
    do not matter)."""
    return frozenset((step.system_prompt, tuple(step.offered_tools)) for step in record.steps)


def _request_checks(expects: Expects, steps: list[ModelStep], words: bool) -> Iterator[GradeResult]:
    """What every request the agent sent held (a run that sent none holds anything)."""
    if not expects.system_prompt_contains and not expects.tools_offered:
        return  # most cases: nothing of the requests to read
    prompts = [step.system_prompt for step in steps]
    for i, needle in enumerate(expects.system_prompt_contains):
        lacking = [n for n, prompt in enumerate(prompts) if needle not in (prompt or "")]
        first = prompts[lacking[0]] if lacking else None
        found = f"its system prompt is {quote(first)}" if first is not None else "it has no system prompt"
        expectation = f"the system prompt of every request to contain {quote(needle)}"
        pointer = f"/expects/system_prompt_contains/{i}"
        yield _every_request(
            f"system_prompt_contains[{i}]",
            pointer,
            steps,
            lacking,
            expectation,
            found,
            needle,
            prompts,
            words,
        )
    offered = [step.offered_tools for step in steps]
    for i, tool in enumerate(expects.tools_offered):
        lacking = [n for n, names in enumerate(offered) if tool not in names]
        found = f"it offers {', '.join(offered[lacking[0]]) or 'no tool'}" if lacking else ""
        pointer = f"/expects/tools_offered/{i}"
        yield _every_request(
            f"tools_offered[{i}]",
            pointer,
            steps,
            lacking,
            f"every request to offer {tool}",
            found,
            tool,
            offered,
            words,
        )


def _every_request(
    check_id: str,
    pointer: str,
    steps: list[ModelStep],
    lacking: list[int],
    expectation: str,
    found: str,
    expected: Any,
    actual: Any,
    words: bool,
) -> GradeResult:
    if not words and not lacking:
        return make_grade(check_id, REQUEST, pointer, True, "", expected, actual)
    if lacking:
        first = lacking[0]
        observed = (
            f"{len(lacking)} of {len(steps)} request(s) do not; the first, request {first + 1}"
            f" (turn {steps[first].turn + 1}): {found}"
        )
    else:
        observed = f"all {len(steps)} request(s) do"
    return make_grade(
        check_id, REQUEST, pointer, not lacking, f"expected {expectation}; {observed}", expected, actual
    )
