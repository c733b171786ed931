"""`zeroclaw_eval.tools.doubles`: a fixture's scripted answers stand in for a tool's code."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from zeroclaw_eval.cases.model import ToolDouble
from zeroclaw_eval.tools.doubles import answers, with_doubles
from zeroclaw_eval.tools.project import ProjectTool, toolset
from zeroclaw_eval.tools.tool import ToolOutcome

DOUBLES = [
    ToolDouble(when={"city": "Paris"}, result="sunny, 22 C"),
    ToolDouble(when={"city": "Rome", "units": {"temp": "C"}}, result="rain, 18 C"),
    ToolDouble(result="unknown city", success=False),
]


def never_called(**arguments: Any) -> str:
    raise AssertionError("the real tool ran")


TOOLS = with_doubles(
    toolset([ProjectTool("get_weather", "Weather.", never_called)]), {"get_weather": DOUBLES}
)


def call(arguments: dict[str, Any]) -> ToolOutcome:
    return asyncio.run(TOOLS["get_weather"].invoke(arguments, None))


@pytest.mark.parametrize(
    ("arguments", "outcome"),
    [
        ({"city": "Paris"}, ToolOutcome("sunny, 22 C", True)),
        ({"city": "Paris", "units": "C"}, ToolOutcome("sunny, 22 C", True)),  # a subset of the arguments
        ({"city": "Rome", "units": {"temp": "C"}}, ToolOutcome("rain, 18 C", True)),
        ({"city": "Rome"}, ToolOutcome("unknown city", False)),  # the last double takes the rest
        ({}, ToolOutcome("unknown city", False)),
    ],
)
def test_the_first_double_whose_when_the_arguments_hold_answers(
    arguments: dict[str, Any], outcome: ToolOutcome
) -> None:
    assert call(arguments) == outcome


@pytest.mark.parametrize(
    ("when", "arguments", "answered"),
    [
        ({"n": 1}, {"n": 1.0}, True),  # numbers compare by value
        ({"n": 1}, {"n": True}, False),  # true is not 1
        ({"n": None}, {}, False),  # a key must be there
        ({"n": None}, {"n": None}, True),
        ({}, {"anything": 1}, True),
    ],
)
def test_when_is_matched_as_json(when: dict[str, Any], arguments: dict[str, Any], answered: bool) -> None:
    assert answers(ToolDouble(when=when, result="x"), arguments) is answered


def test_a_call_no_double_matches_is_a_failed_dispatch_that_says_so() -> None:
    only_paris = with_doubles(toolset([]), {"echo": [ToolDouble(when={"message": "Paris"}, result="P")]})
    outcome = asyncio.run(only_paris["echo"].invoke({"message": "Rome"}, None))
    assert outcome == ToolOutcome(
        'no double of echo matched the arguments {"message":"Rome"} (the doubles want: {"message":"Paris"})',
        False,
    )


def test_a_doubled_tool_keeps_its_spec_and_the_others_are_untouched() -> None:
    plain = toolset([ProjectTool("get_weather", "Weather.", never_called)])
    assert TOOLS["get_weather"].spec == plain["get_weather"].spec
    assert TOOLS["echo"] is plain["echo"]


def test_a_double_with_times_answers_that_many_calls_then_the_next_one_answers() -> None:
    retried = [
        ToolDouble(when={"order": "A-1"}, result="URLError: timed out", success=False, times=2),
        ToolDouble(when={"order": "A-1"}, result="refunded"),
    ]
    tools = with_doubles(toolset([]), {"echo": retried})
    outcomes = [asyncio.run(tools["echo"].invoke({"order": "A-1"}, None)) for _ in range(4)]
    assert outcomes == [
        ToolOutcome("URLError: timed out", False),
        ToolOutcome("URLError: timed out", False),
        ToolOutcome("refunded", True),
        ToolOutcome("refunded", True),  # the last double, with no times, answers every call after
    ]


def test_doubles_used_up_say_so_and_each_case_counts_afresh() -> None:
    once = {"echo": [ToolDouble(when={"order": "A-1"}, result="refunded", times=1)]}
    tools = with_doubles(toolset([]), once)
    assert asyncio.run(tools["echo"].invoke({"order": "A-1"}, None)) == ToolOutcome("refunded", True)
    again = asyncio.run(tools["echo"].invoke({"order": "A-1"}, None))
    assert again == ToolOutcome(
        'echo was called with {"order":"A-1"} more often than its doubles answer such a call'
        " (their times are used up)",
        False,
    )
    # Another case's tools (another call of with_doubles) start with every answer left.
    fresh = with_doubles(toolset([]), once)
    assert asyncio.run(fresh["echo"].invoke({"order": "A-1"}, None)) == ToolOutcome("refunded", True)
