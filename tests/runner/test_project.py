"""`runner.project`: a run's settings as the project's configuration and the command line
give them, built once; the tools its fixtures may name; live mode's options (or what to
set for them)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.support.builders import PROVIDER_CONFIG, write_fixture
from zeroclaw_eval.agent.loop import reference_agent
from zeroclaw_eval.backends.command import AgentCommand
from zeroclaw_eval.config.load import load_config
from zeroclaw_eval.errors import AgentLoadError, ConfigError, UsageError
from zeroclaw_eval.runner.project import fixture_tools, is_builtin_tool, live_options, run_options
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS

TOOLS = """
from zeroclaw_eval import ProjectTool

def eval_tools():
    return [ProjectTool("get_weather", "The weather of a city.", lambda city: "sunny")]
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "project_tools_mod.py").write_text(TOOLS, encoding="utf-8")
    write_fixture(
        tmp_path,
        "zeroclaw.toml",
        '[eval]\ntools = "project_tools_mod:eval_tools"\ncase_timeout_secs = 7.5\n'
        "max_tool_iterations = 3\nmax_fixture_bytes = 4096\n",
    )
    monkeypatch.delitem(sys.modules, "project_tools_mod", raising=False)
    return tmp_path


def test_run_options_carry_the_configured_agent_tools_and_limits(project: Path) -> None:
    options = run_options(load_config(project / "zeroclaw.toml"), jobs=2, keyword="echo")
    assert options.agent_factory is reference_agent
    assert options.agent_cmd is None
    assert (options.case_timeout_secs, options.max_tool_iterations, options.max_fixture_bytes) == (
        7.5,
        3,
        4096,
    )
    assert [tool.name for tool in options.tools] == ["get_weather"]
    assert "get_weather" in options.toolset
    assert (options.mode, options.live, options.jobs, options.keyword) == ("replay", None, 2, "echo")


def test_an_agent_command_on_the_command_line_stands_in_for_the_configured_agent(project: Path) -> None:
    options = run_options(load_config(project / "zeroclaw.toml"), agent_cmd=f"{sys.executable} -V")
    assert isinstance(options.agent_cmd, AgentCommand)
    assert options.agent_cmd.argv == (sys.executable, "-V")
    assert options.nameable_tools is None


def test_live_mode_with_an_agent_command_is_refused_before_any_provider_is_asked_for(project: Path) -> None:
    # No provider is configured: the agent command's refusal comes first.
    with pytest.raises(UsageError, match="--agent-cmd runs in replay only"):
        run_options(load_config(project / "zeroclaw.toml"), agent_cmd=f"{sys.executable} -V", live=True)


def test_the_tools_fixtures_may_name_follow_the_one_rule(project: Path) -> None:
    loaded = load_config(project / "zeroclaw.toml")
    assert fixture_tools(loaded) == frozenset([*BUILTIN_TOOLS, "get_weather"])
    assert fixture_tools(loaded) == run_options(loaded).nameable_tools
    assert fixture_tools(loaded, agent_cmd="node agent.mjs") is None


def test_fixture_tools_never_imports_the_agent(project: Path) -> None:
    # Checking fixtures must not depend on an agent module that does not import.
    (project / "zeroclaw.toml").write_text(
        '[eval]\ntools = "project_tools_mod:eval_tools"\nagent = "no_such_module:make_agent"\n',
        encoding="utf-8",
    )
    loaded = load_config(project / "zeroclaw.toml")
    assert "get_weather" in (fixture_tools(loaded) or ())
    with pytest.raises(AgentLoadError, match="cannot import module 'no_such_module'"):
        run_options(loaded)


@pytest.mark.parametrize(("name", "builtin"), [("echo", True), ("file_write", True), ("get_weather", False)])
def test_is_builtin_tool(name: str, builtin: bool) -> None:
    assert is_builtin_tool(name) is builtin


def test_live_options_carry_the_provider_its_key_and_the_allowlist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCAL_LLM_KEY", "sk-local-1")
    loaded = load_config(write_fixture(tmp_path, "zeroclaw.toml", PROVIDER_CONFIG))
    options = live_options(loaded)
    assert options.provider == loaded.providers["local"]
    assert options.api_key == "sk-local-1"
    assert options.allowed_tools == frozenset({"file_read"})


def test_an_empty_live_provider_says_how_to_turn_live_mode_on(tmp_path: Path) -> None:
    loaded = load_config(write_fixture(tmp_path, "zeroclaw.toml", '[eval]\nsuite_dir = "x"\n'))
    with pytest.raises(UsageError) as caught:
        live_options(loaded)
    message = str(caught.value)
    assert "[eval].live_provider is empty, so live mode is off" in message
    assert "[providers.models.NAME]" in message
    assert "api_key_env" in message


def test_a_live_provider_without_its_table_lists_the_defined_ones(tmp_path: Path) -> None:
    loaded = load_config(
        write_fixture(
            tmp_path,
            "zeroclaw.toml",
            PROVIDER_CONFIG.replace('live_provider = "local"', 'live_provider = "lokal"'),
        )
    )
    with pytest.raises(UsageError) as caught:
        live_options(loaded)
    assert "no [providers.models.lokal] table (defined: local, other)" in str(caught.value)


def test_an_unset_key_variable_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOCAL_LLM_KEY", raising=False)
    loaded = load_config(write_fixture(tmp_path, "zeroclaw.toml", PROVIDER_CONFIG))
    with pytest.raises(UsageError, match="the environment variable LOCAL_LLM_KEY is not set"):
        live_options(loaded)


def test_an_allowlisted_tool_that_does_not_exist_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Checked against the run's tool set, where it is built: the settings of the run.
    monkeypatch.setenv("LOCAL_LLM_KEY", "k")
    text = PROVIDER_CONFIG.replace('live_allowed_tools = ["file_read"]', 'live_allowed_tools = ["shell"]')
    with pytest.raises(UsageError, match="live_allowed_tools names unknown tools: shell"):
        run_options(load_config(write_fixture(tmp_path, "zeroclaw.toml", text)), live=True)


DUPLICATE_TOOLS = """
from zeroclaw_eval import ProjectTool

def eval_tools():
    return [ProjectTool("echo", "Mine.", str)]
"""


def test_the_projects_tools_are_checked_before_its_agent_is_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "dup_tools_mod.py").write_text(DUPLICATE_TOOLS, encoding="utf-8")
    write_fixture(
        tmp_path,
        "zeroclaw.toml",
        '[eval]\ntools = "dup_tools_mod:eval_tools"\nagent = "no_such_module:make"\n',
    )
    monkeypatch.delitem(sys.modules, "dup_tools_mod", raising=False)
    with pytest.raises(ConfigError, match="'echo' is already the name of a built-in tool"):
        run_options(load_config(tmp_path / "zeroclaw.toml"))


def test_an_unknown_allowlisted_tool_is_said_before_a_missing_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LOCAL_LLM_KEY", raising=False)
    text = PROVIDER_CONFIG.replace('live_allowed_tools = ["file_read"]', 'live_allowed_tools = ["shell"]')
    with pytest.raises(UsageError, match="live_allowed_tools names unknown tools: shell"):
        run_options(load_config(write_fixture(tmp_path, "zeroclaw.toml", text)), live=True)


@pytest.mark.parametrize("blank", ["", "  "])
def test_an_agent_command_given_empty_is_refused_by_every_command(project: Path, blank: str) -> None:
    loaded = load_config(project / "zeroclaw.toml")
    for asks in (
        lambda: run_options(loaded, agent_cmd=blank),
        lambda: fixture_tools(loaded, agent_cmd=blank),
    ):
        with pytest.raises(UsageError, match="--agent-cmd is empty"):
            asks()


SHARED = '''
"""An agent whose tool list is the one its production code uses."""
import json, os
from zeroclaw_eval import ProjectTool
from zeroclaw_eval.agent.loop import reference_agent

def lookup_order(order_id: str) -> str:
    """The status of an order."""
    return f"order {order_id}: shipped"

PRODUCTION_TOOLS = [lookup_order]

def tools():
    return [ProjectTool.from_function(function) for function in PRODUCTION_TOOLS]

def make_agent(context):
    with open(os.environ["OFFERED_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps([spec.name for spec in context.tools.specs()]) + "\\n")
    return reference_agent(context)
'''


@pytest.mark.parametrize(
    ("setting", "offered"), [("", ["lookup_order"]), ("always", ["echo", "lookup_order"])]
)
def test_the_agent_is_offered_its_production_tools_and_echo_only_where_named(
    tmp_path: Path, setting: str, offered: list[str]
) -> None:
    from tests.support.builders import text_step, tool_call, tools_step
    from tests.support.invoke import run_cli

    (tmp_path / "shared_agent.py").write_text(SHARED, encoding="utf-8")
    extra = f'builtin_tools = "{setting}"\n' if setting else ""
    config = '[eval]\nsuite_dir = "cases"\nagent = "shared_agent:make_agent"\ntools = "shared_agent:tools"\n'
    write_fixture(tmp_path, "zeroclaw.toml", config + extra)
    steps = [tools_step(tool_call("lookup_order", {"order_id": "42"}, "c1")), text_step("Shipped.")]
    order = {
        "model_name": "order",
        "tools": ["lookup_order"],
        "turns": [{"user_input": "Where is order 42?", "steps": steps}],
        "expects": {"tool_results_contain": [{"tool": "lookup_order", "needle": "shipped"}]},
    }
    # An upstream-style case: calls echo without listing it, so it names echo.
    echo_steps = [tools_step(tool_call("echo", {"message": "hi"}, "e1")), text_step("hi")]
    echoing = {**order, "model_name": "echo", "turns": [{"user_input": "Echo hi", "steps": echo_steps}]}
    echoing["expects"] = {"tool_results_contain": [{"tool": "echo", "needle": "hi"}]}
    write_fixture(tmp_path / "cases", "a_order.json", order)
    write_fixture(tmp_path / "cases", "b_echo.json", echoing)
    log = tmp_path / "offered.jsonl"
    result = run_cli("eval", "run", "--jobs", "1", cwd=tmp_path, env={"OFFERED_LOG": str(log)})
    assert result.code == 0, result.stdout + result.stderr
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert lines == [offered, ["echo", "lookup_order"]]
