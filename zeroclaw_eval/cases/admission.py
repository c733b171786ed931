"""Fail-closed admission: fixture file -> `Case`, or a `RejectedFixture` naming every problem.

Layered like pydantic-evals' `from_file -> from_text -> from_dict`: bytes are parsed
strictly (`json.text`), the data is validated by the strict models (`model`, with
`messages` for what they reject), and the rules that span fields are checked
(`rules`). Every problem carries the JSON pointer of the offending field and its line
and column; all problems of a fixture are reported together, and nothing here raises
for bad input.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from zeroclaw_eval._support.files import Link, read_bounded
from zeroclaw_eval._support.json.scan import printable
from zeroclaw_eval._support.json.text import parse_json
from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.cases.limits import DEFAULT_MAX_FIXTURE_BYTES, FIXTURE_LIMIT
from zeroclaw_eval.cases.location import FieldRef, FixtureProblem, RawProblem
from zeroclaw_eval.cases.messages import null_problems, validation_problems
from zeroclaw_eval.cases.model import LlmTrace
from zeroclaw_eval.cases.rules import partial_rule_problems, rule_problems
from zeroclaw_eval.cases.source_map import SourceMap, offset_to_line_col


def load_fixture(
    path: Path, known_tools: Iterable[str] | None = None, *, max_bytes: int = DEFAULT_MAX_FIXTURE_BYTES
) -> Case | RejectedFixture:
    """Read and admit one fixture file; never raises for bad content.

    A file over `max_bytes` is refused from its size, unread; a symbolic link that leads
    out of the fixture's folder is refused unread, so that no text of its target reaches
    a report.
    """
    found = read_bounded(path, max_bytes, follow_links=False, limit=FIXTURE_LIMIT)
    if isinstance(found, Link) and not _stays_inside(path):
        message = (
            "the file is a symbolic link to a file outside its suite folder, which is not read;"
            " copy the fixture into the suite"
        )
        return RejectedFixture(path.name, path, [FixtureProblem(FieldRef("", 1, 1, 1, 1), message)])
    raw = read_bounded(path, max_bytes, limit=FIXTURE_LIMIT) if isinstance(found, Link) else found
    if isinstance(raw, str):
        return RejectedFixture(path.name, path, [FixtureProblem(FieldRef("", 1, 1, 1, 1), raw)])
    return admit_bytes(raw, path, known_tools)


def _stays_inside(link: Path) -> bool:
    """Whether the symbolic link `link` ends inside the folder that holds it."""
    try:
        return link.resolve().is_relative_to(link.parent.resolve())
    except (OSError, RuntimeError):  # a loop of links, or one that cannot be followed
        return False


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
    problems: list[RawProblem] = []

    data = parsed.data
    if "null" in parsed.text:  # cheap test first: most fixtures hold no null at all
        problems.extend(null_problems(data))
    trace: LlmTrace | None = None
    try:
        trace = LlmTrace.model_validate(data)
    except ValidationError as exc:
        problems.extend(validation_problems(exc, data, (), LlmTrace))
        invalid = {
            str(error["loc"][1])
            for error in exc.errors()
            if len(error["loc"]) > 1 and error["loc"][0] == "expects"
        }
        problems.extend(partial_rule_problems(data, invalid, known_tools))
    else:
        problems.extend(rule_problems(trace, data, known_tools, parsed.text))

    if not problems and not located:
        assert trace is not None
        return Case(path.name, path, trace, parsed.text)
    source = SourceMap(parsed.text)
    seen: set[tuple[str, str]] = set()
    for pointer, at_key, message in problems:
        if (pointer, message) not in seen:
            seen.add((pointer, message))
            # Located by the key as written; shown with any lone surrogate escaped, as
            # a key that holds one is rejected but must still be printable.
            ref = FieldRef(printable(pointer)).located(source.position(pointer, at_key=at_key))
            located.append(FixtureProblem(ref, printable(message)))
    located.sort(key=lambda p: (p.field.line or 0, p.field.col or 0))
    name = data.get("model_name") if isinstance(data, dict) else None
    shown = printable(name) if isinstance(name, str) else None
    return RejectedFixture(path.name, path, located, parsed.text, shown)


def _at_offset(text: str, pointer: str, offset: int, message: str) -> FixtureProblem:
    line, col = offset_to_line_col(text, offset)
    return FixtureProblem(FieldRef(printable(pointer), line, col, line, col), printable(message))
