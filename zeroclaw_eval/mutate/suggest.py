"""The check to add for a survivor: proven, never guessed.

Each operator offers candidate checks for its mutant, best first. A candidate is
suggested only when the case's run passes it and the mutant fails it: so adding it
keeps the case green and kills that mutant.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from zeroclaw_eval.fixtures.model import Expects
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.run.record import RunRecord
from zeroclaw_eval.run.workspace import Workspace

Run = tuple[RunRecord, "Workspace | None"]


def suggestion(candidates: Iterable[dict[str, Any]], real: Run, mutant: Run) -> dict[str, Any] | None:
    """The first candidate that the real run passes and the mutant fails."""
    for candidate in candidates:
        try:
            expects = Expects.model_validate(candidate)
        except ValidationError:
            continue  # a candidate built from the run that is no valid check (an empty needle)
        if all(g.passed for g in grade(expects, *real)) and not all(
            g.passed for g in grade(expects, *mutant)
        ):
            return candidate
    return None


def describe(candidate: dict[str, Any]) -> str:
    """A candidate as an instruction: which member to add to `expects`."""
    ((key, value),) = candidate.items()
    if isinstance(value, dict):  # workspace and budget: one member of the nested block
        ((inner, detail),) = value.items()
        key, value = f"{key}.{inner}", detail
    text = json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return f'add {text[1:-1]} to "{key}"'
    if isinstance(value, dict):
        return f'add {text[1:-1]} to "{key}"'
    return f'set "{key}": {text}'
