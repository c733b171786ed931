"""Asking judge models for the `judge` checks of a finished run (`grading.judges.check`), in live
mode and under `--rejudge`, and writing what they said into fixtures.

A check names its judge (`judge`, a `[providers.models]` table) or takes
`[eval].judge_provider`, else `[eval].live_provider`. The key of a table is read from its
`api_key_env` when the judge is first asked, so a suite whose judges are never asked
needs no key. Each new verdict joins the check's recorded ones (replacing one of the
same answer, rubric and model), so a replay grades the run the same way from then on.
A judge that cannot be asked fails its check with the reason; it never passes.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from zeroclaw_eval._support.redaction import scrub
from zeroclaw_eval.backends.concurrency import AdaptiveLimit
from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, Provider, ToolChoice, ToolSpec
from zeroclaw_eval.boundary.record import ModelStep, RunRecord
from zeroclaw_eval.cases.model import Expects, JudgeVerdict
from zeroclaw_eval.cases.verdicts import add_verdicts, with_verdict
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
from zeroclaw_eval.errors import EvalError, UsageError
from zeroclaw_eval.grading.judges.check import ask
from zeroclaw_eval.report.cost import run_cost


@dataclass(frozen=True)
class Judges:
    """The judge models a run may ask: every provider table, and the default one."""

    default: str
    providers: Mapping[str, ProviderSettings]
    #: Ask again even where a verdict of this answer and rubric is recorded (`--rejudge`).
    again: bool = False
    #: The run's adaptive limits on open requests (`RunOptions.limits`), a judge's by
    #: `judge TABLE`: judges of many cases share their provider's quota too.
    limits: dict[str, AdaptiveLimit] = field(default_factory=dict, compare=False)

    def options(self, name: str | None) -> LiveOptions:
        """The provider table `name` (None: the default) with its key; `EvalError` for a
        table not defined or a key not set."""
        name = name or self.default
        provider = self.providers.get(name)
        if provider is None:
            defined = ", ".join(sorted(self.providers)) or "none"
            raise EvalError(f"no [providers.models.{name}] table (defined: {defined})")
        key = os.environ.get(provider.api_key_env, "") if provider.api_key_env else ""
        if provider.api_key_env and not key:
            raise EvalError(f"the judge's key is not set: export {provider.api_key_env}")
        return LiveOptions(provider, key)

    def secrets(self) -> list[str]:
        """The keys of every judge table that has one set: scrubbed from what a judge says,
        and from the reports and fixtures of the run."""
        names = {provider.api_key_env for provider in self.providers.values() if provider.api_key_env}
        return [os.environ[name] for name in sorted(names) if os.environ.get(name)]


def judges_of(
    providers: Mapping[str, ProviderSettings],
    judge: str,
    live: str,
    *,
    again: bool,
    limits: dict[str, AdaptiveLimit] | None = None,
) -> Judges:
    """The run's judges (`judge`: `[eval].judge_provider`, `live`: `[eval].live_provider`);
    `UsageError` when `--rejudge` is asked with no judge model configured."""
    default = judge or live
    if again and default not in providers:
        raise UsageError(
            "--rejudge asks a judge model, and none is configured: set [eval].judge_provider to a"
            " [providers.models.NAME] table (an OpenAI-compatible or Anthropic endpoint)"
        )
    return Judges(default, providers, again, {} if limits is None else limits)


class _Metered:
    """A judge's provider whose replies are counted, for what judging cost: the judge's
    tokens are its own, never the agent's."""

    def __init__(self, inner: Provider) -> None:
        self._inner = inner
        self.steps: list[ModelStep] = []

    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        reply = await self._inner.complete(messages, tools, choice)
        self.steps.append(ModelStep.of(0, reply))
        return reply


@dataclass
class Judged:
    """What asking the judges gave a run: its expectations with the new verdicts, the new
    verdicts, why a judge could not be asked, and what the asking cost (None: no judge
    asked was priced)."""

    expects: Expects
    #: The new verdicts, by judge check: one per question (a dimension each, or one).
    verdicts: dict[int, list[JudgeVerdict]]
    unasked: dict[int, str]
    cost_usd: float | None = None


async def judged(expects: Expects, record: RunRecord, judges: Judges) -> Judged:
    """`expects` with a verdict of what each judge check judges of `record` (its final
    response, or its conversation) for each that needs one (every check, with
    `judges.again`); the new verdicts, and why a judge could not be asked."""
    # Imported here: only a run with judges pays for httpx.
    from zeroclaw_eval.backends.live import live_provider, provider_limit
    from zeroclaw_eval.cases.questions import questions
    from zeroclaw_eval.grading.judges.check import judged_text, recorded

    new: dict[int, list[JudgeVerdict]] = {}
    failed: dict[int, str] = {}
    costs: list[float] = []
    checks = list(expects.judge)
    for index, check in enumerate(checks):
        response = judged_text(check, record)
        for question in questions(index, check):
            if not judges.again and recorded(check, response, question) is not None:
                continue
            metered: _Metered | None = None
            try:
                options = judges.options(check.judge)
                limit = provider_limit(judges.limits, options.provider)  # the run's, for that provider
                async with live_provider(options, limit=limit) as provider:
                    metered = _Metered(provider)
                    verdict = await ask(metered, options.provider.model, question, response)
            except EvalError as exc:
                failed[index] = scrub(str(exc), judges.secrets())  # the check fails, every dimension
                break
            finally:  # a reply that was no verdict was still billed
                prices = options.provider.prices if metered is not None else None
                if metered is not None and prices is not None:
                    spent = run_cost(metered.steps, prices.input, prices.output, prices.cached_input)
                    costs.append(spent if spent is not None else math.inf)  # unknown: no sum holds
            # A judge may quote its own key back (a reply of the model or a proxy's error).
            verdict = verdict.model_copy(update={"reason": scrub(verdict.reason, judges.secrets())})
            new.setdefault(index, []).append(verdict)
            check = check.model_copy(update={"verdicts": with_verdict(check.verdicts, verdict)})
        checks[index] = check
    cost = sum(costs) if costs and math.isfinite(sum(costs)) else None
    return Judged(expects.model_copy(update={"judge": checks}), new, failed, cost)


def rewrite_fixture(path: Path, text: str, verdicts: Mapping[int, list[JudgeVerdict]]) -> None:
    """`--rejudge`: the fixture at `path` (whose text is `text`) written again with the new
    verdicts, in the form `zeroclaw eval new` writes (two-space JSON)."""
    from zeroclaw_eval._support.files import write_atomic
    from zeroclaw_eval._support.json.text import loads_strict, pretty_json

    data = loads_strict(text)
    add_verdicts(data, verdicts)
    write_atomic(path, (pretty_json(data) + "\n").encode("utf-8"))
