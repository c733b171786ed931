"""The response family: the final response against `response_contains`,
`response_not_contains`, `response_matches` (RE2) and `response_json` (the response, or
its first fitting fenced block, read as JSON)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from zeroclaw_eval._support.json.pointer import MISSING, join_pointer, resolve_pointer
from zeroclaw_eval._support.json.text import compact_json, json_equal, quote
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.errors import InvalidRegex
from zeroclaw_eval.grading.matching import regex_search, response_as_json
from zeroclaw_eval.grading.result import RESPONSE, GradeResult, make_grade
from zeroclaw_eval.tools.workspace import Workspace


def response_checks(
    expects: Expects, record: RunRecord, workspace: Workspace | None, words: bool
) -> Iterator[GradeResult]:
    """Every check of the response family `expects` declares, against `record`'s final response."""
    return _response_checks(expects, record.final_response, words)


def reads_response(record: RunRecord) -> str:
    """What the response family reads of a run: the final response."""
    return record.final_response


def _response_checks(expects: Expects, response: str, words: bool) -> Iterator[GradeResult]:
    quoted: list[str] = []

    def found() -> str:  # the response quoted once, and only for a check that says it
        if not quoted:
            quoted.append(f"found {quote(response)}" if response else "the final response is empty")
        return quoted[0]

    for i, needle in enumerate(expects.response_contains):
        ok = needle in response
        detail = (
            f"expected the final response to contain {quote(needle)}; {found()}" if words or not ok else ""
        )
        yield make_grade(
            f"response_contains[{i}]",
            RESPONSE,
            f"/expects/response_contains/{i}",
            ok,
            detail,
            needle,
            response,
        )
    for i, needle in enumerate(expects.response_not_contains):
        ok = needle not in response
        detail = (
            f"expected the final response not to contain {quote(needle)}; {found()}"
            if words or not ok
            else ""
        )
        yield make_grade(
            f"response_not_contains[{i}]",
            RESPONSE,
            f"/expects/response_not_contains/{i}",
            ok,
            detail,
            needle,
            response,
        )
    for i, pattern in enumerate(expects.response_matches):
        pointer = f"/expects/response_matches/{i}"
        try:
            ok = regex_search(pattern, response)
            detail = f"expected the final response to match /{pattern}/ (RE2); {found()}"
        except InvalidRegex as exc:
            ok, detail = False, f"invalid regex /{pattern}/ (RE2 syntax: {exc})"
        yield make_grade(f"response_matches[{i}]", RESPONSE, pointer, ok, detail, pattern, response)
    if expects.response_json:
        document = response_as_json(response)
        for pointer, expected in expects.response_json.items():
            check_id = f"response_json[{json.dumps(pointer, ensure_ascii=False)}]"
            field = join_pointer("/expects/response_json", pointer)
            want = compact_json(expected)
            if document is MISSING:
                detail = f"expected {pointer or '(root)'} = {want}; response is not JSON ({found()})"
                yield make_grade(check_id, RESPONSE, field, False, detail, expected, response)
                continue
            actual = resolve_pointer(document, pointer)
            if actual is MISSING:
                ok, shown = False, "no such member in the response JSON"
                actual = None
            else:
                ok, shown = json_equal(actual, expected), f"found {compact_json(actual)}"
            detail = f"expected {pointer or '(root)'} = {want}; {shown}"
            yield make_grade(check_id, RESPONSE, field, ok, detail, expected, actual)
