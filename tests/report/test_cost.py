"""What a live run cost (`report.cost`): tokens at the priced provider's prices, every
run of a repeated case counted, in every output; nothing for replay or an unpriced
provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.builders import PASSING as PASSING_REPLAY, write_fixture
from tests.support.chat_model import chat_model
from tests.support.invoke import Runner
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
from zeroclaw_eval.runner.judging import judges_of

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
    with chat_model(lambda _: ("hi", USAGE)) as url:
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


def _priced_project(folder: Path, url: str) -> None:
    expects = {"response_contains": ["hi"]}
    write_fixture(
        folder / "suite",
        "hi.json",
        {"model_name": "hi", "turns": [{"user_input": "Say hi"}], "expects": expects},
    )
    (folder / "zeroclaw.toml").write_text(
        '[eval]\nmode = "live"\nlive_provider = "main"\nsuite_dir = "suite"\n'
        f'[providers.models.main]\nbase_url = "{url}"\nmodel = "m"\napi_key_env = "COST_KEY"\n'
        "[providers.models.main.prices]\ninput = 2.5\noutput = 10.0\n",
        encoding="utf-8",
    )


def _usage(times: int) -> dict[str, int]:
    return {"prompt_tokens": 1_000_000 * times, "completion_tokens": 100_000 * times}


def test_a_cost_grown_past_max_cost_increase_fails_the_gate_and_says_by_how_much(
    cli: Runner, tmp_path: Path
) -> None:
    env = {"COST_KEY": "sk-test"}
    with chat_model(lambda _: ("hi", _usage(1))) as url:
        _priced_project(tmp_path, url)
        assert cli("eval", "run", "--report", "json=base.json", cwd=tmp_path, env=env).code == 0
    with chat_model(lambda _: ("hi", _usage(2))) as url:  # the same answer at twice the tokens
        _priced_project(tmp_path, url)
        bounded = ("--baseline", "base.json", "--max-cost-increase")
        over = cli("eval", "run", *bounded, "50", cwd=tmp_path, env=env)
        assert over.code == 1, over.stdout + over.stderr
        assert "cost $7.0000, against $3.5000 at the baseline (the cases both runs have)" in over.stdout
        assert "FAILED: cost +100% against the baseline, above --max-cost-increase 50%" in over.stdout
        assert cli("eval", "run", *bounded, "150", cwd=tmp_path, env=env).code == 0
        # The same bound spelt as one more thing to fail on, beside the gate's mode.
        spelt = ("--baseline", "base.json", "--fail-on", "new-failures", "--fail-on")
        assert cli("eval", "run", *spelt, "cost-regression=50", cwd=tmp_path, env=env).code == 1
        assert cli("eval", "run", *spelt, "cost-regression=150%", cwd=tmp_path, env=env).code == 0


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (("cost-regression=lots",), "cost-regression takes a percentage"),
        (("cost-regression=-5",), "'cost-regression=-5': cost-regression takes a percentage, 0 or more"),
        (("cost-regression=nan",), "cost-regression takes a percentage, 0 or more"),
        (("any", "new-failures"), "give one of any, new-failures, significant-regression"),
        (
            ("sometimes",),
            "'sometimes' is none of any, new-failures, significant-regression, cost-regression=PCT",
        ),
    ],
)
def test_a_fail_on_that_says_nothing_usable_is_a_usage_error(
    cli: Runner, tmp_path: Path, given: tuple[str, ...], said: str
) -> None:
    write_fixture(tmp_path / "suite", "hi.json", {**PASSING_REPLAY})
    assert cli("eval", "run", "--suite", "suite", "--report", "json=base.json", cwd=tmp_path).code == 0
    args = [arg for value in given for arg in ("--fail-on", value)]
    result = cli("eval", "run", "--suite", "suite", "--baseline", "base.json", *args, cwd=tmp_path)
    assert result.code == 2
    assert said in result.stderr
    both = ("--fail-on", "cost-regression=10", "--max-cost-increase", "20")
    twice = cli("eval", "run", "--suite", "suite", "--baseline", "base.json", *both, cwd=tmp_path)
    assert twice.code == 2
    assert "say two bounds: give one" in twice.stderr


def test_max_cost_increase_fails_closed_without_a_cost_and_needs_a_baseline(
    cli: Runner, tmp_path: Path
) -> None:
    write_fixture(tmp_path / "suite", "hi.json", {**PASSING_REPLAY})
    assert cli("eval", "run", "--suite", "suite", "--report", "json=base.json", cwd=tmp_path).code == 0
    bounded = ("--baseline", "base.json", "--max-cost-increase", "10")
    replayed = cli("eval", "run", "--suite", "suite", *bounded, cwd=tmp_path)
    assert replayed.code == 1  # a replay has no cost: the bound cannot be checked, so it fails
    assert "--max-cost-increase 10%: this run has no cost" in replayed.stdout
    alone = cli("eval", "run", "--suite", "suite", "--max-cost-increase", "10", cwd=tmp_path)
    assert alone.code == 2
    assert "--max-cost-increase bounds the cost's growth since a baseline" in alone.stderr


def test_the_judges_cost_is_their_own_apart_from_the_agents(tmp_path: Path) -> None:
    # One loopback model answers the agent ("hi", 1M/100k tokens) and its judge (a verdict,
    # 10,000 tokens in and 1,000 out) at the same prices.
    def answer(request: dict[str, object]) -> tuple[str, dict[str, int]]:
        if "BEGIN TEXT" in json.dumps(request):
            return '{"verdict": "yes", "reason": "it greets"}', {
                "prompt_tokens": 10_000,
                "completion_tokens": 1_000,
            }
        return "hi", {"prompt_tokens": 1_000_000, "completion_tokens": 100_000}

    fixture = {
        "model_name": "hi",
        "turns": [{"user_input": "Say hi"}],
        "expects": {"judge": [{"rubric": "Does it greet?"}]},
    }
    write_fixture(tmp_path / "suite", "hi.json", fixture)
    with chat_model(answer) as url:
        settings = ProviderSettings(base_url=url, model="m", prices=TokenPrices(input=2.5, output=10.0))
        options = RunOptions(
            mode="live",
            live=LiveOptions(settings, "sk-test"),
            judges=judges_of({"main": settings}, "main", "main", again=False),
        )
        report = run_suite(tmp_path / "suite", options)
    (case,) = report.cases
    assert case.passed, case.grades
    assert case.cost_usd == pytest.approx(2.5 + 1.0)  # the agent's request alone
    assert case.judge_cost_usd == pytest.approx(0.025 + 0.01)  # the judge's, apart
    assert ", cost $3.5000, judges $0.0350" in get_reporter("table")(report)
    assert "Judges' cost: $0.0350 (apart from the agent's)" in step_summary(report)
    assert report_to_dict(report)["judge_cost_usd"] == pytest.approx(0.035)
    assert "judges' cost $0.0350" in get_reporter("html")(report)
    assert '<property name="zeroclaw.judge_cost_usd" value="0.035000"' in get_reporter("junit")(report)
    assert "| judges' cost (USD) | | $0.0350 | |" in pull_request_comment(None, report)


def test_a_reply_without_usage_has_no_cost_and_fails_the_bound(cli: Runner, tmp_path: Path) -> None:
    env = {"COST_KEY": "sk-test"}
    with chat_model(lambda _: ("hi", _usage(1))) as url:
        _priced_project(tmp_path, url)
        assert cli("eval", "run", "--report", "json=base.json", cwd=tmp_path, env=env).code == 0
    with chat_model(lambda _: ("hi", None)) as url:  # the provider stopped saying its usage
        _priced_project(tmp_path, url)
        result = cli(
            "eval", "run", "--baseline", "base.json", "--max-cost-increase", "10", cwd=tmp_path, env=env
        )
    assert result.code == 1  # 0 tokens counted is no cost of $0
    assert "--max-cost-increase 10%: this run has no cost" in result.stdout


def test_a_part_of_the_suite_is_bounded_against_the_same_cases_of_the_baseline(
    cli: Runner, tmp_path: Path
) -> None:
    # Four cases at 1x in the baseline; one of them alone (-k) at 3x must fail a 50 % bound,
    # though it costs less than the whole baseline did.
    env = {"COST_KEY": "sk-test"}
    with chat_model(lambda _: ("hi", _usage(1))) as url:
        _priced_project(tmp_path, url)
        for name in ("b", "c", "d"):
            write_fixture(
                tmp_path / "suite", f"{name}.json", json.loads((tmp_path / "suite" / "hi.json").read_text())
            )
        assert cli("eval", "run", "--report", "json=base.json", cwd=tmp_path, env=env).code == 0
    with chat_model(lambda _: ("hi", _usage(3))) as url:
        _priced_project(tmp_path, url)
        args = ("-k", "b", "--baseline", "base.json", "--max-cost-increase", "50")
        result = cli("eval", "run", *args, cwd=tmp_path, env=env)
    assert result.code == 1, result.stdout
    assert "cost $10.5000, against $3.5000 at the baseline (the cases both runs have)" in result.stdout
