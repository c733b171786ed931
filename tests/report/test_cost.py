"""What a live run cost (`report.cost`): tokens at the priced provider's prices, every
run of a repeated case counted, in every output; nothing for replay or an unpriced
provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.builders import write_fixture
from tests.support.chat_model import chat_model
from zeroclaw_eval.boundary.record import ModelStep
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings, TokenPrices
from zeroclaw_eval.errors import ConfigError
from zeroclaw_eval.report.codec import report_to_dict
from zeroclaw_eval.report.cost import dollars, run_cost
from zeroclaw_eval.report.model import SuiteReport
from zeroclaw_eval.reporters import get_reporter
from zeroclaw_eval.reporters.github import step_summary
from zeroclaw_eval.reporters.pull_request import pull_request_comment
from zeroclaw_eval.runner import RunOptions, run_suite

USAGE = {
    "prompt_tokens": 1_000_000,
    "completion_tokens": 100_000,
    "prompt_tokens_details": {"cached_tokens": 400_000},
}
PRICES = TokenPrices(input=2.5, output=10.0, cached_input=1.25)
#: 600,000 uncached input at $2.50, 400,000 cached at $1.25, 100,000 output at $10.
ONE_RUN = 1.5 + 0.5 + 1.0


def test_cached_input_is_billed_at_its_price_and_the_rest_at_input_and_output() -> None:
    step = ModelStep(0, "hi", [], 1_000_000, 100_000, cached_input_tokens=400_000)
    assert run_cost([step], 2.5, 10.0, 1.25) == pytest.approx(ONE_RUN)
    # Without a cached price, cached input is billed as input; unknown cache, as uncached.
    assert run_cost([step], 2.5, 10.0) == pytest.approx(2.5 + 1.0)
    assert run_cost([ModelStep(0, "hi", [], 1_000_000, 100_000)], 2.5, 10.0, 1.25) == pytest.approx(3.5)
    assert dollars(0.01234) == "$0.0123"


def _run(tmp_path: Path, prices: TokenPrices | None, repeat: int = 1) -> SuiteReport:
    fixture = {
        "model_name": "hi",
        "turns": [{"user_input": "Say hi"}],
        "expects": {"response_contains": ["hi"]},
    }
    write_fixture(tmp_path / "suite", "hi.json", fixture)
    with chat_model(lambda: ("hi", USAGE)) as url:
        settings = ProviderSettings(base_url=url, model="m", prices=prices)
        options = RunOptions(mode="live", live=LiveOptions(settings, "sk-test"), repeat=repeat)
        return run_suite(tmp_path / "suite", options)


def test_a_priced_live_run_says_its_cost_in_every_output(tmp_path: Path) -> None:
    report = _run(tmp_path, PRICES)
    assert report.cases[0].cost_usd == pytest.approx(ONE_RUN)
    assert report.cost_usd() == pytest.approx(ONE_RUN)
    data = report_to_dict(report)
    assert (data["cost_usd"], data["cases"][0]["cost_usd"]) == (
        pytest.approx(ONE_RUN),
        pytest.approx(ONE_RUN),
    )
    assert ", cost $3.0000" in get_reporter("table")(report)
    assert "cost $3.0000" in get_reporter("html")(report)
    assert "Cost: $3.0000" in step_summary(report)
    assert '<property name="zeroclaw.cost_usd" value="3.000000"' in get_reporter("junit")(report)
    # Against a base that cost half as much, the comment says by how much it grew.
    base = _run(tmp_path / "base", TokenPrices(input=1.25, output=5.0, cached_input=0.625))
    assert "| cost (USD) | $1.5000 | $3.0000 | +$1.5000 (+100%) |" in pull_request_comment(base, report)


def test_every_run_of_a_repeated_case_is_paid_for(tmp_path: Path) -> None:
    report = _run(tmp_path, PRICES, repeat=3)
    assert report.cases[0].cost_usd == pytest.approx(3 * ONE_RUN)


def test_an_unpriced_provider_and_a_replay_cost_nothing_said(tmp_path: Path) -> None:
    report = _run(tmp_path, None)
    assert report.cost_usd() is None
    assert "cost" not in get_reporter("table")(report).splitlines()[-1]
    assert report_to_dict(report)["cost_usd"] is None
    replay = run_suite(tmp_path / "suite")
    assert replay.cost_usd() is None


def test_prices_are_read_strictly_from_the_providers_table(tmp_path: Path) -> None:
    from zeroclaw_eval.config.load import load_config

    table = '[providers.models.main]\nbase_url = "https://api.example.com/v1"\nmodel = "m"\n'
    (tmp_path / "zeroclaw.toml").write_text(
        table + "[providers.models.main.prices]\ninput = 2.5\noutput = 10.0\n"
    )
    loaded = load_config(tmp_path / "zeroclaw.toml")
    assert loaded.providers["main"].prices == TokenPrices(input=2.5, output=10.0)
    for bad in (
        "input = -1\noutput = 1\n",
        "input = 1\noutput = 1\ncached = 0.5\n",
        'input = "2.5"\noutput = 1\n',
    ):
        (tmp_path / "zeroclaw.toml").write_text(table + "[providers.models.main.prices]\n" + bad)
        with pytest.raises(ConfigError, match="prices"):
            load_config(tmp_path / "zeroclaw.toml")
