"""`quick_init`: a frozen dataclass made faster to construct stays what the plain one is."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from zeroclaw_eval._support.frozen import quick_init
from zeroclaw_eval.boundary.provider import ModelResponse, ToolCallRequest
from zeroclaw_eval.boundary.sent import FedBack
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.model import CaseSummary
from zeroclaw_eval.runner.case import CaseRun
from zeroclaw_eval.tools.tool import ToolOutcome


@dataclass(frozen=True)
class Plain:
    name: str
    count: int = 3
    tags: tuple[str, ...] = ()


@quick_init
@dataclass(frozen=True)
class Quick:
    name: str
    count: int = 3
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PlainSlots:
    name: str
    count: int = 3


@quick_init
@dataclass(frozen=True, slots=True)
class QuickSlots:
    name: str
    count: int = 3


def _fields(value: Any) -> tuple[Any, ...]:
    return tuple(getattr(value, f.name) for f in dataclasses.fields(value))


@pytest.mark.parametrize(
    ("plain", "quick"),
    [(Plain, Quick), (PlainSlots, QuickSlots)],
    ids=["dict", "slots"],
)
def test_a_quick_class_is_made_compared_and_kept_as_the_plain_one(plain: type, quick: type) -> None:
    for args, kwargs in [(("a",), {}), (("a", 5), {}), ((), {"name": "b", "count": 0})]:
        made, reference = quick(*args, **kwargs), plain(*args, **kwargs)
        assert _fields(made) == _fields(reference)
        assert repr(made).replace(quick.__name__, plain.__name__) == repr(reference)
        assert made == quick(*args, **kwargs)
        assert hash(made) == hash(quick(*args, **kwargs))
        assert made != quick("other")
        assert pickle.loads(pickle.dumps(made)) == made
        assert dataclasses.replace(made, count=9).count == 9
    with pytest.raises(TypeError):
        quick()  # the required field is still required
    with pytest.raises(TypeError):
        quick("a", 1, 2, 3, 4)


@pytest.mark.parametrize("quick", [Quick, QuickSlots], ids=["dict", "slots"])
def test_a_quick_class_stays_frozen(quick: type) -> None:
    made = quick("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "b"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del made.count
    assert made.name == "a"


def test_a_quick_class_keeps_no_default_shared_by_mistake() -> None:
    # Each instance's fields are its own: the default is the one value given, never a
    # state of another instance.
    first, second = Quick("a"), Quick("b", 1, ("x",))
    assert (first.count, first.tags) == (3, ())
    assert (second.count, second.tags) == (1, ("x",))


def test_the_harness_records_are_quick_and_frozen() -> None:
    # The records a replay makes per request, call and check.
    assert "__setattr__" in Plain.__init__.__code__.co_names
    for cls in (ModelResponse, ToolCallRequest, FedBack, ToolOutcome, GradeResult, CaseSummary, CaseRun):
        # The generated frozen `__init__` stores each field through `object.__setattr__`.
        assert "__setattr__" not in cls.__init__.__code__.co_names, cls
        assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    response = ModelResponse("hi")
    assert response.tool_calls == ()
    assert response.input_tokens == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        response.content = "changed"  # type: ignore[misc]


def test_quick_init_refuses_what_it_would_get_wrong() -> None:
    with pytest.raises(TypeError, match="frozen dataclasses"):

        @quick_init
        @dataclass
        class NotFrozen:
            name: str

    with pytest.raises(TypeError, match="plain defaults"):

        @quick_init
        @dataclass(frozen=True)
        class Factory:
            names: list[str] = field(default_factory=list)

    with pytest.raises(TypeError, match="__post_init__"):

        @quick_init
        @dataclass(frozen=True)
        class Checked:
            name: str

            def __post_init__(self) -> None:
                pass

    with pytest.raises(TypeError, match="plain defaults"):

        @quick_init
        @dataclass(frozen=True, kw_only=True)
        class KeywordOnly:
            name: str
