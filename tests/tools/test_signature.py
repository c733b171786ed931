"""`ProjectTool.from_function`: a tool made from the function an agent already has, its
schema read from the signature and its description from the docstring."""

from __future__ import annotations

import asyncio
import functools
import re
from typing import Any, Literal, Optional

import pytest

from zeroclaw_eval import ProjectTool
from zeroclaw_eval.errors import ConfigError


def get_weather(city: str, days: int = 1, units: Literal["C", "F"] = "C", detailed: bool = False) -> str:
    """The weather in a city, for the next days.

    Asks the weather service; a city it does not know is an error.
    """
    return f"{city}: sunny for {days} day(s) in {units}{' (detailed)' if detailed else ''}"


def book(
    rooms: list[int],
    guests: tuple[str, ...],
    notes: dict[str, Any],
    budget: float | None,
    promo: Optional[str] = None,  # noqa: UP045  (the older spelling, as agents write it)
    extra: Any = None,
    untyped=None,  # type: ignore[no-untyped-def]
) -> str:
    return "booked"


def test_the_tool_has_the_functions_name_first_paragraph_and_schema() -> None:
    tool = ProjectTool.from_function(get_weather)
    assert tool.name == "get_weather"
    assert tool.description == "The weather in a city, for the next days."
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "units": {"enum": ["C", "F"]},
            "detailed": {"type": "boolean"},
        },
        "required": ["city"],
    }
    assert tool.function is get_weather


def test_containers_optionals_and_anything() -> None:
    assert ProjectTool.from_function(book).parameters == {
        "type": "object",
        "properties": {
            "rooms": {"type": "array", "items": {"type": "integer"}},
            "guests": {"type": "array", "items": {"type": "string"}},
            "notes": {"type": "object"},
            "budget": {"type": ["number", "null"]},
            "promo": {"type": "string"},
            "extra": {},
            "untyped": {},
        },
        "required": ["rooms", "guests", "notes", "budget"],
    }


def test_what_is_given_wins_over_what_is_read() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string", "minLength": 1}}}
    tool = ProjectTool.from_function(get_weather, name="weather", description="Weather.", parameters=schema)
    assert (tool.name, tool.description, tool.parameters) == ("weather", "Weather.", schema)


def test_the_tool_runs_the_function_through_the_tool_box_which_records_the_call() -> None:
    from zeroclaw_eval.boundary.record import RunRecord
    from zeroclaw_eval.tools.toolbox import ToolBox

    record = RunRecord()
    box = ToolBox({"get_weather": ProjectTool.from_function(get_weather).as_tool()}, record)
    outcome = asyncio.run(box.call("get_weather", {"city": "Paris", "days": 2}, "call_1"))
    assert outcome.content == "Paris: sunny for 2 day(s) in C"
    assert [(call.name, call.arguments, call.success) for call in record.calls] == [
        ("get_weather", {"city": "Paris", "days": 2}, True)
    ]


def _union(value: int | str) -> None: ...


def _positional(value: str, /) -> None: ...


def _star(*values: str) -> None: ...


def _pair(pair: tuple[int, str]) -> None: ...


class _Order:
    pass


def _object(order: _Order) -> None: ...


@pytest.mark.parametrize(
    ("function", "words"),
    [
        (_union, "parameter value: int | str is a union of 2 kinds"),
        (_positional, "parameter value is not one a call's arguments can name"),
        (_star, "parameter values is not one a call's arguments can name"),
        (_pair, "tuple[int, str] is a tuple of fixed kinds"),
        (_object, "has no JSON Schema here"),
    ],
)
def test_a_signature_with_no_one_schema_is_refused_saying_to_give_one(function: Any, words: str) -> None:
    with pytest.raises(ConfigError) as raised:
        ProjectTool.from_function(function)
    assert words in str(raised.value)
    assert "give parameters=" in str(raised.value)


def _named(value: str) -> str:
    return value


class _Desk:
    def __call__(self, city: str) -> str:
        return city


@pytest.mark.parametrize(
    ("function", "words"),
    [
        (42, "not a function"),
        (_Desk(), "it has no name of its own (a callable object?); give name="),
        (lambda city: city, "give name="),
        (int, "its signature or annotations cannot be read"),
    ],
)
def test_what_gives_no_tool_by_itself_is_a_configuration_error(function: Any, words: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(words)):
        ProjectTool.from_function(function)


def test_a_callable_object_and_a_partial_with_a_name_read_what_they_run() -> None:
    assert ProjectTool.from_function(_Desk(), name="desk").parameters["properties"] == {
        "city": {"type": "string"}
    }
    partial = functools.partial(book, [1], ("zeroclaw_user",), {}, None)
    assert ProjectTool.from_function(partial, name="book").parameters == {
        "type": "object",
        "properties": {"promo": {"type": "string"}, "extra": {}, "untyped": {}},
    }


def _measure(length: int | float, unit: str | None) -> str:
    return f"{length} {unit}"


def test_a_number_may_be_either_and_a_required_optional_may_be_null() -> None:
    assert ProjectTool.from_function(_measure).parameters == {
        "type": "object",
        "properties": {"length": {"type": "number"}, "unit": {"type": ["string", "null"]}},
        "required": ["length", "unit"],
    }
