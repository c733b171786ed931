"""What a run cost: its model requests' tokens at the prices of the provider that
answered them (`[providers.models.NAME.prices]`, US dollars per million tokens).

Input read from a prompt cache is billed at `cached_input` (the input price where the
table has none), the rest of the input at `input`, all output (reasoning included, as
every wire counts it) at `output`. A case has a cost only in live mode with a priced
provider: a replayed reply's tokens are the script's, and no bill ever followed them.
"""

from __future__ import annotations

from collections.abc import Iterable

from zeroclaw_eval.boundary.record import ModelStep

#: Tokens a price is given for.
PER = 1_000_000


def run_cost(
    steps: Iterable[ModelStep], input: float, output: float, cached_input: float | None = None
) -> float | None:
    """US dollars for `steps`, at `input`, `output` and `cached_input` dollars a million
    tokens; None when a reply said no usage (its cost is unknown, not nothing)."""
    cached_price = input if cached_input is None else cached_input
    total = 0.0
    for step in steps:
        if not step.usage_known:
            return None
        cached = min(step.cached_input_tokens or 0, step.input_tokens)
        total += (step.input_tokens - cached) * input + cached * cached_price + step.output_tokens * output
    return total / PER


def dollars(amount: float) -> str:
    """An amount as every output writes it: `$0.0123` (four decimals: a case often costs
    less than a cent)."""
    return f"${amount:,.4f}"
