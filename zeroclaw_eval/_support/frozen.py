"""Frozen dataclasses that cost what a plain one costs to make: `quick_init`.

A frozen dataclass's generated `__init__` stores each field through
`object.__setattr__(self, name, value)` (its own `__setattr__` refuses), a lookup and a
call per field: a three-field record takes twice as long to make as a plain class's, a
seven-field one with slots four times. The harness makes a dozen such records for every
replayed case (each scripted reply and its calls, each tool outcome and result sent
back, each grade), so that is a few per cent of a case. `quick_init` gives the class an
`__init__` of the same signature that stores each field directly (into the instance's
`__dict__`, or through its slot's descriptor), which the class's `__setattr__` does not
see either: the instances are as frozen as before, and compare, hash, print and pickle
as before. (Neither the standard library nor attrs offers this: both go through
`object.__setattr__`.)
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Replace the generated `__init__` of `cls`, a frozen dataclass whose fields are all
    set by `__init__`, with plain default values only (no `default_factory`, no
    `__post_init__`), by one that stores the fields directly (see the module).
    `TypeError` for a class it cannot serve, when the class is defined."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise TypeError(f"quick_init serves frozen dataclasses; {cls.__name__} is not one")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"quick_init cannot call {cls.__name__}.__post_init__")
    namespace: dict[str, Any] = {}
    arguments: list[str] = []
    stores: list[str] = []
    slotted = "__slots__" in cls.__dict__
    if not slotted:
        stores.append("state = self.__dict__")
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        name = field.name
        if not field.init or field.kw_only or field.default_factory is not dataclasses.MISSING:
            raise TypeError(f"quick_init serves fields with plain defaults; {cls.__name__}.{name} is not one")
        if field.default is dataclasses.MISSING:
            arguments.append(name)
        else:
            namespace[f"default_{name}"] = field.default
            arguments.append(f"{name}=default_{name}")
        if slotted:
            namespace[f"set_{name}"] = cls.__dict__[name].__set__
            stores.append(f"set_{name}(self, {name})")
        else:
            stores.append(f"state[{name!r}] = {name}")
    body = "\n    ".join(stores)
    source = f"def __init__(self, {', '.join(arguments)}):\n    {body}\n"
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
