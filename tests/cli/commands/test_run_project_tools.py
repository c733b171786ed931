"""`[eval].tools`: a project's own tools through `zeroclaw eval run`, and the doubles a
fixture scripts in their place; the case passes and fails as scripted."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import scripted_fixture, text_step, tool_call, tools_step, write_fixture
from tests.support.invoke import Runner

TOOLS = """
from zeroclaw_eval import ProjectTool

ZONE = {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def get_time(zone):
    return f"12:00 in {zone}"


async def get_weather(city):
    raise RuntimeError("the tests reach no weather service")


def tools():
    return [
        ProjectTool("get_time", "The time in a zone.", get_time, ZONE),
        ProjectTool("get_weather", "The weather in a city.", get_weather, CITY),
    ]


def broken():
    raise ValueError("no tools today")


def wrong():
    return ["get_time"]


def one():
    return ProjectTool("get_time", "The time in a zone.", get_time, ZONE)


def nothing_returned():
    pass


def half_made():
    yield ProjectTool("get_time", "The time in a zone.", get_time, ZONE)
    raise LookupError("no weather tool")
"""


def weather_case(city: str, expects: dict[str, Any]) -> dict[str, Any]:
    calls = tools_step(
        tool_call("get_weather", {"city": city}, "w1"), tool_call("get_time", {"zone": "CET"}, "t1")
    )
    data = scripted_fixture([("Weather and time, please", [calls, text_step("Done.")])], expects)
    data["tools"] = ["get_time", "get_weather"]
    data["tool_doubles"] = {"get_weather": [{"when": {"city": "Paris"}, "result": "sunny, 22 C"}]}
    return data


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Path:
    """A project whose zeroclaw.toml names its tools module (under a name of this test's own)."""
    module = "zc_tools_" + "".join(c if c.isalnum() else "_" for c in request.node.name)
    (tmp_path / f"{module}.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "zeroclaw.toml").write_text(
        f'[eval]\nsuite_dir = "suite"\ntools = "{module}:tools"\n', encoding="utf-8"
    )
    monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the config's folder is put on it
    return tmp_path


def test_a_project_tool_and_a_double_pass_as_scripted(cli: Runner, project: Path) -> None:
    expects = {
        "tool_results_contain": [
            {"tool": "get_weather", "needle": "sunny, 22 C"},
            {"tool": "get_time", "needle": "12:00 in CET"},
        ],
        "all_tools_succeeded": True,
        "tools_offered": ["get_weather", "get_time"],
    }
    write_fixture(project / "suite", "paris.json", weather_case("Paris", expects))
    result = cli("eval", "run", "--format", "json", "--details", "all", cwd=project)
    assert result.code == 0, result.stdout
    calls = result.json()["cases"][0]["record"]["calls"]
    assert [(c["name"], c["result"], c["success"]) for c in calls] == [
        ("get_weather", "sunny, 22 C", True),
        ("get_time", "12:00 in CET", True),
    ]


def test_a_project_tool_and_a_double_fail_as_scripted(cli: Runner, project: Path) -> None:
    expects = {
        "tool_results_contain": [{"tool": "get_weather", "needle": "rain"}],
        "all_tools_succeeded": True,
    }
    write_fixture(project / "suite", "paris.json", weather_case("Paris", {**expects}))
    write_fixture(project / "suite", "rome.json", weather_case("Rome", {"all_tools_succeeded": True}))
    result = cli("eval", "run", "--format", "json", "--details", "all", cwd=project)
    assert result.code == 1
    cases = {case["name"]: case for case in result.json()["cases"]}
    paris = [g["check_id"] for g in cases["paris.json"]["grades"] if not g["passed"]]
    assert paris == ["tool_results_contain[0]"]
    rome = cases["rome.json"]
    (weather, _time) = rome["record"]["calls"]
    assert weather["success"] is False
    assert weather["result"].startswith('no double of get_weather matched the arguments {"city":"Rome"}')
    assert rome["status"] == "failed"


def test_a_fixture_naming_a_tool_nobody_has_is_rejected_with_a_suggestion(cli: Runner, project: Path) -> None:
    data = weather_case("Paris", {"tools_used": ["get_time"]})
    data["tools"] = ["get_tme", "get_weather"]
    write_fixture(project / "suite", "typo.json", data)
    result = cli("eval", "run", cwd=project)
    assert result.code == 1
    assert "unknown tool 'get_tme'; did you mean get_time?" in result.stdout


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("{module}:broken", "[eval].tools: {module}:broken raised ValueError: no tools today"),
        ("{module}:wrong", "[eval].tools returned str; each tool must be a ProjectTool"),
        ("{module}:nothing", "zeroclaw.toml: [eval] tools: module '{module}' ({project}"),
        ("{module}:nothing", ".py) has no attribute 'nothing'"),
        (
            "{module}:one",
            "[eval].tools: {module}:one returned ProjectTool; it must return a list of ProjectTool"
            " (return [tool] for one)",
        ),
        ("{module}:nothing_returned", "{module}:nothing_returned returned NoneType; it must return a list"),
        (
            "{module}:half_made",
            "[eval].tools: {module}:half_made raised LookupError: no weather tool\nTraceback",
        ),
        ("no_colon", "zeroclaw.toml: [eval] tools = 'no_colon' is not of the form 'module:callable'"),
    ],
)
def test_tools_that_cannot_be_had_are_a_configuration_error(
    cli: Runner, project: Path, spec: str, words: str
) -> None:
    module = next(p.stem for p in project.glob("zc_tools_*.py"))
    (project / "zeroclaw.toml").write_text(
        f'[eval]\ntools = "{spec.format(module=module)}"\n', encoding="utf-8"
    )
    write_fixture(project / "evals" / "regression", "a.json", weather_case("Paris", {"tools_used": ["echo"]}))
    for command in (["eval", "run"], ["eval", "vacuity"]):
        result = cli(*command, cwd=project)
        assert result.code == 2, result.stdout
        assert words.format(module=module, project=project) in result.stderr
