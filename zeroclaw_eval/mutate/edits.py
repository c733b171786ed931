"""The smallest changes a mutant makes to a value: one rule, shared by every operator."""

from __future__ import annotations

from typing import Any


def nudge_text(text: str) -> str:
    """`text` with its last character changed (an empty text becomes "x").

    The last character, because a needle that pins a value down must reach its end: a
    check that only looks at a prefix is exactly the weak check a survivor reveals.
    """
    if not text:
        return "x"
    return text[:-1] + ("y" if text[-1] == "x" else "x")


def nudge_bytes(data: bytes) -> bytes:
    """`data` with its last byte changed (empty data becomes b"x"), as `nudge_text`."""
    if not data:
        return b"x"
    return data[:-1] + (b"y" if data[-1:] == b"x" else b"x")


def nudge_number(value: int | float) -> int | float:
    """A number off by one."""
    return value + 1


def is_number(value: Any) -> bool:
    """A JSON number (a bool is not one, though Python says it is an int)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def leaves(value: Any, pointer: str = "") -> list[tuple[str, Any]]:
    """Every string and number inside a JSON value, with its JSON pointer, in order."""
    if isinstance(value, str) or is_number(value):
        return [(pointer, value)]
    found: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            escaped = str(key).replace("~", "~0").replace("/", "~1")
            found.extend(leaves(item, f"{pointer}/{escaped}"))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(leaves(item, f"{pointer}/{index}"))
    return found


def replaced(value: Any, pointer: str, new: Any) -> Any:
    """A copy of a JSON value with the member at `pointer` replaced by `new` (`pointer`
    as `leaves` spells it; "" is the value itself). Untouched members are shared."""
    if pointer == "":
        return new
    head, separator, rest = pointer[1:].partition("/")
    tail = separator + rest
    if isinstance(value, dict):
        key = head.replace("~1", "/").replace("~0", "~")
        return {k: (replaced(v, tail, new) if k == key else v) for k, v in value.items()}
    index = int(head)
    return [replaced(v, tail, new) if i == index else v for i, v in enumerate(value)]


def without(value: dict[str, Any], key: str) -> dict[str, Any]:
    """A copy of an object without `key`."""
    return {k: v for k, v in value.items() if k != key}
