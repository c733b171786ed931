"""`zeroclaw_eval.report.indented_json`: the text of `json.dumps(indent=2)`, faster (floats
in their shortest round-trip spelling, NaN and infinity as null)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from enum import IntEnum
from typing import Any

import pytest

from tests.support.ci_log import HOSTILE, LONE_SURROGATE
from tests.support.reports import every_status_report
from zeroclaw_eval.report.indented_json import dumps, plain


class Level(IntEnum):
    HIGH = 3


@dataclass(frozen=True)
class Inner:
    pointer: str
    line: int | None = None


@dataclass
class Outer:
    name: str
    inner: Inner
    items: list[Inner] = field(default_factory=list)
    extra: Any = None


VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -7,
    10**30,
    1.5,
    -0.0,
    "",
    "plain",
    HOSTILE,
    "a" + LONE_SURROGATE + "b",
    'quote " backslash \\ tab \t newline \n nul \x00 é 東京',
    [],
    {},
    [[], {}, [[]], {"a": {}}],
    {"a": {"b": [1, None, True, "x"]}, "": 2},
    (1, "two", (3,)),
    ["only", "strings", HOSTILE],
    ["mixed", 1, ["nested"], {"k": "v"}],
    {1: "int key", 2.5: "float key", None: "null key", False: "bool key"},
    {"outer": {3: "a non-string key deeper down"}},
    Level.HIGH,
    [Level.HIGH, "after"],
    {"subclass": Level.HIGH},
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_dumps_writes_what_json_dumps_indent_2_writes(value: Any) -> None:
    expected = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    assert dumps(value) == expected


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_dumps_at_a_depth_indents_every_line_after_the_first(value: Any) -> None:
    expected = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    assert dumps(value, "\n    ") == expected.replace("\n", "\n    ")


def test_a_dataclass_is_written_as_asdict_would_make_it() -> None:
    value = Outer("o", Inner("/a", 3), [Inner("/b"), Inner("/c", 1)], {"k": [Inner("/d")]})
    expected = json.dumps(asdict(value), indent=2, ensure_ascii=False, allow_nan=False)
    assert dumps(value) == expected
    assert dumps([value, {"v": value}]) == json.dumps(
        [asdict(value), {"v": asdict(value)}], indent=2, ensure_ascii=False
    )


def test_a_float_is_written_in_its_shortest_round_trip_form() -> None:
    numbers = [1e-05, 1e16, 0.1, 5e-324, 1.7976931348623157e308, -0.0, 2.0]
    text = dumps({"spent": numbers})
    assert "0.00001" in text
    assert json.loads(text) == {"spent": numbers}


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("beside", ["plain", "a" + LONE_SURROGATE])  # the fast path, and the other
def test_a_number_json_cannot_hold_is_written_null_so_the_text_stays_json(number: float, beside: str) -> None:
    text = dumps({"spent": [number, 1.5], "note": beside})
    assert json.loads(text) == {"spent": [None, 1.5], "note": beside}


def test_what_orjson_refuses_is_written_by_the_python_writer_with_the_same_text() -> None:
    # A lone surrogate deep in a dataclass, beside a key that is not a string.
    value = Outer("o" + LONE_SURROGATE, Inner("/a", 3), [Inner("/b")], {1: [Inner("/c", 2)]})
    expected = json.dumps(
        {**asdict(value), "extra": {"1": [asdict(Inner("/c", 2))]}}, indent=2, ensure_ascii=False
    )
    assert dumps(value) == expected
    assert dumps(value, "\n  ") == expected.replace("\n", "\n  ")


def test_a_value_json_cannot_write_is_refused_as_json_dumps_refuses_it() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({"a": object()})


def test_plain_is_asdict_without_sharing_containers() -> None:
    arguments = {"path": ["a", "b"]}
    value = Outer("o", Inner("/a"), [Inner("/b")], arguments)
    made = plain(value)
    assert made == asdict(value)
    assert made["extra"] is not arguments
    assert made["extra"]["path"] is not arguments["path"]
    assert plain((Inner("/t"),)) == (asdict(Inner("/t")),)


def test_a_whole_report_is_written_as_json_dumps_writes_its_dict() -> None:
    from zeroclaw_eval.report.codec import report_to_dict

    shape = report_to_dict(every_status_report())
    assert dumps(shape) == json.dumps(shape, indent=2, ensure_ascii=False, allow_nan=False)


@pytest.mark.parametrize(("levels", "cut"), [(300, False), (400, True), (5_000, True)])
def test_a_value_nested_past_what_the_writers_recurse_through_is_cut_not_a_crash(
    levels: int, cut: bool
) -> None:
    # 300: past orjson's limit, written whole by the Python writer; deeper: past that too.
    from zeroclaw_eval._support.json.depth import TOO_DEEP

    deep: Any = "bottom"
    for _ in range(levels):
        deep = [deep]
    text = dumps(Outer("o", Inner("/a"), extra={"arguments": deep}), "\n  ")
    read = json.loads(text)
    assert read["name"] == "o"
    inner = read["extra"]["arguments"]
    depth = 0
    while isinstance(inner, list):
        inner, depth = inner[0], depth + 1
    assert inner == (TOO_DEEP if cut else "bottom")
    assert (depth < levels) is cut
