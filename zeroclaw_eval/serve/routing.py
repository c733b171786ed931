"""Which fixture a request to `zeroclaw eval serve` belongs to, and its scripted answer."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zeroclaw_eval.agent.conversation import (
    InputMatch,
    Position,
    Script,
    input_match_of,
    input_matches,
    script_of,
    step_at,
)
from zeroclaw_eval.boundary.provider import ModelResponse
from zeroclaw_eval.boundary.sent import entry, message_text
from zeroclaw_eval.cases.admission import load_fixture
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.cases.limits import DEFAULT_MAX_FIXTURE_BYTES
from zeroclaw_eval.errors import Divergence, UsageError


@dataclass(frozen=True)
class Served:
    """Where a request stands: its case, the position it asks for, and that step."""

    case: Case
    position: Position
    step: ModelResponse


class Router:
    """Routes requests to the served cases; `single` routes every request to the one case.
    `match` is how a user message carries its input in a case whose fixture does not say
    (`[eval].user_input_match`); `per_turn`, that each request carries one turn only
    (`[eval].history = "turn"`)."""

    def __init__(
        self, cases: list[Case], *, single: bool = False, match: InputMatch = "exact", per_turn: bool = False
    ) -> None:
        self.cases = cases
        self.single = single
        self._per_turn = per_turn
        self._match = {case.name: input_match_of(case.trace, match) for case in cases}
        self._by_name: dict[str, list[Case]] = {}
        # Made once: serve answers many requests of each case.
        self._scripts: dict[str, Script] = {case.name: script_of(case.trace) for case in cases}
        for case in cases:
            for name in {case.path.stem, case.trace.model_name}:
                self._by_name.setdefault(name, []).append(case)

    def answer(self, model: str, messages: list[Any]) -> Served:
        """The case a request belongs to, the position it asks for, and that step.

        A request names its fixture by `model` (a file stem or model_name), or, when the
        model names none (an agent configured with a real model name), by its first
        user message (as each fixture's `user_input_match` says); where several fixtures
        share that, the one whose script the whole
        conversation follows.
        """
        if self.single:
            return self._served(self.cases[0], messages)
        candidates = self._by_name.get(model) or self._by_first_input(messages)
        if not candidates:
            names = ", ".join(sorted(c.path.stem for c in self.cases))
            raise Divergence(
                f"no fixture is named {model!r} or starts with this user message; serving: {names}"
            )
        if len(candidates) == 1:
            return self._served(candidates[0], messages)
        fitting: list[Served] = []
        for case in candidates:
            try:
                fitting.append(self._served(case, messages))
            except Divergence:
                continue
        if not fitting:
            raise Divergence(f"the conversation follows none of {', '.join(c.name for c in candidates)}")
        if any(served.step != fitting[0].step for served in fitting[1:]):
            files = ", ".join(served.case.name for served in fitting)
            raise Divergence(
                f"the conversation fits several fixtures ({files}); name one in the request's model"
            )
        return fitting[0]

    def named(self, model: str) -> Case | None:
        """The one case `model` names (or the one case served with `single`), if any: what
        a request the endpoint could not read belongs to, for the log."""
        if self.single:
            return self.cases[0]
        named = self._by_name.get(model, [])
        return named[0] if len(named) == 1 else None

    def _by_first_input(self, messages: list[Any]) -> list[Case]:
        first = next(
            (message_text(entry(m, "content")) for m in messages if entry(m, "role") == "user"), None
        )
        return [
            c
            for c in self.cases
            if any(
                input_matches(turn.user_input, first, self._match[c.name])
                for turn in (c.trace.turns if self._per_turn else c.trace.turns[:1])
            )
        ]

    def _served(self, case: Case, messages: list[Any]) -> Served:
        try:
            position, step = step_at(
                case.trace, messages, self._scripts[case.name], self._match[case.name], self._per_turn
            )
        except Divergence as exc:
            raise Divergence(str(exc), case.name, exc.pointer) from None
        return Served(case, position, step)

    def models(self) -> Iterable[str]:
        """Model names a client may ask for."""
        return sorted({c.path.stem for c in self.cases})


def load_cases(paths: Iterable[Path], *, max_bytes: int = DEFAULT_MAX_FIXTURE_BYTES) -> list[Case]:
    """Admit fixtures for serving; a rejected one (one over `max_bytes`, too) is a usage
    error naming its problems.

    Any tool name is admitted: the agent served runs its own tools, which the harness
    does not know (the script only names what the model asks for)."""
    cases = []
    for path in paths:
        loaded = load_fixture(path, max_bytes=max_bytes)
        if not isinstance(loaded, Case):
            raise UsageError(f"{loaded.problems[0].describe(str(path))} (fix the fixture before serving it)")
        cases.append(loaded)
    return cases
