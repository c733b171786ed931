"""Shared helpers for the unit tests: fixtures on disk and independent position arithmetic."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from zeroclaw_eval.fixtures.admission import load_fixture
from zeroclaw_eval.fixtures.case import Case, RejectedFixture
from zeroclaw_eval.fixtures.location import FixtureProblem
from zeroclaw_eval.run.tools import BUILTIN_TOOLS

_MINIMAL: dict[str, Any] = {
    "model_name": "minimal",
    "turns": [
        {
            "user_input": "Say hello",
            "steps": [{"response": {"type": "text", "content": "hello there"}}],
        }
    ],
    "expects": {"response_contains": ["hello"]},
}


def minimal_fixture(**overrides: Any) -> dict[str, Any]:
    """A valid fixture as data; top-level keys in `overrides` replace the defaults."""
    data = copy.deepcopy(_MINIMAL)
    data.update(overrides)
    return data


def write_fixture(directory: Path, content: dict[str, Any] | str | bytes, name: str = "case.json") -> Path:
    """Write a fixture file (data is dumped as JSON with non-ASCII kept) and return its path."""
    path = directory / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_bytes(content.encode("utf-8"))
    else:
        path.write_bytes(json.dumps(content, ensure_ascii=False, indent=2).encode("utf-8"))
    return path


def admit(
    directory: Path, content: dict[str, Any] | str | bytes, name: str = "case.json"
) -> Case | RejectedFixture:
    """Write a fixture and load it the way the runner does (built-in tools known)."""
    return load_fixture(write_fixture(directory, content, name), BUILTIN_TOOLS)


def admit_case(directory: Path, content: dict[str, Any] | str | bytes, name: str = "case.json") -> Case:
    """Admit a fixture that must be admitted."""
    result = admit(directory, content, name)
    assert isinstance(result, Case), [(p.field, p.message) for p in getattr(result, "problems", [])]
    return result


def reject(
    directory: Path, content: dict[str, Any] | str | bytes, name: str = "case.json"
) -> RejectedFixture:
    """Admit a fixture that must be rejected."""
    result = admit(directory, content, name)
    assert isinstance(result, RejectedFixture), f"fixture was admitted: {content!r}"
    return result


def problems_at(rejected: RejectedFixture, pointer: str) -> list[FixtureProblem]:
    """The problems of a rejection reported at exactly `pointer`."""
    return [p for p in rejected.problems if p.field.pointer == pointer]


def only_problem_at(rejected: RejectedFixture, pointer: str) -> FixtureProblem:
    """The single problem at `pointer` (fails with every problem listed otherwise)."""
    found = problems_at(rejected, pointer)
    listed = [(p.field.pointer, p.message) for p in rejected.problems]
    assert len(found) == 1, f"expected one problem at {pointer!r}, got {listed}"
    return found[0]


def line_col(text: str, fragment: str, occurrence: int = 1) -> tuple[int, int]:
    """1-based (line, column in code points) of the `occurrence`-th `fragment` in `text`.

    Written independently of the package so tests do not check the scanner against itself.
    """
    index = -1
    for _ in range(occurrence):
        index = text.index(fragment, index + 1)
    before = text[:index]
    line = before.count("\n") + 1
    col = len(before) - (before.rfind("\n") + 1) + 1
    return line, col


def position(problem: FixtureProblem) -> tuple[int | None, int | None]:
    """(line, col) of a problem."""
    return problem.field.line, problem.field.col


def tools_step(*calls: dict[str, Any], tokens: tuple[int, int] = (10, 5)) -> dict[str, Any]:
    """A scripted step asking for `calls`, with the token counts the provider reports."""
    return {
        "response": {
            "type": "tool_calls",
            "tool_calls": list(calls),
            "input_tokens": tokens[0],
            "output_tokens": tokens[1],
        }
    }


def text_step(content: str, tokens: tuple[int, int] = (10, 5)) -> dict[str, Any]:
    """A scripted text answer, with the token counts the provider reports."""
    return {
        "response": {
            "type": "text",
            "content": content,
            "input_tokens": tokens[0],
            "output_tokens": tokens[1],
        }
    }
