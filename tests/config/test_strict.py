"""Every table and key of the config is known: a misspelt or misplaced one is an error
naming the file and suggesting the fix, never a silent fall back to the defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.builders import write_fixture
from tests.support.invoke import invoke
from zeroclaw_eval.config.load import load_config
from zeroclaw_eval.errors import ConfigError


def found_error(folder: Path, name: str, text: str | bytes) -> tuple[Path, str]:
    """The file written and the error `load_config` raises finding it from `folder`."""
    (folder / ".git").mkdir(exist_ok=True)
    path = write_fixture(folder, name, text)
    with pytest.raises(ConfigError) as caught:
        load_config(cwd=folder)
    return path, str(caught.value)


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "pyproject.toml",
            '[tool.zeroclaw.evals]\nsuite_dir = "x"\n',
            "[tool.zeroclaw.evals]: unknown table; did you mean [tool.zeroclaw.eval]?",
        ),
        (
            "pyproject.toml",
            '[tool.zeroclaw.provider.models.x]\nbase_url = "u"\nmodel = "m"\n',
            "[tool.zeroclaw.provider]: unknown table; did you mean [tool.zeroclaw.providers]?",
        ),
        (
            "pyproject.toml",
            '[tool.zeroclaw]\nsuite_dir = "x"\n',
            "[tool.zeroclaw] suite_dir: unknown setting; it belongs in [tool.zeroclaw.eval]",
        ),
        (
            "pyproject.toml",
            "[tool.zeroclaw.eval]\ntimeout = 5\n",
            "[tool.zeroclaw.eval] timeout: unknown setting; did you mean case_timeout_secs?",
        ),
        ("zeroclaw.toml", '[evals]\nsuite_dir = "x"\n', "[evals]: unknown table; did you mean [eval]?"),
        (
            "zeroclaw.toml",
            '[provider.models.x]\nbase_url = "u"\nmodel = "m"\n',
            "[provider]: unknown table; did you mean [providers]?",
        ),
        ("zeroclaw.toml", 'suite_dir = "x"\n', "suite_dir: unknown setting; it belongs in [eval]"),
        (
            "zeroclaw.toml",
            "[eval]\ntimeout = 5\n",
            "[eval] timeout: unknown setting; did you mean case_timeout_secs?",
        ),
        (
            "zeroclaw.toml",
            '[providers]\nbase_url = "u"\n',
            "[providers] base_url: unknown setting; it belongs in [providers.models.NAME]",
        ),
        (
            "zeroclaw.toml",
            '[providers.default]\nname = "x"\n',
            "[providers.default]: unknown table; the tables here are [providers.models]",
        ),
        (
            "zeroclaw.toml",
            "[colours]\n",
            "[colours]: unknown table; the tables here are [eval] and [providers]",
        ),
        (
            "zeroclaw.toml",
            "[eval]\nparallelism = 4\n",
            "[eval] parallelism: unknown setting; the settings are suite_dir, mode, agent,",
        ),
    ],
)
def test_an_unknown_table_or_key_is_an_error_with_a_suggestion(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    path, message = found_error(tmp_path, name, text)
    assert f"{path}: {expected}" in message


def test_every_unknown_key_of_a_table_is_reported_at_once(tmp_path: Path) -> None:
    _, message = found_error(tmp_path, "zeroclaw.toml", "[evals]\n[provider]\n")
    assert message.splitlines() == [
        f"{tmp_path / 'zeroclaw.toml'}: [evals]: unknown table; did you mean [eval]?",
        f"{tmp_path / 'zeroclaw.toml'}: [provider]: unknown table; did you mean [providers]?",
    ]


def test_a_tool_zeroclaw_that_is_not_a_table_is_an_error(tmp_path: Path) -> None:
    _, message = found_error(tmp_path, "pyproject.toml", '[tool]\nzeroclaw = "yes"\n')
    assert message == f"{tmp_path / 'pyproject.toml'}: [tool.zeroclaw] must be a table"


def test_a_bare_tool_zeroclaw_table_is_our_config_with_the_defaults(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    path = write_fixture(tmp_path, "pyproject.toml", "[tool.zeroclaw]\n")
    loaded = load_config(cwd=tmp_path)
    assert loaded.source == path
    assert loaded.settings.suite_dir == "evals/regression"


def test_other_tools_tables_in_pyproject_are_not_ours_to_check(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_fixture(
        tmp_path,
        "pyproject.toml",
        '[tool.ruff]\nline-length = 100\n\n[tool.zeroclaw.eval]\nmode = "replay"\n',
    )
    assert load_config(cwd=tmp_path).settings.mode == "replay"


def test_a_configuration_file_over_its_bound_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zeroclaw_eval.config import load

    monkeypatch.setattr(load, "MAX_CONFIG_BYTES", 1000)
    path, message = found_error(tmp_path, "zeroclaw.toml", "[eval]\n" + "# padding\n" * 200)
    assert message.startswith(
        f"{path}: the file is 2,007 bytes, over the 1,000-byte limit for a configuration file"
    )


@pytest.mark.parametrize("nested", ["[" * 5_000 + "]" * 5_000, "{ a = " * 3_000 + "1" + " }" * 3_000])
def test_toml_nested_deeper_than_the_parser_recurses_is_invalid_toml(tmp_path: Path, nested: str) -> None:
    path, message = found_error(tmp_path, "zeroclaw.toml", f"[eval]\nsuite_dir = {nested}\n")
    assert (
        message == f"{path}: invalid TOML: arrays or inline tables are nested too deep to parse; flatten them"
    )


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[eval\n", 1),
        ('[eval]\nsuite_dir = "x"\nmode = \n', 3),
        ('[eval]\nsuite_dir = "a"\nsuite_dir = "b"\n', 3),
    ],
)
def test_invalid_toml_is_reported_at_its_path_line_and_column(tmp_path: Path, text: str, line: int) -> None:
    path, message = found_error(tmp_path, "zeroclaw.toml", text)
    assert message.startswith(f"{path}:{line}:")
    assert ": invalid TOML: " in message
    assert "(at line" not in message  # the position is said once, in front


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("zeroclaw.toml", "[eval]\nmode = 3\n"),
        ("zeroclaw.toml", "eval = 3\n"),
        ("zeroclaw.toml", "[providers.models.p]\nmodel = 'm'\n"),
        ("zeroclaw.toml", "[providers]\nmodels = 3\n"),
        ("zeroclaw.toml", "[eval]\nsuite_dri = 'x'\n"),
        ("pyproject.toml", "[tool.zeroclaw.eval]\ncase_timeout_secs = 0\n"),
        ("pyproject.toml", "[tool.zeroclaw.providers.models.p]\nbase_url = 'u'\n"),
        ("zeroclaw.toml", b"[eval]\nmode = '\xff'\n"),
    ],
)
def test_every_config_error_names_the_file(tmp_path: Path, name: str, text: str | bytes) -> None:
    path, message = found_error(tmp_path, name, text)
    assert all(line.startswith(f"{path}") for line in message.splitlines()), message


def test_run_names_the_file_found_above_and_exits_two(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_fixture(tmp_path, "pyproject.toml", '[tool.zeroclaw.evals]\nsuite_dir = "x"\n')
    (tmp_path / "sub").mkdir()
    result = invoke("eval", "run", cwd=tmp_path / "sub")
    assert result.code == 2
    assert result.stderr == (
        f"Error: {tmp_path / 'pyproject.toml'}: [tool.zeroclaw.evals]: unknown table;"
        " did you mean [tool.zeroclaw.eval]?\n"
    )
