"""Structured mutations of the shipped fixtures (every `evals/**/*.json`), as strategies.

A fixture is parsed into `Obj` (an object as its list of key/value pairs, so a key can
be duplicated) and plain lists and scalars; mutations drop, rename, retype and duplicate
keys and put hostile values anywhere; `dump` writes it back as JSON text, where `Raw`
splices text no Python value round-trips as (a 5,000-digit integer, 2,000 levels of
nesting, `NaN`); `damage` then breaks the bytes (a BOM, invalid UTF-8, a raw control
character, a cut, an empty file).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.fuzz.hostile import hostile_text

ROOT = Path(__file__).resolve().parents[2]
#: Every fixture the repository ships.
SHIPPED = sorted(ROOT.glob("evals/**/*.json"))
#: The deepest nesting spliced in.
DEEP = 2000


@dataclass
class Obj:
    """A JSON object as written: its pairs in order, duplicates allowed."""

    pairs: list[list[Any]]


@dataclass(frozen=True)
class Raw:
    """JSON text written as it is."""

    text: str


def parse(text: str) -> Any:
    """Fixture text as `Obj`s, lists and scalars."""
    return json.loads(text, object_pairs_hook=lambda pairs: Obj([list(p) for p in pairs]))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _string(text: str, ascii_only: bool) -> str:
    dumped = json.dumps(text, ensure_ascii=ascii_only)
    # A lone surrogate has no UTF-8 form: write it as the JSON escape a file can hold.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)


def dump(node: Any, ascii_only: bool = False) -> str:
    """JSON text of a (mutated) fixture."""
    if isinstance(node, Raw):
        return node.text
    if isinstance(node, Obj):
        inner = ", ".join(f"{_string(str(k), ascii_only)}: {dump(v, ascii_only)}" for k, v in node.pairs)
        return "{" + inner + "}"
    if isinstance(node, list):
        return "[" + ", ".join(dump(v, ascii_only) for v in node) + "]"
    if isinstance(node, str):
        return _string(node, ascii_only)
    return json.dumps(node)


def _slots(node: Any) -> list[tuple[Any, int]]:
    """Every (container, index) in the tree: a pair of an `Obj`, an item of a list."""
    found: list[tuple[Any, int]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Obj):
            for index, pair in enumerate(current.pairs):
                found.append((current, index))
                stack.append(pair[1])
        elif isinstance(current, list):
            for index, item in enumerate(current):
                found.append((current, index))
                stack.append(item)
    return found


def _deep(depth: int, leaf: str, kind: str) -> Raw:
    if kind == "list":
        return Raw("[" * depth + leaf + "]" * depth)
    return Raw('{"a": ' * depth + leaf + "}" * depth)


#: Numbers no fixture should hold: huge, negative, 5,000 digits, not numbers at all.
NUMBERS = st.one_of(
    st.sampled_from([-1, 0, -(2**63), 2**63, 2**64 + 1, -(10**18), 10**300]),
    st.sampled_from(["9" * 5000, "-" + "9" * 5000, "1" + "0" * 4999, "1e999", "-1e999", "1e-999", "-0"]).map(
        Raw
    ),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1.5", "0.1e1", "1E400"]).map(Raw),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
)
NESTING = st.builds(
    _deep,
    st.sampled_from([2, 50, 500, 999, 1000, 1001, DEEP]),
    st.sampled_from(["1", '"x"', "[]", "{}"]),
    st.sampled_from(["list", "object"]),
)
KEYS = st.one_of(
    hostile_text(max_pieces=2),
    st.sampled_from(
        ["", "$schema", "id", "expects", "turns", "tools", "null", "__proto__", "\ud800", "a\x00b"]
    ),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, hostile_text(max_pieces=2))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(st.tuples(KEYS, inner).map(list), max_size=3).map(Obj),
    ),
    max_leaves=6,
)


def _put(items: list[Any], index: int, is_obj: bool, value: Any) -> None:
    """Replace the value at `index` (of a pair, for an object)."""
    if is_obj:
        items[index][1] = value
    else:
        items[index] = value


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A shipped fixture, parsed, with one to four structural mutations, as JSON text."""
    path = draw(st.sampled_from(SHIPPED))
    tree = parse(path.read_text(encoding="utf-8"))
    for _ in range(draw(st.integers(1, 4))):
        slots = _slots(tree)
        if not slots:
            break
        container, index = slots[draw(st.integers(0, len(slots) - 1))]
        is_obj = isinstance(container, Obj)
        items = container.pairs if is_obj else container
        kind = draw(st.sampled_from(["drop", "rename", "retype", "duplicate", "number", "deep", "text"]))
        if kind == "drop":
            del items[index]
        elif kind == "rename" and is_obj:
            items[index][0] = draw(st.one_of(KEYS, st.just(items[index][0] + "s")))
        elif kind == "duplicate":
            twin = copy.deepcopy(items[index][1] if is_obj else items[index])
            items.insert(index + 1, [items[index][0], twin] if is_obj else twin)
        elif kind == "number":
            _put(items, index, is_obj, draw(NUMBERS))
        elif kind == "deep":
            _put(items, index, is_obj, draw(NESTING))
        elif kind == "text":
            _put(items, index, is_obj, draw(hostile_text(max_pieces=3)))
        else:
            _put(items, index, is_obj, draw(VALUES))
    return dump(tree, ascii_only=draw(st.booleans()))


#: Bytes that are not UTF-8: a stray continuation, a cut sequence, an overlong form, an
#: encoded surrogate, a code point past U+10FFFF.
INVALID_UTF8 = [b"\xff", b"\x80", b"\xc3", b"\xe2\x82", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]


@dataclass(frozen=True)
class Damage:
    """A byte-level break: what, where (an offset, taken modulo the length) and with what."""

    kind: str
    offset: int
    invalid: bytes
    control: int

    def apply(self, text: str) -> bytes:
        """`text` as UTF-8 with this damage done."""
        data = text.encode("utf-8")
        at = self.offset % (len(data) + 1)
        if self.kind == "bom":
            return b"\xef\xbb\xbf" + data
        if self.kind == "invalid":
            return data[:at] + self.invalid + data[at:]
        if self.kind == "control":
            return data[:at] + bytes([self.control]) + data[at:]
        if self.kind == "cut":
            return data[:at]
        if self.kind == "empty":
            return b""
        if self.kind == "utf16":
            return text.encode("utf-16", errors="surrogatepass")
        return data


#: Byte-level damage, or none (the text as UTF-8) a quarter of the time.
DAMAGE = st.builds(
    Damage,
    st.sampled_from(["none", "none", "bom", "invalid", "control", "cut", "empty", "utf16"]),
    st.integers(0, 10**6),
    st.sampled_from(INVALID_UTF8),
    st.sampled_from([0, 1, 8, 0x0B, 0x0C, 0x1B, 0x7F]),
)


#: File names a fixture may have: hostile text, and bytes that are not UTF-8 (which
#: Python reads back as surrogate escapes).
FILE_NAMES = st.one_of(
    st.just(b"case.json"),
    st.sampled_from(
        [
            b"\xff\xfe.json",
            b"caf\xe9.json",
            b"::error::zcpwn.json",
            b"a\nb.json",
            b"a\r::warning::zcpwn.json",
            b"<script>zcpwn()<\\script>.json",
            b"<img src=x onerror=zcpwn()>.json",
            b"\x1b[31mred.json",
            b"%0A::error::zcpwn.json",
            b"a" * 240 + b".json",
        ]
    ),
    st.text(
        st.characters(exclude_categories=("Cs",), exclude_characters="/\x00"), min_size=1, max_size=40
    ).map(lambda name: name.encode("utf-8")[:200] + b".json"),
)
