"""A new fixture made strong enough for `zeroclaw eval mutate`: each mutant it would let
survive gets the check suggested for it added, until no mutant a check could kill
survives.

What a case must pin down depends on what its tools do in replay (what echo answers,
which file file_write leaves), which only the run shows: so the checks come from the
mutation run itself, each one proven to pass the real run and fail its mutant
(`suggest`), not from a second account of every tool's behaviour.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zeroclaw_eval._support.json.text import pretty_json
from zeroclaw_eval.cases.admission import admit_bytes
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.mutate.engine import mutate_case
from zeroclaw_eval.mutate.report import FixtureMutation
from zeroclaw_eval.mutate.suggest import add_check
from zeroclaw_eval.runner import RunOptions

#: Checks added at most: each kills a survivor, and a scaffold has a handful of mutants.
MAX_ADDED = 64


async def strengthen(
    data: dict[str, Any], path: Path, options: RunOptions
) -> tuple[dict[str, Any], FixtureMutation]:
    """`data`, a fixture (to be written at `path`) that admission admits and that passes
    in replay, with a check added to its `expects` for each mutant that survived it, one
    at a time (one check often kills several); and the mutation run of the result.

    `ValueError` if `data` is not admitted: the caller admits it first.
    """
    mutation = await _mutation(data, path, options)
    for _ in range(MAX_ADDED):
        check = next((outcome.check for outcome in mutation.survivors if outcome.check is not None), None)
        if check is None:
            break
        add_check(data["expects"], check)
        mutation = await _mutation(data, path, options)
    return data, mutation


async def _mutation(data: dict[str, Any], path: Path, options: RunOptions) -> FixtureMutation:
    case = admit_bytes((pretty_json(data) + "\n").encode("utf-8"), path, options.nameable_tools)
    if not isinstance(case, Case):
        raise ValueError(f"{path}: the fixture to strengthen is not admitted: {case.problems[0].what()}")
    return await mutate_case(case, options)
