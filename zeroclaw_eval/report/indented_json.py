"""Indented JSON text, fast: what `json.dumps(value, indent=2, ensure_ascii=False)`
writes, for a value made of dicts, lists, scalars and dataclasses (a dataclass written as
`dataclasses.asdict` would make it a dict, without the copy), except that a float is
spelled in its shortest round-trip form (`0.00001` for `1e-05`: the same number read
back) and a number JSON cannot hold (NaN, infinity) is written `null`, not refused.

The standard library writes indented JSON with its pure-Python encoder (only compact JSON
has a C one): a generator per container and several checks per value, after `asdict`
has deep-copied every record. The JSON report of a 10,000-case suite spent most of its
time there. orjson writes the same indented text in compiled code, dataclasses included;
what it refuses (a lone surrogate, a key that is not a string, an integer beyond 64 bits)
is written here instead: the C string escaping, each container in one join, and
`json.dumps` itself for the unusual, indented to its place.
"""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass
from json.encoder import encode_basestring
from typing import Any

import orjson

from zeroclaw_eval._support.json.depth import clamped

_INFINITY = float("inf")
#: Each dataclass met so far: its field names in declaration order (as `asdict`), each
#: with its key as written.
_FIELDS: dict[type, tuple[tuple[str, str], ...]] = {}


def _float(value: float) -> str:
    if value != value or value in (_INFINITY, -_INFINITY):
        return "null"  # as orjson writes it: a report stays valid JSON
    return float.__repr__(value)


def _fallback(value: Any, newline: str) -> str:
    # json writes NaN and infinity as bare words no JSON reader takes (they go in as None),
    # and knows no dataclass (a record under a key that is not a string).
    text = json.dumps(_finite(plain(value)), indent=2, ensure_ascii=False, allow_nan=False)
    return text.replace("\n", newline)


def _finite(value: Any) -> Any:
    """`value` with each float that is not a finite number made None (only the rare values
    `_fallback` writes are walked)."""
    kind = type(value)
    if kind is float:
        return None if value != value or value in (_INFINITY, -_INFINITY) else value
    if kind is dict:
        return {key: _finite(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_finite(item) for item in value]
    return value


def _field_names(kind: type) -> tuple[tuple[str, str], ...] | None:
    names = _FIELDS.get(kind)
    if names is None and is_dataclass(kind):
        names = _FIELDS[kind] = tuple((f.name, encode_basestring(f.name) + ": ") for f in fields(kind))
    return names


def _item(item: Any, inner: str) -> str:
    # The scalars inline (most values of a report), containers by recursion.
    kind = type(item)
    if kind is str:
        return encode_basestring(item)
    if item is None:
        return "null"
    if item is True:
        return "true"
    if item is False:
        return "false"
    if kind is int:
        return int.__repr__(item)
    if kind is float:
        return _float(item)
    return _written(item, inner)


def dumps(value: Any, newline: str = "\n") -> str:
    """`value` as indented JSON; `newline` is the line break and indentation of the line
    it starts on (`"\\n" + "  " * depth`), so a value nested at any depth can be written
    on its own and spliced into the text around it."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONEncodeError:  # a lone surrogate, a key that is not a string, a big int
        try:
            return _written(value, newline)
        except RecursionError:  # nested past what either writer recurses through
            return _written(clamped(value), newline)
    return text if newline == "\n" else text.replace("\n", newline)


def _written(value: Any, newline: str) -> str:
    """`dumps` without orjson, for what it refuses."""
    kind = type(value)
    inner = newline + "  "
    joiner = "," + inner
    if kind is dict:
        if not value:
            return "{}"
        items = []
        for key, item in value.items():
            if type(key) is not str:  # json's own rules for number, bool and null keys
                return _fallback(value, newline)
            text = encode_basestring(item) if type(item) is str else _item(item, inner)
            items.append(encode_basestring(key) + ": " + text)
        return "{" + inner + joiner.join(items) + newline + "}"
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        try:  # a list of strings (roles, tool names, results) in one C pass
            body = joiner.join(map(encode_basestring, value))
        except TypeError:
            body = joiner.join([_item(item, inner) for item in value])
        return "[" + inner + body + newline + "]"
    names = _field_names(kind)
    if names is not None:
        pairs = []
        for name, key in names:
            item = getattr(value, name)
            pairs.append(key + (encode_basestring(item) if type(item) is str else _item(item, inner)))
        return "{" + inner + joiner.join(pairs) + newline + "}" if pairs else "{}"
    if kind in (str, int, float, bool, type(None)):
        return _item(value, inner)
    return _fallback(value, newline)


def plain(value: Any) -> Any:
    """`value` with every dataclass in it made a dict, and every list, tuple and dict a
    new one, as `dataclasses.asdict` does; other values are shared, not deep-copied (a
    report holds only immutable scalars besides)."""
    kind = type(value)
    if kind is dict:
        return {plain(key): plain(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return kind([plain(item) for item in value])
    names = _field_names(kind)
    if names is not None:
        return {name: plain(getattr(value, name)) for name, _ in names}
    return value
