"""Fail-closed admission: fixture file -> `Case`, or a `RejectedFixture` naming every problem.

Layered like pydantic-evals' `from_file -> from_text -> from_dict`: bytes are parsed
strictly (`jsonpos`), the data is validated by the strict models (`case`), and the rules
that span fields are checked here. Every problem carries the JSON pointer of the
offending field and its line and column; all problems of a fixture are reported
together, and nothing here raises for bad input.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from zeroclaw_eval.case import Expects, LlmTrace, Setup, Turn
from zeroclaw_eval.jsonpos import (
    SourceMap,
    join_pointer,
    offset_to_line_col,
    parse_json,
)
from zeroclaw_eval.location import FieldRef, FixtureProblem
from zeroclaw_eval.workspace import workspace_path_problem


@dataclass
class Case:
    """An admitted fixture: its identity, its source, and the validated trace."""

    name: str
    path: Path
    trace: LlmTrace
    text: str
    _source_map: SourceMap | None = field(default=None, repr=False)

    @property
    def source_map(self) -> SourceMap:
        """Positions in the fixture text, built on first use."""
        if self._source_map is None:
            self._source_map = SourceMap(self.text)
        return self._source_map

    def locate(self, pointer: str, *, at_key: bool = False) -> FieldRef:
        """A `FieldRef` for `pointer` with its line and column filled in."""
        return FieldRef(pointer).located(self.source_map.position(pointer, at_key=at_key))


@dataclass
class RejectedFixture:
    """A fixture that failed admission; it counts as a failed case."""

    name: str
    path: Path
    problems: list[FixtureProblem]
    #: The fixture text as far as it could be decoded ("" when unreadable).
    text: str = ""
    #: The display name, when the fixture got far enough to have a readable one.
    model_name: str | None = None


# (pointer, at_key, message): a problem before positions are looked up.
_Raw = tuple[str, bool, str]


def load_fixture(path: Path, known_tools: Iterable[str] | None = None) -> Case | RejectedFixture:
    """Read and admit one fixture file; never raises for bad content."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        problem = FixtureProblem(FieldRef("", 1, 1, 1, 1), f"cannot read the file: {reason}")
        return RejectedFixture(path.name, path, [problem])
    return admit_bytes(raw, path, known_tools)


def admit_bytes(raw: bytes, path: Path, known_tools: Iterable[str] | None = None) -> Case | RejectedFixture:
    """Admit fixture bytes that claim to come from `path`."""
    parsed = parse_json(raw)
    if parsed.fatal:
        # No data to look inside: the syntax error's own offset is the position.
        return RejectedFixture(
            path.name,
            path,
            [_at_offset(parsed.text, p.pointer, p.offset, p.message) for p in parsed.problems],
        )
    # Text-level problems (duplicate keys, NaN, lone surrogates) are located already;
    # validation goes on so that every problem of the fixture is reported together.
    located = [_at_offset(parsed.text, p.pointer, p.offset, p.message) for p in parsed.problems]
    problems: list[_Raw] = []

    data = parsed.data
    if "null" in parsed.text:  # cheap test first: most fixtures hold no null at all
        problems.extend(null_problems(data))
    trace: LlmTrace | None = None
    try:
        trace = LlmTrace.model_validate(data)
    except ValidationError as exc:
        problems.extend(_validation_problems(exc, data, (), LlmTrace))
        invalid = {
            str(error["loc"][1])
            for error in exc.errors()
            if len(error["loc"]) > 1 and error["loc"][0] == "expects"
        }
        problems.extend(_partial_rule_problems(data, invalid))
    else:
        problems.extend(_rule_problems(trace, data, known_tools))

    if not problems and not located:
        assert trace is not None
        return Case(path.name, path, trace, parsed.text)
    source = SourceMap(parsed.text)
    seen: set[tuple[str, str]] = set()
    for pointer, at_key, message in problems:
        if (pointer, message) not in seen:
            seen.add((pointer, message))
            ref = FieldRef(pointer).located(source.position(pointer, at_key=at_key))
            located.append(FixtureProblem(ref, message))
    located.sort(key=lambda p: (p.field.line or 0, p.field.col or 0))
    name = data.get("model_name") if isinstance(data, dict) else None
    return RejectedFixture(path.name, path, located, parsed.text, name if isinstance(name, str) else None)


def _at_offset(text: str, pointer: str, offset: int, message: str) -> FixtureProblem:
    line, col = offset_to_line_col(text, offset)
    return FixtureProblem(FieldRef(pointer, line, col, line, col), message)


_NULL_MESSAGE = "null is not allowed here; remove the key to leave it undeclared"
# Values that are free JSON (null is a legitimate value there).
_FREE_JSON = frozenset({"arguments", "response_json"})


def null_problems(data: Any, pointer: str = "") -> Iterator[_Raw]:
    """Every explicit `null` that stands for a fixture field (not inside free JSON)."""
    if isinstance(data, dict):
        for key, value in data.items():
            member = join_pointer(pointer, key)
            if value is None:
                yield member, False, _NULL_MESSAGE
            elif key not in _FREE_JSON:
                yield from null_problems(value, member)
    elif isinstance(data, list):
        for index, item in enumerate(data):
            yield from null_problems(item, join_pointer(pointer, index))


def _validation_problems(
    exc: ValidationError, data: Any, prefix: tuple[str | int, ...], model: type[BaseModel]
) -> Iterator[_Raw]:
    for error in exc.errors():
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
    """The model class that validates the object at `loc`, walking field annotations."""
    current: Any = model
    for token in loc:
        if isinstance(token, int):
            continue  # list items: the annotation was already unwrapped to the item type
        if isinstance(current, type) and issubclass(current, BaseModel):
            info = current.model_fields.get(str(token))
            if info is None:
                return None
            current = info.annotation
        current = _unwrap(current, token)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(annotation: Any, token: str | int) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
        inner = _unwrap(arg, token)
        if inner is not None:
            return inner
    return None


def _unknown_key_message(key: str, model: type[BaseModel] | None) -> str:
    noun = "unknown expectation key" if model in (Expects,) else "unknown key"
    if model is None:
        return f"{noun} {json.dumps(key, ensure_ascii=False)}"
    allowed = list(model.model_fields)
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    if close:
        return f"{noun}; did you mean {close[0]}?"
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
        return _NULL_MESSAGE
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
    return str(error["msg"])


def _partial_rule_problems(data: Any, invalid_expects: set[str]) -> Iterator[_Raw]:
    """Cross-field rules for the parts that validated, when the whole fixture did not.

    `invalid_expects` are the expectation keys already reported (unknown or invalid);
    the rules still run on the rest, so that every problem is reported at once.
    """
    if not isinstance(data, dict):
        return
    expects = data.get("expects")
    if isinstance(expects, dict):
        known = {k: v for k, v in expects.items() if k in Expects.model_fields and k not in invalid_expects}
        try:
            model = Expects.model_validate(known)
        except ValidationError:
            pass
        else:
            # A misspelt or invalid key would otherwise also read as "declares no check".
            yield from _expects_problems(model, known, empty_ok=len(known) < len(expects))
    setup = data.get("setup")
    if isinstance(setup, dict):
        try:
            yield from _setup_problems(Setup.model_validate(setup))
        except ValidationError:
            pass
    turns = data.get("turns")
    if isinstance(turns, list):
        for index, turn in enumerate(turns):
            try:
                yield from _turn_problems(index, Turn.model_validate(turn))
            except ValidationError:
                pass
        if not turns:
            yield from _no_turns()


def _rule_problems(trace: LlmTrace, data: Any, known_tools: Iterable[str] | None) -> Iterator[_Raw]:
    if not trace.turns:
        yield from _no_turns()
    for index, turn in enumerate(trace.turns):
        yield from _turn_problems(index, turn)
    if trace.setup is not None:
        yield from _setup_problems(trace.setup)
    yield from _expects_problems(trace.expects, data["expects"])
    if known_tools is not None:
        known = sorted(set(known_tools))
        for index, tool in enumerate(trace.tools):
            if tool not in known:
                yield (
                    f"/tools/{index}",
                    False,
                    f"unknown tool {tool!r}; the built-in tools are: {', '.join(known)}",
                )


def _no_turns() -> Iterator[_Raw]:
    yield "/turns", False, "no conversation turns: replay would run the agent zero times"


def _turn_problems(index: int, turn: Turn) -> Iterator[_Raw]:
    for step_index, step in enumerate(turn.steps or ()):
        pointer = f"/turns/{index}/steps/{step_index}/response"
        response = step.response
        if response.type == "text" and response.content is None:
            yield pointer + "/content", False, "missing required key 'content' for a text response"
        if response.type == "text" and response.tool_calls:
            message = "a text response cannot request tool calls; use type tool_calls"
            yield pointer + "/tool_calls", True, message
        if response.type == "tool_calls" and not response.tool_calls:
            yield pointer + "/tool_calls", False, "a tool_calls response needs at least one call"


def _setup_problems(setup: Setup) -> Iterator[_Raw]:
    files = {relative: _file_parts(relative) for relative in setup.workspace_files}
    for relative, parts in files.items():
        problem = workspace_path_problem(relative)
        if problem is None and not parts:
            problem = f"path {relative!r} names the workspace itself, not a file in it"
        elif problem is None and (relative.endswith(("/", "\\")) or "" in parts):
            problem = f"path {relative!r} is not a plain file path (an empty or trailing segment)"
        elif problem is None:
            # Seeding "a" as a file and "a/b" beside it cannot both be done.
            inside = [
                other
                for other, theirs in files.items()
                if theirs[: len(parts)] == parts and other != relative
            ]
            if inside and len(files[inside[0]]) > len(parts):
                problem = f"path {relative!r} is a file, but {inside[0]!r} needs it to be a folder"
        if problem:
            yield join_pointer("/setup/workspace_files", relative), True, problem


def _file_parts(relative: str) -> tuple[str, ...]:
    parts = relative.replace("\\", "/").split("/")
    return tuple(part for part in parts if part != ".") if relative.strip("./") else ()


def _expects_problems(expects: Expects, raw: dict[str, Any], *, empty_ok: bool = False) -> Iterator[_Raw]:
    if not expects.declares_a_check() and not empty_ok:
        yield (
            "/expects",
            False,
            "expects declares no check: a case that checks nothing always passes",
        )
    if expects.min_tool_calls == 0:
        message = "min_tool_calls: 0 is vacuous (every run makes at least 0 calls); remove it"
        yield "/expects/min_tool_calls", False, message
    order = list(raw)

    def later(a: str, b: str) -> str:
        return f"/expects/{max(a, b, key=order.index)}"

    low, high, exact = expects.min_tool_calls, expects.max_tool_calls, expects.exact_tool_calls
    if low is not None and high is not None and low > high:
        message = f"min_tool_calls ({low}) is greater than max_tool_calls ({high}); no run can pass"
        yield later("min_tool_calls", "max_tool_calls"), True, message
    if exact is not None and low is not None and exact < low:
        message = f"exact_tool_calls ({exact}) is below min_tool_calls ({low}); no run can pass"
        yield later("exact_tool_calls", "min_tool_calls"), True, message
    if exact is not None and high is not None and exact > high:
        message = f"exact_tool_calls ({exact}) is above max_tool_calls ({high}); no run can pass"
        yield later("exact_tool_calls", "max_tool_calls"), True, message
    for index, tool in enumerate(expects.tools_not_used):
        if tool in expects.tools_used:
            message = f"{tool!r} is in both tools_used and tools_not_used; no run can pass"
            yield f"/expects/tools_not_used/{index}", False, message
    for index, text in enumerate(expects.response_not_contains):
        if any(text in needle for needle in expects.response_contains):
            message = f"{text!r} is inside a response_contains entry; no run can pass both"
            yield f"/expects/response_not_contains/{index}", False, message
    for pointer in expects.response_json:
        if pointer and not pointer.startswith("/"):
            message = f"{pointer!r} is not a JSON pointer; it must be empty or start with '/'"
            yield join_pointer("/expects/response_json", pointer), True, message
