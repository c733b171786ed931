"""`zeroclaw_eval.config.load`: `[eval]` and `[providers.models.NAME]`, read strictly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.builders import PROVIDER_CONFIG, write_fixture
from zeroclaw_eval.config.load import load_config
from zeroclaw_eval.config.settings import ProviderSettings
from zeroclaw_eval.errors import ConfigError


def config_error(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return str(caught.value)


def test_zeroclaw_toml_provider_tables_are_read(tmp_path: Path) -> None:
    write_fixture(tmp_path, "zeroclaw.toml", PROVIDER_CONFIG)
    loaded = load_config(cwd=tmp_path)
    assert loaded.source == tmp_path / "zeroclaw.toml"
    assert loaded.settings.live_provider == "local"
    assert loaded.providers["local"] == ProviderSettings(
        base_url="http://127.0.0.1:8765/v1",
        model="gpt-4o-mini",
        api_key_env="LOCAL_LLM_KEY",
        headers={"X-Team": "evals"},
        temperature=0.2,
        max_tokens=512,
        request_timeout_secs=30.5,
        max_retries=5,
    )
    assert sorted(loaded.providers) == ["local", "other"]


def test_omitted_provider_settings_take_their_defaults(tmp_path: Path) -> None:
    loaded = load_config(write_fixture(tmp_path, "zeroclaw.toml", PROVIDER_CONFIG))
    other = loaded.providers["other"]
    assert other.api_key_env == ""
    assert other.headers == {}
    assert other.temperature is None
    assert other.max_tokens is None
    assert other.request_timeout_secs == 60.0
    assert other.max_retries == 3


def test_whole_numbers_are_accepted_for_float_settings(tmp_path: Path) -> None:
    text = '[providers.models.p]\nbase_url = "u"\nmodel = "m"\ntemperature = 0\nrequest_timeout_secs = 30\n'
    provider = load_config(write_fixture(tmp_path, "zeroclaw.toml", text)).providers["p"]
    assert provider.temperature == 0.0
    assert provider.request_timeout_secs == 30.0


def test_providers_without_an_eval_table_are_read_with_default_eval_settings(tmp_path: Path) -> None:
    text = '[providers.models.p]\nbase_url = "u"\nmodel = "m"\n'
    loaded = load_config(write_fixture(tmp_path, "zeroclaw.toml", text))
    assert loaded.providers["p"].model == "m"
    assert loaded.settings.suite_dir == "evals/regression"


def test_no_provider_tables_means_no_providers(tmp_path: Path) -> None:
    loaded = load_config(write_fixture(tmp_path, "zeroclaw.toml", '[eval]\nsuite_dir = "x"\n'))
    assert loaded.providers == {}


def test_pyproject_tool_zeroclaw_provider_tables_are_read(tmp_path: Path) -> None:
    text = """
[project]
name = "someone-else"

[tool.zeroclaw.eval]
live_provider = "hosted"

[tool.zeroclaw.providers.models.hosted]
base_url = "https://api.example.com/v1"
model = "model-x"
api_key_env = "HOSTED_KEY"
max_retries = 0
"""
    write_fixture(tmp_path, "pyproject.toml", text)
    loaded = load_config(cwd=tmp_path)
    assert loaded.source == tmp_path / "pyproject.toml"
    assert loaded.settings.live_provider == "hosted"
    assert loaded.providers["hosted"] == ProviderSettings(
        base_url="https://api.example.com/v1", model="model-x", api_key_env="HOSTED_KEY", max_retries=0
    )


def test_a_pyproject_with_only_provider_tables_is_our_config(tmp_path: Path) -> None:
    text = '[tool.zeroclaw.providers.models.p]\nbase_url = "u"\nmodel = "m"\n'
    write_fixture(tmp_path, "pyproject.toml", text)
    loaded = load_config(cwd=tmp_path)
    assert loaded.source == tmp_path / "pyproject.toml"
    assert loaded.providers["p"].base_url == "u"


def test_an_unknown_provider_setting_is_rejected_with_did_you_mean(tmp_path: Path) -> None:
    path = write_fixture(
        tmp_path, "zeroclaw.toml", '[providers.models.local]\nbase_ur = "u"\nbase_url = "u"\nmodel = "m"\n'
    )
    message = config_error(path)
    assert str(path) in message
    assert "[providers.models.local] base_ur: unknown setting; did you mean base_url?" in message


def test_an_unknown_provider_setting_in_pyproject_names_the_tool_table(tmp_path: Path) -> None:
    text = '[tool.zeroclaw.providers.models.hosted]\nbase_url = "u"\nmodel = "m"\napi_key = "sk-x"\n'
    message = config_error(write_fixture(tmp_path, "pyproject.toml", text))
    assert "[tool.zeroclaw.providers.models.hosted] api_key: unknown setting" in message
    assert "did you mean api_key_env?" in message


def test_a_misspelt_models_table_is_rejected_not_ignored(tmp_path: Path) -> None:
    # [providers.modles.local] must not be skipped silently: a typo never disables a setting.
    text = '[providers.modles.local]\nbase_url = "u"\nmodel = "m"\n'
    message = config_error(write_fixture(tmp_path, "zeroclaw.toml", text))
    assert "modles" in message
    assert "models" in message


def test_missing_base_url_and_model_are_both_reported(tmp_path: Path) -> None:
    message = config_error(
        write_fixture(tmp_path, "zeroclaw.toml", '[providers.models.local]\napi_key_env = "K"\n')
    )
    assert "[providers.models.local] base_url: missing required setting" in message
    assert "[providers.models.local] model: missing required setting" in message


def test_an_empty_base_url_is_rejected(tmp_path: Path) -> None:
    message = config_error(
        write_fixture(tmp_path, "zeroclaw.toml", '[providers.models.local]\nbase_url = ""\nmodel = "m"\n')
    )
    assert "[providers.models.local] base_url:" in message


@pytest.mark.parametrize(
    ("line", "setting"),
    [
        ('max_retries = "3"', "max_retries"),
        ("max_retries = -1", "max_retries"),
        ("max_tokens = 0", "max_tokens"),
        ("max_tokens = 1.5", "max_tokens"),
        ('temperature = "hot"', "temperature"),
        ("temperature = -0.5", "temperature"),
        ("request_timeout_secs = 0", "request_timeout_secs"),
        ('request_timeout_secs = "60"', "request_timeout_secs"),
        ('headers = "X-Team: evals"', "headers"),
        ("headers = { X-Count = 3 }", "headers.X-Count"),
        ("api_key_env = 7", "api_key_env"),
    ],
)
def test_a_provider_setting_of_the_wrong_type_or_range_is_rejected(
    tmp_path: Path, line: str, setting: str
) -> None:
    text = f'[providers.models.local]\nbase_url = "u"\nmodel = "m"\n{line}\n'
    message = config_error(write_fixture(tmp_path, "zeroclaw.toml", text))
    assert f"[providers.models.local] {setting}:" in message


def test_a_base_url_of_the_wrong_type_is_rejected(tmp_path: Path) -> None:
    message = config_error(
        write_fixture(tmp_path, "zeroclaw.toml", '[providers.models.local]\nbase_url = 5\nmodel = "m"\n')
    )
    assert "[providers.models.local] base_url:" in message


@pytest.mark.parametrize(
    ("text", "table"),
    [
        ("providers = 5\n", "[providers] must be a table"),
        ("[providers]\nmodels = 3\n", "[providers.models] must be a table"),
        ('[providers.models]\nlocal = "gpt"\n', "[providers.models.local] must be a table"),
    ],
)
def test_provider_tables_that_are_not_tables_are_rejected(tmp_path: Path, text: str, table: str) -> None:
    assert table in config_error(write_fixture(tmp_path, "zeroclaw.toml", text))


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ("[eval]\ncase_timeout_secs = inf\n", "case_timeout_secs"),
        ("[eval]\ncase_timeout_secs = nan\n", "case_timeout_secs"),
    ],
)
def test_an_infinite_or_nan_timeout_is_rejected(tmp_path: Path, table: str, key: str) -> None:
    # An infinite turn timeout would quietly turn off the guarantee that a turn never hangs.
    assert key in config_error(write_fixture(tmp_path, "zeroclaw.toml", table))


def test_an_infinite_request_timeout_is_rejected(tmp_path: Path) -> None:
    text = (
        '[providers.models.p]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\nrequest_timeout_secs = inf\n'
    )
    assert "request_timeout_secs" in config_error(write_fixture(tmp_path, "zeroclaw.toml", text))
