"""`zeroclaw_eval.config.settings`: a live provider's key that no HTTP header can carry
(a pasted newline, a space, a control character) is refused before any request, by a
message that names the variable and never shows the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import PASSING
from tests.support.builders import write_fixture
from tests.support.invoke import invoke
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings, api_key_problem
from zeroclaw_eval.errors import ConfigError

SECRET = "sk-zeroclaw_user-0123456789"
PROVIDER = ProviderSettings(base_url="https://api.example.com/v1", model="m", api_key_env="MAIN_API_KEY")


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        (SECRET + "\n", "ends with whitespace (a newline)"),
        (SECRET + "\r\n", "ends with whitespace (a newline)"),
        (SECRET + "\r", "ends with whitespace (a carriage return)"),
        (" " + SECRET, "starts with whitespace (a space)"),
        ("sk-zeroclaw_user 0123456789", "holds a space at character 17 of 27"),
        ("sk-zeroclaw_user\t0123456789", "holds a tab at character 17 of 27"),
        ("sk-zeroclaw_user\x000123456789", "holds the control character U+0000 at character 17 of 27"),
        ("sk-zeroclaw_user\u00e90123456789", "holds the non-ASCII character U+00E9 at character 17 of 27"),
    ],
    ids=["newline", "crlf", "cr", "leading-space", "space", "tab", "nul", "non-ascii"],
)
def test_a_key_no_header_can_carry_is_refused_without_showing_it(key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as refused:
        LiveOptions(PROVIDER, key)
    message = str(refused.value)
    assert problem in message
    assert "$MAIN_API_KEY (api_key_env of the live provider)" in message
    assert "export MAIN_API_KEY=" in message, "the message says how to fix it"
    assert "0123456789" not in message
    assert "zeroclaw_user" not in message


def test_usable_keys_and_no_key_are_accepted() -> None:
    assert api_key_problem(SECRET) is None
    assert api_key_problem("sk-zeroclaw_user/+=\"'\\0123456789") is None  # printable ASCII
    assert api_key_problem("") is None  # a local server that needs no key
    assert LiveOptions(PROVIDER, SECRET).api_key == SECRET


def test_a_key_given_in_code_is_named_as_the_live_providers_key() -> None:
    provider = PROVIDER.model_copy(update={"api_key_env": ""})
    with pytest.raises(ConfigError, match="the API key in the live provider's key ends with whitespace"):
        LiveOptions(provider, SECRET + "\n")


def test_a_live_run_refuses_a_key_pasted_with_its_newline_before_any_request(tmp_path: Path) -> None:
    write_fixture(tmp_path / "evals" / "regression", "echo_hello.json", PASSING)
    (tmp_path / "zeroclaw.toml").write_text(
        '[eval]\nlive_provider = "main"\n\n[providers.models.main]\n'
        'base_url = "http://127.0.0.1:9/v1"\nmodel = "m"\napi_key_env = "MAIN_API_KEY"\n',
        encoding="utf-8",
    )
    result = invoke("eval", "run", "--mode", "live", cwd=tmp_path, env={"MAIN_API_KEY": SECRET + "\n"})
    assert result.code == 2
    assert "$MAIN_API_KEY" in result.stderr
    assert "ends with whitespace (a newline)" in result.stderr
    assert "Traceback" not in result.stderr
    assert "0123456789" not in result.stdout + result.stderr
