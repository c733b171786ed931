"""How deep JSON may nest: the one bound that every writer of free JSON (compact text,
every report) keeps far from Python's recursion limit, which admission holds a fixture's
free JSON to, and how a value nested deeper is written anyway."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from typing import Any

#: How many levels of objects and arrays a free JSON value (tool call `arguments`,
#: a `response_json` value, a double's `when`) may nest: deep enough for any real
#: payload, shallow enough that every writer of it (compact JSON, every reporter) stays
#: far from Python's recursion limit.
MAX_DEPTH = 64


def too_deep(value: Any, limit: int = MAX_DEPTH) -> tuple[str | int, ...] | None:
    """The path (keys and indexes) to a container of `value` that opens level
    `limit + 1`, `value` itself being level 1; None when it nests no deeper."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        items: Iterator[tuple[str | int, Any]]
        if isinstance(node, dict):
            items = iter(node.items())
        elif isinstance(node, list):
            items = iter(enumerate(node))
        else:
            continue
        if len(path) >= limit:
            return path
        stack.extend((item, (*path, key)) for key, item in items if isinstance(item, (dict, list)))
    return None


#: What stands in for a value nested deeper than a report writes (see `clamped`).
TOO_DEEP = f"(nested more than {MAX_DEPTH} levels deep: not written)"


def clamped(value: Any, room: int = MAX_DEPTH) -> Any:
    """`value` with whatever lies more than `room` containers down replaced by `TOO_DEEP`
    (a dataclass made a dict of its fields).

    For the writers of reports, which recurse: a live model or an agent command can send
    tool arguments nested hundreds of levels deep (a fixture cannot: admission bounds its
    free JSON at `MAX_DEPTH`), and the report that records them must still be written,
    and read back.
    """
    is_record = not isinstance(value, type) and is_dataclass(value)
    if not is_record and not isinstance(value, (dict, list, tuple)):
        return value
    if room == 0:
        return TOO_DEEP
    if isinstance(value, dict):
        return {key: clamped(item, room - 1) for key, item in value.items()}
    if is_record:
        return {f.name: clamped(getattr(value, f.name), room - 1) for f in fields(value)}
    return [clamped(item, room - 1) for item in value]
