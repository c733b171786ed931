"""What admission says when the data does not fit the fixture models.

pydantic's validation errors become problems at the offending field, in words a fixture
author acts on: an unknown key points at the key and suggests the key it misspells, a
missing key at the object that lacks it, a wrong value says what was expected and what
was found. An explicit `null`, which the models let through as "undeclared", is a
problem too: an author who writes `null` meant something, and it must not pass silently.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from zeroclaw_eval._support.json.pointer import join_pointer
from zeroclaw_eval.cases.location import RawProblem
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.errors import did_you_mean

NULL_MESSAGE = "null is not allowed here; remove the key to leave it undeclared"
# Values that are free JSON (null is a legitimate value there).
_FREE_JSON = frozenset({"arguments", "response_json", "when"})


def null_problems(data: Any) -> Iterator[RawProblem]:
    """Every explicit `null` that stands for a fixture field (not inside free JSON).

    A loop over a stack, not recursion: data under an unknown key may nest as deep as
    the parser allowed."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, dict):
            members: list[tuple[str, Any]] = []
            for key, value in node.items():
                member = join_pointer(pointer, key)
                if value is None:
                    yield member, False, NULL_MESSAGE
                elif key not in _FREE_JSON:
                    members.append((member, value))
            stack.extend(reversed(members))
        elif isinstance(node, list):
            stack.extend(reversed([(join_pointer(pointer, i), item) for i, item in enumerate(node)]))


def validation_problems(
    exc: ValidationError, data: Any, prefix: tuple[str | int, ...], model: type[BaseModel]
) -> Iterator[RawProblem]:
    """Each error pydantic found, as a problem at the field the data has there."""
    for error in exc.errors():
        if error["type"] == "string_unicode":
            continue  # a lone surrogate: `json.scan` reports it, at the string itself
        loc = _data_loc(data, tuple(error["loc"]))
        pointer = join_pointer("", *prefix, *loc)
        kind = error["type"]
        if kind == "extra_forbidden":
            yield pointer, True, _unknown_key_message(str(loc[-1]), _model_at(model, loc[:-1]))
        elif kind == "missing":
            yield pointer, False, _missing_message(str(loc[-1]))
        else:
            yield pointer, False, _value_message(error, at_root=not loc)


def _data_loc(data: Any, loc: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """`loc` without the union-member tags pydantic inserts (such as `'str'`), which
    name no field: keep the tokens that walk the data, and a last missing or extra key."""
    kept: list[str | int] = []
    node = data
    for position, token in enumerate(loc):
        in_dict = isinstance(node, dict) and token in node
        if in_dict or (isinstance(node, list) and isinstance(token, int) and token < len(node)):
            node = node[token]
        elif isinstance(node, dict) and position == len(loc) - 1:
            pass  # a missing key: it names the field even though the data lacks it
        else:
            continue
        kept.append(token)
    return tuple(kept)


def _model_at(model: type[BaseModel], loc: tuple[str | int, ...]) -> type[BaseModel] | None:
    """The model class that validates the object at `loc`, walking field annotations
    (a model's field, a list's item, a dict's value)."""
    current: Any = model
    for token in loc:
        current = _inside(current, token)
        if current is None:
            return None
    found = _model_of(current)
    return found


def _inside(annotation: Any, token: str | int) -> Any:
    """The annotation of what `token` addresses inside a value of `annotation`."""
    model = _model_of(annotation)
    if model is not None:
        info = model.model_fields.get(str(token))
        return None if info is None else info.annotation
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is list and args and isinstance(token, int):
        return args[0]
    if origin is dict and len(args) == 2:
        return args[1]
    if origin is Annotated and args:
        return _inside(args[0], token)
    # An optional or other union: the member that has what `token` addresses.
    return next((inner for arg in args if (inner := _inside(arg, token)) is not None), None)


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """`annotation` as a model class, seeing through `Annotated` and `X | None`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) in (list, dict):
        return None
    members = [arg for arg in get_args(annotation) if arg is not type(None)]
    models = [model for model in map(_model_of, members) if model is not None]
    return models[0] if len(models) == 1 else None


def _unknown_key_message(key: str, model: type[BaseModel] | None) -> str:
    noun = "unknown expectation key" if model in (Expects,) else "unknown key"
    if model is None:
        return f"{noun} {json.dumps(key, ensure_ascii=False)}"
    # A key is spelt as the fixture spells it: `$schema`, not the attribute behind it.
    allowed = [info.alias or name for name, info in model.model_fields.items()]
    close = did_you_mean(key, allowed)
    if close:
        return f"{noun}; did you mean {close}?"
    return f"{noun}; expected one of: {', '.join(allowed)}"


def _missing_message(key: str) -> str:
    if key == "expects":
        return "missing required key 'expects': a case must declare at least one check"
    if key == "turns":
        return "missing required key 'turns': a case needs at least one conversation turn"
    return f"missing required key {key!r}"


_JSON_TYPES = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _value_message(error: Any, *, at_root: bool = False) -> str:
    kind = error["type"]
    if error.get("input", 0) is None and not at_root:
        return NULL_MESSAGE
    found = _json_type(error.get("input"))
    ctx = error.get("ctx") or {}
    expected = {
        "string_type": "a string",
        "int_type": "an integer",
        "bool_type": "true or false",
        "list_type": "an array",
        "dict_type": "an object",
        "model_type": "an object",
        "model_attributes_type": "an object",
    }.get(kind)
    if expected:
        return f"expected {expected}, found {found}"
    if kind == "literal_error":
        return f"expected one of {ctx.get('expected')}, found {json.dumps(error.get('input'))}"
    if kind == "greater_than_equal":
        return f"must be {ctx.get('ge')} or more, found {error.get('input')}"
    if kind == "less_than_equal":
        found_text = str(error.get("input"))
        if len(found_text) > 40:
            found_text = f"a number of {len(found_text)} digits"
        return (
            f"must be at most {ctx.get('le')} (2**53 - 1, the largest integer every JSON reader"
            f" holds exactly), found {found_text}"
        )
    return str(error["msg"])
