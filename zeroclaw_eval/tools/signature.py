"""A tool's JSON Schema and description read from the function itself, so that the
function list an agent has in production is the one the gate offers
(`ProjectTool.from_function`).

The schema is an object schema of the function's parameters: `str`, `int`, `float`
(and `int | float`), `bool`, `list[X]` (and tuples and sets of one kind), `dict` (any
object), `Literal` of strings, numbers or booleans, `X | None` (and `Optional[X]`),
unannotated or `Any` (anything). A parameter without a default is required; one of
`X | None` without a default is required and may be null. The description is the first
paragraph of the docstring. Anything else (a dataclass, a union of two kinds, `*args`)
has no one schema a model would fill in the same way: `ConfigError` says so, and the
tool is then made with its `parameters` written out.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from typing import Any

from zeroclaw_eval.errors import ConfigError

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
}


def description_of(function: Callable[..., Any]) -> str:
    """The first paragraph of `function`'s docstring, on one line ("" without one)."""
    doc = inspect.getdoc(function) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


def name_of(function: Any) -> str:
    """The tool name a function gives (its `__name__`); `ConfigError` for something that
    is no function, or has no name (a callable object, a `functools.partial`)."""
    if not callable(function):
        raise ConfigError(f"tool {function!r}: not a function; give the function the agent calls")
    name = getattr(function, "__name__", None)
    if not isinstance(name, str) or not name.isidentifier():
        raise ConfigError(f"tool {function!r}: it has no name of its own (a callable object?); give name=")
    return name


def parameters_of(function: Callable[..., Any]) -> dict[str, Any]:
    """The JSON Schema of `function`'s keyword-callable parameters."""
    name = getattr(function, "__name__", None) or repr(function)
    try:
        # What a callable object or a partial is called with: its signature, and the
        # annotations of what it runs.
        signature = inspect.signature(function)
        target = getattr(function, "func", None) or (
            function if inspect.isroutine(function) else type(function).__call__
        )
        hints = typing.get_type_hints(target)
    except Exception as exc:  # any annotation may raise anything as it is evaluated
        raise ConfigError(
            f"tool {name}: its signature or annotations cannot be read ({type(exc).__name__}: {exc});"
            " give parameters="
        ) from None
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD, parameter.POSITIONAL_ONLY):
            raise ConfigError(
                f"tool {name}: parameter {parameter.name} is not one a call's arguments can name"
                " (a tool is called with keywords); give parameters= or change the function"
            )
        hint = hints.get(parameter.name, Any)
        try:
            properties[parameter.name] = _schema(hint)
        except TypeError as exc:
            raise ConfigError(
                f"tool {name}: parameter {parameter.name}: {exc}; give parameters= (a JSON Schema)"
            ) from None
        if parameter.default is parameter.empty:
            required.append(parameter.name)
            if _nullable(hint) and "type" in properties[parameter.name]:
                # `X | None` without a default: the model must send it, and may send null.
                kind = properties[parameter.name]["type"]
                properties[parameter.name]["type"] = [kind, "null"]
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _nullable(annotation: Any) -> bool:
    """Whether `annotation` allows None (`X | None`, `Optional[X]`)."""
    origin = typing.get_origin(annotation)
    return origin in (typing.Union, types.UnionType) and type(None) in typing.get_args(annotation)


def _schema(annotation: Any) -> dict[str, Any]:
    """The JSON Schema of one annotation; `TypeError` for one with no single schema."""
    if annotation is Any or annotation is inspect.Parameter.empty:
        return {}
    if annotation in _SCALARS:
        return dict(_SCALARS[annotation])
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        kinds = [argument for argument in arguments if argument is not type(None)]
        if len(kinds) == 1:
            return _schema(kinds[0])
        if set(kinds) <= {int, float}:  # `int | float`: a number, as JSON has one kind of it
            return {"type": "number"}
        raise TypeError(f"{annotation} is a union of {len(kinds)} kinds")
    if origin is typing.Literal:
        if all(isinstance(value, (str, int, float, bool)) for value in arguments):
            return {"enum": list(arguments)}
        raise TypeError(f"{annotation} holds values that are no JSON scalars")
    if annotation in (list, tuple, set, frozenset) or origin in (list, set, frozenset):
        return {"type": "array", "items": _schema(arguments[0])} if arguments else {"type": "array"}
    if origin is tuple:
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return {"type": "array", "items": _schema(arguments[0])}
        raise TypeError(f"{annotation} is a tuple of fixed kinds")
    if annotation is dict or origin is dict:
        return {"type": "object"}
    raise TypeError(f"{annotation!r} has no JSON Schema here")
