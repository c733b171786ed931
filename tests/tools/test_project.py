"""`zeroclaw_eval.tools.project`: the project's tools, run like the built-in ones."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from zeroclaw_eval.errors import ConfigError
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS
from zeroclaw_eval.tools.project import ProjectTool, toolset
from zeroclaw_eval.tools.tool import ToolOutcome

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def invoke(tool: ProjectTool, arguments: dict[str, Any]) -> ToolOutcome:
    return asyncio.run(tool.as_tool().invoke(arguments, None))


def test_a_plain_function_runs_in_a_worker_thread_with_the_arguments_as_keywords() -> None:
    seen: list[str] = []

    def weather(city: str) -> str:
        seen.append(threading.current_thread().name)
        return f"sunny in {city}"

    assert invoke(ProjectTool("get_weather", "Weather.", weather, SCHEMA), {"city": "Paris"}) == ToolOutcome(
        "sunny in Paris", True
    )
    assert seen == ["zeroclaw-run"]


def test_an_async_function_is_awaited_on_the_event_loop() -> None:
    async def weather(city: str) -> str:
        return f"rain in {city}"

    tool = ProjectTool("get_weather", "Weather.", weather, SCHEMA)
    assert not tool.as_tool().blocking
    assert invoke(tool, {"city": "Rome"}) == ToolOutcome("rain in Rome", True)


@pytest.mark.parametrize(
    ("returned", "outcome"),
    [
        (ToolOutcome("no such city", False), ToolOutcome("no such city", False)),
        ({"temp_c": 22, "sky": "clear"}, ToolOutcome('{"temp_c":22,"sky":"clear"}', True)),
        (22, ToolOutcome("22", True)),
        ({1, 2}, ToolOutcome("{1, 2}", True)),  # not JSON data: its text
    ],
)
def test_what_a_function_returns_becomes_the_outcome(returned: Any, outcome: ToolOutcome) -> None:
    assert invoke(ProjectTool("t", "T.", lambda **arguments: returned), {}) == outcome


def test_a_function_that_raises_is_a_failed_outcome_naming_the_tool() -> None:
    def weather(city: str) -> str:
        raise KeyError(city)

    outcome = invoke(ProjectTool("get_weather", "Weather.", weather, SCHEMA), {"city": "Atlantis"})
    assert outcome == ToolOutcome("get_weather raised KeyError: 'Atlantis'", False)
    wrong = invoke(ProjectTool("get_weather", "Weather.", weather, SCHEMA), {"town": "Rome"})
    assert not wrong.success
    assert "unexpected keyword argument 'town'" in wrong.content


class _Abort(BaseException):
    """An exception class of a library's own that is no `Exception`."""


@pytest.mark.parametrize(
    ("raised", "words"),
    [(SystemExit(2), "SystemExit: 2"), (_Abort("quota spent"), "_Abort: quota spent"), (_Abort(), "_Abort")],
)
def test_a_function_raising_what_is_no_exception_is_a_failed_outcome_too(
    raised: BaseException, words: str
) -> None:
    # Not an error of the agent that called it: the model is told, as for any tool failure.
    def weather(city: str) -> str:
        raise raised

    for function in (weather, _awaited(weather)):
        outcome = invoke(ProjectTool("get_weather", "Weather.", function, SCHEMA), {"city": "Oslo"})
        assert outcome == ToolOutcome(f"get_weather raised {words}", False)


def test_pytests_own_outcomes_raised_by_a_tool_go_on_as_they_are() -> None:
    def weather(city: str) -> str:
        pytest.skip("no weather service here")

    with pytest.raises(pytest.skip.Exception):
        invoke(ProjectTool("get_weather", "Weather.", weather, SCHEMA), {"city": "Oslo"})


def _awaited(function: Any) -> Any:
    async def run(**arguments: Any) -> Any:
        return function(**arguments)

    return run


def test_the_spec_is_what_the_model_is_offered() -> None:
    spec = ProjectTool("get_weather", "Weather by city.", str, SCHEMA).as_tool().spec
    assert (spec.name, spec.description, spec.parameters) == ("get_weather", "Weather by city.", SCHEMA)


def test_the_toolset_is_the_built_in_tools_then_the_projects() -> None:
    tools = toolset([ProjectTool("get_weather", "Weather.", str)])
    assert list(tools) == [*BUILTIN_TOOLS, "get_weather"]


@pytest.mark.parametrize(
    ("tools", "words"),
    [
        ([ProjectTool("file_read", "Mine.", str)], "'file_read' is already the name of a built-in tool"),
        (
            [ProjectTool("a", "A.", str), ProjectTool("a", "B.", str)],
            "'a' is already the name of a tool of the project",
        ),
        ([ProjectTool("", "Nameless.", str)], "a tool whose name is ''; a name is a non-empty string"),
        ([ProjectTool(7, "Numbered.", str)], "a tool whose name is 7; a name is a non-empty string"),  # type: ignore[arg-type]
        (["get_weather"], "returned str; each tool must be a ProjectTool"),
    ],
)
def test_a_toolset_that_cannot_be_is_a_configuration_error(tools: list[Any], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        toolset(tools)
