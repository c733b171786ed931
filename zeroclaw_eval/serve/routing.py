"""Which fixture a request to `zeroclaw eval serve` belongs to, and its scripted answer."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from zeroclaw_eval.errors import Divergence, UsageError
from zeroclaw_eval.fixtures.admission import load_fixture
from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.run.conversation import entry, message_text, next_step
from zeroclaw_eval.run.provider import ModelResponse


class Router:
    """Routes requests to the served cases; `single` routes every request to the one case."""

    def __init__(self, cases: list[Case], *, single: bool = False) -> None:
        self.cases = cases
        self.single = single
        self._by_name: dict[str, list[Case]] = {}
        for case in cases:
            for name in {case.path.stem, case.trace.model_name}:
                self._by_name.setdefault(name, []).append(case)

    def answer(self, model: str, messages: list[Any]) -> tuple[Case, ModelResponse]:
        """The case a request belongs to and its next scripted step.

        A request names its fixture by `model` (a file stem or model_name), or, when the
        model names none (an agent configured with a real model name), by its first
        user message; where several fixtures share that, the one whose script the whole
        conversation follows.
        """
        if self.single:
            return self.cases[0], _next_step_of(self.cases[0], messages)
        candidates = self._by_name.get(model) or self._by_first_input(messages)
        if not candidates:
            names = ", ".join(sorted(c.path.stem for c in self.cases))
            raise Divergence(
                f"no fixture is named {model!r} or starts with this user message; serving: {names}"
            )
        if len(candidates) == 1:
            return candidates[0], _next_step_of(candidates[0], messages)
        fitting: list[tuple[Case, ModelResponse]] = []
        for case in candidates:
            try:
                fitting.append((case, next_step(case.trace, messages)))
            except Divergence:
                continue
        if not fitting:
            raise Divergence(f"the conversation follows none of {', '.join(c.name for c in candidates)}")
        if any(answer != fitting[0][1] for _, answer in fitting[1:]):
            files = ", ".join(c.name for c, _ in fitting)
            raise Divergence(
                f"the conversation fits several fixtures ({files}); name one in the request's model"
            )
        return fitting[0]

    def _by_first_input(self, messages: list[Any]) -> list[Case]:
        first = next(
            (message_text(entry(m, "content")) for m in messages if entry(m, "role") == "user"), None
        )
        return [c for c in self.cases if c.trace.turns and c.trace.turns[0].user_input == first]

    def models(self) -> Iterable[str]:
        """Model names a client may ask for."""
        return sorted({c.path.stem for c in self.cases})


def _next_step_of(case: Case, messages: list[dict[str, Any]]) -> ModelResponse:
    try:
        return next_step(case.trace, messages)
    except Divergence as exc:
        raise Divergence(str(exc), case.name) from None


def load_cases(paths: Iterable[Path]) -> list[Case]:
    """Admit fixtures for serving; a rejected one is a usage error naming its problems.

    Any tool name is admitted: the agent served runs its own tools, which the harness
    does not know (the script only names what the model asks for)."""
    cases = []
    for path in paths:
        loaded = load_fixture(path)
        if not isinstance(loaded, Case):
            raise UsageError(f"{loaded.problems[0].describe(str(path))} (fix the fixture before serving it)")
        cases.append(loaded)
    return cases
