"""Strict JSON: fixture text parsed fail-closed, and JSON text read and written alike
everywhere (model output, tool arguments, needles).

A fixture is read by the standard `json` module with hooks where that parser is lenient
(duplicate keys, `NaN`, numbers that overflow, lone surrogate escapes) or raises what is
not a syntax error (an integer too long to convert, nesting too deep for its recursion):
a hook raises a flag, and only then does the slower `scan` say exactly where. That
reading is the reference. A hook is a Python call per object and number, half of the
reading's time, so a fixture is first read by jiter's compiled parser, which refuses
duplicate keys, `NaN`, lone surrogates, integers longer than the interpreter converts
and nesting past 200 levels by itself; its data is taken only where the reference could
not flag it either: the text holds no surrogate escape, and orjson writes the data back
without a `null` (a number that overflowed reads as infinity, which orjson writes as
`null`) and without refusing it (an integer beyond 64 bits, nesting past 255 levels).
Anything else, a refusal included, is read the reference's way, which says what is
wrong and where. A property test holds the two readings to the same data.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any

import jiter
import orjson

from zeroclaw_eval._support.json.depth import MAX_DEPTH, clamped
from zeroclaw_eval._support.json.scan import SURROGATE_ESCAPE, JsonProblem, depth_offset, text_problems

_BOM = b"\xef\xbb\xbf"
_BLANK = re.compile(rb"[ \t\n\r]*")


@dataclass
class ParsedJson:
    """The result of `parse_json`: the data (None when unreadable) and the problems."""

    text: str
    data: Any
    problems: list[JsonProblem] = field(default_factory=list)
    fatal: bool = False


def parse_json(raw: bytes) -> ParsedJson:
    """Parse fixture bytes strictly; never raises for bad input."""
    if raw.startswith(_BOM):
        # RFC 8259 lets a parser ignore a BOM but forbids writing one, and the upstream
        # (serde_json) reader rejects it: a fixture admitted here must load there too.
        text = raw[len(_BOM) :].decode("utf-8", errors="replace")
        message = "file starts with a UTF-8 byte order mark (BOM); save it as UTF-8 without BOM"
        return ParsedJson(text, None, [JsonProblem("", 0, message)], fatal=True)
    if _BLANK.fullmatch(raw):
        message = "the file is empty; a fixture is a JSON object (see `zeroclaw eval new`)"
        return ParsedJson(raw.decode("ascii"), None, [JsonProblem("", 0, message)], fatal=True)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = raw[: exc.start].decode("utf-8")
        message = f"invalid UTF-8: byte 0x{raw[exc.start]:02x} cannot start or continue a character"
        return ParsedJson(good, None, [JsonProblem("", len(good), message)], fatal=True)
    data = _quick(raw, text)
    return ParsedJson(text, data) if data is not _UNREAD else reference_parse(text)


#: What `_quick` returns for a text it leaves to the reference reading.
_UNREAD = object()


def _quick(raw: bytes, text: str) -> Any:
    """The data of `raw` read by the compiled parser, where the reference reading would
    read the same and flag nothing (see the module); `_UNREAD` otherwise."""
    if SURROGATE_ESCAPE.search(text):
        return _UNREAD
    try:
        data = jiter.from_json(raw, allow_inf_nan=False, catch_duplicate_keys=True, cache_mode="keys")
        written = orjson.dumps(data)
    except (ValueError, orjson.JSONEncodeError):  # JSONEncodeError is a TypeError
        return _UNREAD
    return _UNREAD if b"null" in written else data


def reference_parse(text: str) -> ParsedJson:
    """`parse_json` of decoded fixture text by the standard parser and its hooks: the
    reading every problem is found and positioned by (see the module)."""
    flagged = False

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal flagged
        obj = dict(pairs)
        if len(obj) != len(pairs):
            flagged = True
        return obj

    def constant_hook(name: str) -> float:
        nonlocal flagged
        flagged = True
        return float(name)

    def float_hook(text: str) -> float:
        nonlocal flagged
        value = float(text)
        if math.isinf(value):  # 1e999: as unwritable as Infinity itself
            flagged = True
        return value

    def int_hook(text: str) -> int:
        nonlocal flagged
        try:
            return int(text)
        except ValueError:  # more digits than the interpreter converts (4,300 by default)
            flagged = True
            return 0

    try:
        data = json.loads(
            text,
            object_pairs_hook=pairs_hook,
            parse_constant=constant_hook,
            parse_float=float_hook,
            parse_int=int_hook,
        )
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg}"
        if exc.msg == "Extra data":
            message = "invalid JSON: unexpected data after the end of the top-level value"
        return ParsedJson(text, None, [JsonProblem("", exc.pos, message)], fatal=True)
    except RecursionError:
        offset = depth_offset(text, MAX_DEPTH)
        message = f"objects and arrays are nested more than {MAX_DEPTH} levels deep here; flatten the value"
        return ParsedJson(text, None, [JsonProblem("", offset or 0, message)], fatal=True)

    parsed = ParsedJson(text, data)
    if flagged or SURROGATE_ESCAPE.search(text):
        parsed.problems.extend(text_problems(text))
    return parsed


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text} is out of range for a float")
    return value


#: One decoder for every strict read: `json.loads` with these hooks builds a new one per call.
_STRICT = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


def loads_strict(text: str) -> Any:
    """`json.loads` that refuses `NaN`, `Infinity` and numbers that overflow to infinity,
    so whatever it returns can be written back out as valid JSON (model output and tool
    arguments are parsed with this); nesting too deep is refused as `loads_untrusted`
    refuses it."""
    if text.startswith("\ufeff"):  # what `json.loads` refuses before decoding
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        return _STRICT.decode(text)
    except RecursionError:
        raise _too_deep_to_parse() from None


#: How Python's refusal of a too long integer names its length.
_INT_DIGITS = re.compile(r"integer string conversion: value has (\d+) digits")


def loads_untrusted(text: str | bytes, *, unique_keys: bool = False) -> Any:
    """`json.loads` of text from outside (an agent's request or log line, a tool's
    result, a saved report): every way it can fail is a `ValueError`. The parser
    recurses once per level, so a document nested a few thousand levels deep raises
    `RecursionError`, which the callers' `except ValueError` would let escape as a
    traceback."""
    try:
        return json.loads(text, object_pairs_hook=_unique if unique_keys else None)
    except RecursionError:
        raise _too_deep_to_parse() from None
    except ValueError as exc:
        # Python refuses to read an integer of more than 4,300 digits, and says so in words
        # meant for a programmer (`sys.set_int_max_str_digits`); say what the text holds.
        digits = _INT_DIGITS.search(str(exc))
        if digits is None:
            raise
        raise ValueError(f"a number of {digits.group(1)} digits, more than any value it may hold") from None


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different (`loads_untrusted(unique_keys=True)`): one
    that names a key twice says two things, and no reader can tell which it meant."""
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("an object names a key twice")
    return found


def _too_deep_to_parse() -> ValueError:
    return ValueError("objects and arrays are nested too deep to parse")


def compact_json(value: Any) -> str:
    """Compact JSON text: separators `,` and `:`, keys in their order, non-ASCII kept.

    The one spelling of a value as text: how scripted arguments reach a tool, and what
    a needle is searched in.
    """
    try:
        return _COMPACT.encode(value)
    except RecursionError:  # arguments a live model nested past what json recurses through
        return _COMPACT.encode(clamped(value))


def arguments_text(arguments: Any) -> str:
    """Tool-call arguments as the JSON text a model sends: text as it is (a model's
    malformed arguments kept), none at all as `{}`, anything else (the object an SDK or a
    trace holds) as compact JSON (`compact_json`: separators `,` and `:`, keys in their
    order, non-ASCII kept). The one spelling of arguments as text, everywhere."""
    if isinstance(arguments, str):
        return arguments
    return "{}" if arguments is None else compact_json(arguments)


#: `json.dumps(value, ensure_ascii=False, separators=(",", ":"))` without a new encoder per call.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


#: Where orjson's indented text may differ from the standard module's: a float below
#: 1e-4 (orjson writes `1e-5` as `0.00001` and `1.5e-07` as `1.5e-7`) and `null`, which
#: orjson also writes for NaN and infinity. Text in a string can match too; that only
#: costs the slower writer.
_ORJSON_MAY_DIFFER = re.compile(rb"[0-9]e-[0-9](?![0-9])|0\.0000|null")


def pretty_json(value: Any) -> str:
    """Indented JSON text for people to read (reports, captured and imported fixtures),
    non-ASCII kept: the standard module's `indent=2` text, byte for byte.

    orjson writes that text in compiled code, a fixture in a few µs where the standard
    module takes tens, and identically for strings (escapes included), integers,
    booleans, subclasses of str and int, and nesting; its text is taken unless it refused
    the value (an integer beyond 64 bits, a lone surrogate, a key that is not a string,
    nesting past 255) or the text holds what orjson may spell another way
    (`_ORJSON_MAY_DIFFER`). A property test holds the two writers to the same text. (A
    value that is no JSON data, a dataclass or a UUID, which the standard module refuses,
    orjson writes; no caller passes one.)
    """
    try:
        written = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except orjson.JSONEncodeError:  # refused: the standard module writes it or says why not
        pass
    else:
        if not _ORJSON_MAY_DIFFER.search(written):
            return written.decode("utf-8")
    try:
        return json.dumps(value, ensure_ascii=False, indent=2)
    except RecursionError:  # arguments a live model nested past what json recurses through
        return json.dumps(clamped(value), ensure_ascii=False, indent=2)


#: Characters of observed text quoted in a message (a detail, a divergence).
SHOWN = 300


def cut(text: str, limit: int) -> tuple[str, str]:
    """`text` cut after `limit` characters, and the note that says how much was left out."""
    if len(text) <= limit:
        return text, ""
    return text[:limit], f"… ({len(text) - limit} more characters)"


def quote(text: str, limit: int = SHOWN) -> str:
    """`text` as a JSON string literal (how messages show text), cut after `limit`
    characters with a note."""
    head, note = cut(text, limit)
    return encode_basestring(head) + note  # what `json.dumps(head, ensure_ascii=False)` writes


def json_equal(left: Any, right: Any) -> bool:
    """Equality as JSON: types must match (`true` is not `1`), numbers by value."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(json_equal, left, right))
    return type(left) is type(right) and bool(left == right)
