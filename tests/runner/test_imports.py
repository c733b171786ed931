"""`runner.imports`: the callable a setting names, imported from the project's folder; a
refusal names the setting and its file, the module's file or the folder searched, and
the close names there are."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.builders import echo_fixture, write_fixture
from tests.support.invoke import Runner
from zeroclaw_eval.config.load import load_config
from zeroclaw_eval.errors import AgentLoadError, ConfigError, ExitCode
from zeroclaw_eval.runner.imports import load_callable
from zeroclaw_eval.runner.project import run_options

AGENT = "def make_agent(context):\n    raise AssertionError('never called here')\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project folder holding my_agent.py (with make_agent) and a package pkg.agents;
    what a test imports from it is forgotten afterwards, so each test imports afresh."""
    (tmp_path / "my_agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "agents.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "needs_missing.py").write_text("import zc_no_such_dependency\n", encoding="utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        del sys.modules[name]


def _refusal(project: Path, toml: str) -> str:
    (project / "zeroclaw.toml").write_text(toml, encoding="utf-8")
    with pytest.raises((AgentLoadError, ConfigError)) as caught:
        run_options(load_config(project / "zeroclaw.toml"))
    return str(caught.value)


@pytest.mark.parametrize("setting", ["agent", "tools"])
def test_a_misspelt_factory_names_the_setting_its_file_the_module_and_the_close_name(
    project: Path, setting: str
) -> None:
    message = _refusal(project, f'[eval]\n{setting} = "my_agent:make_agnet"\n')
    assert message == (
        f"{project / 'zeroclaw.toml'}: [eval] {setting}: module 'my_agent' ({project / 'my_agent.py'})"
        " has no attribute 'make_agnet'; did you mean make_agent?"
    )


def test_a_pyproject_names_its_own_table(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.zeroclaw.eval]\nagent = "my_agent:make_agnet"\n', "utf-8")
    with pytest.raises(AgentLoadError) as caught:
        run_options(load_config(project / "pyproject.toml"))
    assert str(caught.value).startswith(f"{project / 'pyproject.toml'}: [tool.zeroclaw.eval] agent: module")


def test_a_module_not_found_names_the_folder_it_was_looked_up_from(project: Path) -> None:
    message = _refusal(project, '[eval]\nagent = "my_agnet:make_agent"\n')
    assert message == (
        f"{project / 'zeroclaw.toml'}: [eval] agent: cannot import module 'my_agnet': no module"
        f" 'my_agnet' in {project} (the configuration's folder) nor among the installed packages;"
        " did you mean my_agent?"
    )


def test_a_module_missing_from_its_package_names_the_package_folder(project: Path) -> None:
    message = _refusal(project, '[eval]\nagent = "pkg.agent:make_agent"\n')
    assert message.endswith(
        f"[eval] agent: cannot import module 'pkg.agent': package 'pkg' ({project / 'pkg'})"
        " has no module 'agent'; did you mean agents?"
    )


def test_a_module_is_no_package(project: Path) -> None:
    message = _refusal(project, '[eval]\nagent = "my_agent.sub:make_agent"\n')
    assert message.endswith(
        f"cannot import module 'my_agent.sub': 'my_agent' ({project / 'my_agent.py'}) is a module,"
        " not a package, so it holds no module 'sub'"
    )


def test_a_module_whose_own_import_fails_says_that_import_and_where_the_module_is(project: Path) -> None:
    # The module was found: what is missing is what it imports, not a misspelt name.
    message = _refusal(project, '[eval]\nagent = "needs_missing:make"\n')
    assert message.endswith(
        f"[eval] agent: cannot import module 'needs_missing' ({project / 'needs_missing.py'}):"
        " ModuleNotFoundError: No module named 'zc_no_such_dependency'"
    )


def test_a_nested_attribute_names_what_it_was_looked_up_on(project: Path) -> None:
    message = _refusal(project, '[eval]\nagent = "my_agent:make_agent.maker"\n')
    assert message.endswith("[eval] agent: my_agent:make_agent (function) has no attribute 'maker'")


def test_no_suggestion_when_nothing_is_close(project: Path) -> None:
    message = _refusal(project, '[eval]\nagent = "my_agent:zzz"\n')
    assert message.endswith("has no attribute 'zzz'")


def test_what_is_not_callable_says_what_it_is(project: Path) -> None:
    (project / "holder.py").write_text("FACTORY = 3\n", encoding="utf-8")
    message = _refusal(project, '[eval]\nagent = "holder:FACTORY"\n')
    assert message.endswith(
        "[eval] agent: 'holder:FACTORY' is int, not a callable; name a function or a class"
    )


def test_without_a_configuration_file_the_setting_alone_is_named(project: Path) -> None:
    with pytest.raises(AgentLoadError, match=r"^\[eval\] agent: module 'my_agent'"):
        load_callable("my_agent:make_agnet", "[eval] agent", project, AgentLoadError)


@pytest.mark.parametrize("command", ["run", "list", "mutate"])
def test_the_command_line_exits_two_with_the_message(cli: Runner, project: Path, command: str) -> None:
    write_fixture(project / "evals" / "regression", "a.json", echo_fixture({"tools_used": ["echo"]}))
    (project / "zeroclaw.toml").write_text('[eval]\ntools = "my_agent:make_agnet"\n', encoding="utf-8")
    result = cli("eval", command, cwd=project)
    assert result.code == ExitCode.USAGE_ERROR, result.stdout
    assert result.stderr == (
        f"Error: {project / 'zeroclaw.toml'}: [eval] tools: module 'my_agent' ({project / 'my_agent.py'})"
        " has no attribute 'make_agnet'; did you mean make_agent?\n"
    )
