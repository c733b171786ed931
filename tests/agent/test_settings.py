"""`agent.settings`: one settings object for how every case runs, built once: the tool set
made and checked with it, the live allowlist checked against that, the one rule of
which tools a fixture may name."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.builders import admit_case, run_replay, scripted_fixture, text_step, tool_call, tools_step
from zeroclaw_eval import ProjectTool
from zeroclaw_eval.agent.loop import AgentFactory, reference_agent
from zeroclaw_eval.agent.settings import CaseSettings
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
from zeroclaw_eval.errors import ConfigError, UsageError
from zeroclaw_eval.runner import RunOptions
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS

WEATHER = ProjectTool("get_weather", "The weather of a city.", lambda city: f"sunny in {city}")
PROVIDER = ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")


class Command:
    """An agent that runs outside this process (its factory is never asked for here)."""

    def factory(self, case: Case, workspace: Path) -> AgentFactory:
        return reference_agent


def test_the_tool_set_is_built_once_with_the_settings_and_holds_both_kinds() -> None:
    settings = CaseSettings(tools=(WEATHER,))
    assert settings.toolset is settings.toolset
    assert list(settings.toolset) == [*BUILTIN_TOOLS, "get_weather"]


def test_a_project_tool_that_cannot_join_is_refused_when_the_settings_are_made() -> None:
    with pytest.raises(ConfigError, match="'echo' is already the name of a built-in tool"):
        CaseSettings(tools=(ProjectTool("echo", "Mine.", str),))


def test_the_live_allowlist_is_checked_against_the_tool_set() -> None:
    allowed = LiveOptions(PROVIDER, "", frozenset({"get_weather", "file_read"}))
    assert CaseSettings(tools=(WEATHER,), live=allowed).live_allowed == {"get_weather", "file_read"}
    with pytest.raises(UsageError) as refused:
        CaseSettings(live=allowed)  # without the project's tool, one name is unknown
    message = str(refused.value)
    assert "[eval].live_allowed_tools names unknown tools: get_weather;" in message
    assert "the known tools are: echo, file_read, file_write, list_dir" in message


def test_which_tools_a_fixture_may_name_is_one_rule() -> None:
    assert CaseSettings(tools=(WEATHER,)).nameable_tools == frozenset([*BUILTIN_TOOLS, "get_weather"])
    # An agent command runs tools of its own, which the harness does not know.
    assert CaseSettings(agent_cmd=Command()).nameable_tools is None


def test_replay_has_no_live_allowlist() -> None:
    assert CaseSettings().live_allowed is None


def test_run_options_are_these_settings_and_the_runs_own() -> None:
    options = RunOptions(case_timeout_secs=5, jobs=2, tools=(WEATHER,))
    assert isinstance(options, CaseSettings)
    assert "get_weather" in options.toolset
    again = replace(options, jobs=1)
    assert (again.case_timeout_secs, again.jobs, list(again.toolset)) == (5, 1, list(options.toolset))


def test_a_setting_reaches_the_turn_that_reads_it(tmp_path: Path) -> None:
    # Handed down whole: the limit given to the settings is the one a case's turn obeys.
    two_rounds = scripted_fixture(
        [
            (
                "Echo a, then b",
                [
                    tools_step(tool_call("echo", {"message": "a"}, "c1")),
                    tools_step(tool_call("echo", {"message": "b"}, "c2")),
                    text_step("a b"),
                ],
            )
        ],
        {"exact_tool_calls": 2},
    )
    case = admit_case(tmp_path, two_rounds)
    assert run_replay(case).passed
    capped = run_replay(case, max_tool_iterations=1)
    assert capped.error is not None
    assert (
        "iteration cap reached: the model still asked for tools after 1 tool rounds" in capped.error.message
    )
