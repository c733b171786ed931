"""The check to add for a survivor: proven, never guessed.

Each operator offers candidate checks for its mutant, best first. A candidate is
suggested only when the case's run passes it and the mutant fails it: so adding it
keeps the case green and kills that mutant.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.tools.workspace import Workspace

Run = tuple[RunRecord, "Workspace | None"]


def killers(candidates: Iterable[dict[str, Any]], mutant: Run) -> list[dict[str, Any]]:
    """The candidates the mutant fails, in order (the first half of the proof, taken
    while the mutant's workspace edit is in place)."""
    found = []
    for candidate in candidates:
        try:
            expects = Expects.model_validate(candidate)
        except ValidationError:
            continue  # a candidate built from the run that is no valid check (an empty needle)
        if not all(g.passed for g in grade(expects, *mutant)):
            found.append(candidate)
    return found


def suggestion(killing: Iterable[dict[str, Any]], real: Run) -> dict[str, Any] | None:
    """The first of the candidates that kill a mutant that the real run passes."""
    for candidate in killing:
        if all(g.passed for g in grade(Expects.model_validate(candidate), *real)):
            return candidate
    return None


def describe(candidate: dict[str, Any], existing: Expects | None = None) -> str:
    """A candidate as an instruction: which member to add to `expects` (`existing`, so
    that a file it already checks gets a needle, not a second key of the same name)."""
    ((key, value),) = candidate.items()
    if key == "trajectory":  # one check whose whole value is the suggestion
        return f'set "trajectory": {json.dumps(value, ensure_ascii=False)}'
    held = existing.workspace.file_contains if existing is not None and existing.workspace else {}
    if key == "workspace" and set(value) == {"file_contains"}:
        ((path, needles),) = value["file_contains"].items()
        if path in held:
            listed = ", ".join(json.dumps(needle, ensure_ascii=False) for needle in needles)
            return f'add {listed} to {json.dumps(path, ensure_ascii=False)} in "workspace.file_contains"'
    if isinstance(value, dict):  # workspace and budget: one member of the nested block
        ((inner, detail),) = value.items()
        key, value = f"{key}.{inner}", detail
    text = json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return f'add {text[1:-1]} to "{key}"'
    if isinstance(value, dict):
        return f'add {text[1:-1]} to "{key}"'
    return f'set "{key}": {text}'


def add_check(expects: dict[str, Any], check: dict[str, Any]) -> None:
    """Add `check` (a candidate: a partial `expects`) to the raw `expects` of a fixture,
    in place, as `describe` tells a person to: a list's members appended (each once), a
    block's (workspace, budget, a file's needles) merged, a value set."""
    for key, value in check.items():
        held = expects.get(key)
        if key == "trajectory":  # a sequence, not members to merge: the suggested one in place
            expects[key] = copy.deepcopy(value)
        elif isinstance(value, list) and isinstance(held, list):
            held.extend(item for item in copy.deepcopy(value) if item not in held)
        elif isinstance(value, dict) and isinstance(held, dict):
            add_check(held, value)
        else:
            expects[key] = copy.deepcopy(value)
