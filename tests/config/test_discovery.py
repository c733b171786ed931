"""Where `load_config` looks: from the working directory up to the repository root,
zeroclaw.toml before pyproject.toml in each folder, and `--config` naming one file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.builders import write_fixture
from tests.support.invoke import invoke
from zeroclaw_eval.config.load import LoadedConfig, load_config
from zeroclaw_eval.errors import ConfigError

PYPROJECT = '[project]\nname = "demo"\n\n[tool.zeroclaw.eval]\nsuite_dir = "from-pyproject"\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository root (it holds `.git`) with a folder two levels down in it."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "pkg" / "sub").mkdir(parents=True)
    return root


def test_a_zeroclaw_toml_above_the_working_directory_is_found(repo: Path) -> None:
    path = write_fixture(repo, "zeroclaw.toml", '[eval]\nsuite_dir = "cases"\n')
    loaded = load_config(cwd=repo / "pkg" / "sub")
    assert loaded.source == path
    # Relative paths stay relative to the file's folder, not to where the command ran.
    assert loaded.base_dir == repo
    assert loaded.resolve(loaded.settings.suite_dir) == repo / "cases"


def test_a_pyproject_above_the_working_directory_is_found(repo: Path) -> None:
    path = write_fixture(repo, "pyproject.toml", PYPROJECT)
    loaded = load_config(cwd=repo / "pkg" / "sub")
    assert loaded.source == path
    assert loaded.resolve(loaded.settings.suite_dir) == repo / "from-pyproject"


def test_the_nearest_folder_with_a_config_wins(repo: Path) -> None:
    write_fixture(repo, "zeroclaw.toml", '[eval]\nsuite_dir = "outer"\n')
    inner = write_fixture(repo / "pkg", "pyproject.toml", PYPROJECT)
    assert load_config(cwd=repo / "pkg" / "sub").source == inner


def test_a_pyproject_without_tool_zeroclaw_is_passed_over(repo: Path) -> None:
    # A subproject's own pyproject.toml (for its packaging) does not hide the config above.
    write_fixture(repo / "pkg", "pyproject.toml", '[project]\nname = "inner"\n')
    path = write_fixture(repo, "zeroclaw.toml", '[eval]\nsuite_dir = "cases"\n')
    assert load_config(cwd=repo / "pkg" / "sub").source == path


def test_the_search_stops_at_the_folder_holding_git(tmp_path: Path, repo: Path) -> None:
    # tmp_path is outside the repository: its config belongs to something else.
    write_fixture(tmp_path, "zeroclaw.toml", '[eval]\nsuite_dir = "outside"\n')
    loaded = load_config(cwd=repo / "pkg" / "sub")
    assert loaded.source is None
    assert loaded.settings.suite_dir == "evals/regression"
    assert loaded.base_dir == repo / "pkg" / "sub"


def test_a_git_file_marks_the_root_too(tmp_path: Path) -> None:
    # A worktree or a submodule has a `.git` file, not a folder.
    root = tmp_path / "worktree"
    write_fixture(root, ".git", "gitdir: /elsewhere\n")
    (root / "sub").mkdir()
    write_fixture(tmp_path, "zeroclaw.toml", '[eval]\nsuite_dir = "outside"\n')
    assert load_config(cwd=root / "sub").source is None


def test_the_config_at_the_repository_root_itself_is_read(repo: Path) -> None:
    path = write_fixture(repo, "pyproject.toml", PYPROJECT)
    assert load_config(cwd=repo).source == path


def test_without_git_the_search_goes_on_upwards(tmp_path: Path) -> None:
    path = write_fixture(tmp_path, "zeroclaw.toml", '[eval]\nsuite_dir = "cases"\n')
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert load_config(cwd=tmp_path / "a" / "b").source == path


def test_zeroclaw_toml_wins_over_pyproject_in_the_same_folder(repo: Path) -> None:
    write_fixture(repo, "pyproject.toml", PYPROJECT)
    path = write_fixture(repo, "zeroclaw.toml", '[eval]\nsuite_dir = "cases"\n')
    loaded = load_config(cwd=repo)
    assert loaded.source == path
    assert loaded.settings.suite_dir == "cases"


@pytest.mark.parametrize("text", ["# settings live in pyproject.toml\n", "", "\n  \n"])
def test_a_zeroclaw_toml_without_tables_defers_to_pyproject_beside_it(repo: Path, text: str) -> None:
    write_fixture(repo, "zeroclaw.toml", text)
    path = write_fixture(repo, "pyproject.toml", PYPROJECT)
    loaded = load_config(cwd=repo / "pkg")
    assert loaded.source == path
    assert loaded.settings.suite_dir == "from-pyproject"


def test_an_empty_zeroclaw_toml_alone_ends_the_search_with_the_defaults(repo: Path) -> None:
    write_fixture(repo, "zeroclaw.toml", '[eval]\nsuite_dir = "outer"\n')
    path = write_fixture(repo / "pkg", "zeroclaw.toml", "# this folder is a project of its own\n")
    write_fixture(repo / "pkg", "pyproject.toml", '[project]\nname = "inner"\n')
    loaded = load_config(cwd=repo / "pkg" / "sub")
    assert loaded.source == path
    assert loaded.settings.suite_dir == "evals/regression"
    assert loaded.base_dir == repo / "pkg"


def test_a_zeroclaw_toml_with_a_table_does_not_defer(repo: Path) -> None:
    # A misspelt table is not "no table": it is an error, never pyproject's settings instead.
    write_fixture(repo, "zeroclaw.toml", '[evals]\nsuite_dir = "cases"\n')
    write_fixture(repo, "pyproject.toml", PYPROJECT)
    with pytest.raises(ConfigError, match=r"\[evals\]: unknown table; did you mean \[eval\]\?"):
        load_config(cwd=repo)


def test_a_pyproject_beside_a_zeroclaw_toml_with_tables_is_not_read(repo: Path) -> None:
    write_fixture(repo, "pyproject.toml", "[project\n")
    # Alone, a broken pyproject.toml is reported: it might have held [tool.zeroclaw].
    with pytest.raises(ConfigError, match=r"pyproject.toml:1:\d+: invalid TOML"):
        load_config(cwd=repo)
    path = write_fixture(repo, "zeroclaw.toml", "[eval]\n")
    assert load_config(cwd=repo).source == path


def test_a_relative_working_directory_is_searched_from_its_absolute_form(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_fixture(repo, "zeroclaw.toml", "[eval]\n")
    monkeypatch.chdir(repo / "pkg")
    assert load_config(cwd=Path("sub")).source == path
    assert load_config().source == path


def test_config_names_one_file_and_skips_the_search(repo: Path) -> None:
    write_fixture(repo, "zeroclaw.toml", '[eval]\nsuite_dir = "found"\n')
    named = write_fixture(repo / "pkg", "custom.toml", '[eval]\nsuite_dir = "named"\n')
    loaded = load_config(named, cwd=repo)
    assert (loaded.source, loaded.settings.suite_dir, loaded.base_dir) == (named, "named", repo / "pkg")


def test_config_naming_a_pyproject_without_our_table_is_an_error(repo: Path) -> None:
    path = write_fixture(repo, "pyproject.toml", '[project]\nname = "demo"\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml: no \[tool.zeroclaw\] table"):
        load_config(path)


def test_config_naming_a_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"config file not found: .*missing\.toml"):
        load_config(tmp_path / "missing.toml")


def test_describe_names_the_file_read_or_says_the_defaults_apply(repo: Path) -> None:
    path = write_fixture(repo, "zeroclaw.toml", "[eval]\n")
    assert load_config(cwd=repo).describe() == f"config: read {path}"
    described = LoadedConfig(load_config(cwd=repo).settings, None, repo / "pkg").describe()
    assert described.startswith(
        f"config: none found (no zeroclaw.toml, nor a pyproject.toml with [tool.zeroclaw], in {repo / 'pkg'}"
    )
    assert described.endswith("the defaults apply")


def test_run_verbose_prints_which_config_was_read(repo: Path) -> None:
    path = write_fixture(repo, "zeroclaw.toml", '[eval]\nsuite_dir = "cases"\n')
    (repo / "cases").mkdir()
    assert f"config: read {path}\n" in invoke("eval", "run", "-v", cwd=repo / "pkg" / "sub").stderr
    assert "config:" not in invoke("eval", "run", cwd=repo / "pkg" / "sub").stderr


def test_run_verbose_says_when_no_config_was_found(repo: Path) -> None:
    (repo / "evals" / "regression").mkdir(parents=True)
    result = invoke("eval", "run", "-v", cwd=repo)
    assert f"config: none found (no zeroclaw.toml, nor a pyproject.toml with [tool.zeroclaw], in {repo}" in (
        result.stderr
    )


def test_an_unreadable_pyproject_above_the_project_is_passed_over_and_said(tmp_path: Path) -> None:
    # A checkout without .git inside a bigger tree: the file above belongs to someone else.
    (tmp_path / "pyproject.toml").write_text("[project\nname = 1\n", encoding="utf-8")
    project = tmp_path / "proj"
    project.mkdir()
    loaded = load_config(cwd=project)
    assert loaded.source is None
    assert f"config: passed over {tmp_path / 'pyproject.toml'}:1:9: invalid TOML" in loaded.describe()


def test_an_unreadable_pyproject_where_the_command_runs_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project\nname = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(cwd=tmp_path)
