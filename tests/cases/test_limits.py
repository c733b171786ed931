"""`zeroclaw_eval.cases.limits`: the bounds admission puts on a fixture (size, nesting,
counts), each a positioned rejection rather than a traceback or a crash further on."""

from __future__ import annotations

import json
import os
import threading
import tracemalloc
from pathlib import Path

import pytest

from tests.support.builders import (
    admit_case,
    line_col,
    minimal_fixture,
    only_problem_at,
    position,
    reject,
    write_fixture,
)
from zeroclaw_eval._support import files
from zeroclaw_eval._support.files import read_bounded
from zeroclaw_eval._support.json.depth import MAX_DEPTH, too_deep
from zeroclaw_eval.cases.admission import admit_bytes, load_fixture
from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.cases.limits import DEFAULT_MAX_FIXTURE_BYTES, FIXTURE_LIMIT, MAX_COUNT
from zeroclaw_eval.config.settings import EvalSettings
from zeroclaw_eval.runner import RunOptions, run_suite

_TOKENS = "/turns/0/steps/0/response/input_tokens"


def _with_tokens(literal: str) -> str:
    text = json.dumps(minimal_fixture(), indent=2)
    return text.replace('"content": "hello there"', f'"content": "hello there", "input_tokens": {literal}')


def test_an_integer_too_long_to_convert_is_a_positioned_rejection(tmp_path: Path) -> None:
    # 4,301 digits: json.loads itself raises a bare ValueError for it.
    text = _with_tokens("9" * 4301)
    problem = only_problem_at(reject(tmp_path, text), _TOKENS)
    assert "4301 digits" in problem.message
    assert position(problem) == line_col(text, "9" * 4301)


def test_a_count_beyond_2_53_is_rejected_so_budget_sums_stay_printable(tmp_path: Path) -> None:
    text = _with_tokens("9" * 4300)  # converts, but two such summed would not print
    problem = only_problem_at(reject(tmp_path, text), _TOKENS)
    assert f"at most {MAX_COUNT}" in problem.message
    assert "4300 digits" in problem.message  # the number itself is not echoed
    admit_case(tmp_path, _with_tokens(str(MAX_COUNT)))


def _nested(levels: int) -> object:
    value: object = "bottom"
    for _ in range(levels):
        value = [value]
    return value


def test_free_json_nested_deeper_than_the_limit_is_rejected_at_the_field(tmp_path: Path) -> None:
    def fixture(levels: int) -> dict[str, object]:
        call = {"id": "c", "name": "echo", "arguments": {"message": _nested(levels - 1)}}
        steps = [
            {"response": {"type": "tool_calls", "tool_calls": [call]}},
            {"response": {"type": "text", "content": "{}"}},
        ]
        return minimal_fixture(
            turns=[{"user_input": "hi", "steps": steps}],
            expects={"response_json": {"/a": _nested(MAX_DEPTH + 1)}},
        )

    admit_case(tmp_path, {**fixture(MAX_DEPTH), "expects": {"exact_tool_calls": 1}})
    rejected = reject(tmp_path, fixture(MAX_DEPTH + 1))
    arguments = "/turns/0/steps/0/response/tool_calls/0/arguments"
    problem = only_problem_at(rejected, arguments + "/message" + "/0" * (MAX_DEPTH - 1))
    assert f"more than {MAX_DEPTH} levels" in problem.message
    assert problem.field.line is not None
    only_problem_at(rejected, "/expects/response_json/~1a" + "/0" * MAX_DEPTH)


def test_a_document_too_deep_for_the_parser_is_a_positioned_rejection(tmp_path: Path) -> None:
    text = '{"model_name": "m",\n "turns": ' + "[" * 100_000 + "]" * 100_000 + "}"
    rejected = admit_bytes(text.encode(), tmp_path / "deep.json")
    assert isinstance(rejected, RejectedFixture)
    (problem,) = rejected.problems
    assert f"more than {MAX_DEPTH} levels" in problem.message
    # The bracket that opens level MAX_DEPTH + 1 (the root object is level 1).
    assert position(problem) == (2, len(' "turns": ') + MAX_DEPTH)


def test_too_deep_measures_containers_only() -> None:
    assert too_deep({"a": [1, {"b": "deep text [[[["}]}) is None
    assert too_deep(_nested(3), limit=3) is None
    assert too_deep(_nested(4), limit=3) == (0, 0, 0)


def test_a_fixture_over_the_size_limit_is_rejected_without_being_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:  # a sparse gigabyte: reading it would show in the peak
        handle.truncate(1 << 30)
    tracemalloc.start()
    try:
        rejected = load_fixture(path, max_bytes=1000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(rejected, RejectedFixture)
    (problem,) = rejected.problems
    assert problem.describe("huge.json").startswith("huge.json:1:1: ")
    assert "1,073,741,824 bytes" in problem.message
    assert "1,000-byte limit" in problem.message
    assert "[eval].max_fixture_bytes" in problem.message
    assert rejected.text == ""
    assert peak < 1 << 20


def test_a_fixture_is_read_into_memory_of_its_own_size_not_the_limits(tmp_path: Path) -> None:
    path = write_fixture(tmp_path, "case.json", minimal_fixture())
    tracemalloc.start()
    try:
        raw = read_bounded(path, DEFAULT_MAX_FIXTURE_BYTES, limit=FIXTURE_LIMIT)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert raw == path.read_bytes()
    assert peak < 1 << 20  # asking for the whole 16 MiB bound would allocate it


def test_a_fixture_that_grows_while_read_is_read_whole_up_to_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "case.json"
    path.write_bytes(b"x" * 500)
    monkeypatch.setattr(files, "_size", lambda descriptor: 100)  # its size when looked at
    assert read_bounded(path, 1000, limit=FIXTURE_LIMIT) == b"x" * 500
    refused = read_bounded(path, 300, limit=FIXTURE_LIMIT)
    assert isinstance(refused, str)
    assert refused.startswith("the file is more than 300 bytes")


def test_a_read_that_comes_back_short_is_read_on_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # os.read may return fewer bytes than asked for; a fixture is never cut short.
    path = tmp_path / "case.json"
    path.write_bytes(bytes(range(256)) * 4)
    real_read = os.read
    monkeypatch.setattr(files.os, "read", lambda descriptor, count: real_read(descriptor, min(count, 7)))
    assert read_bounded(path, DEFAULT_MAX_FIXTURE_BYTES, limit=FIXTURE_LIMIT) == path.read_bytes()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_link_out_of_the_suite_is_never_opened(tmp_path: Path) -> None:
    # Its target is a named pipe: opening it would wait for a writer that never comes.
    outside = tmp_path / "private"
    outside.mkdir()
    os.mkfifo(outside / "pipe.json")
    suite = tmp_path / "suite"
    suite.mkdir()
    os.symlink(outside / "pipe.json", suite / "borrowed.json")
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.append(load_fixture(suite / "borrowed.json")), daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # it opened the pipe: let it go before failing
        with open(outside / "pipe.json", "wb"):
            pass
        reader.join(10)
        pytest.fail("the link's target was opened")
    (rejected,) = found
    assert isinstance(rejected, RejectedFixture)
    assert "outside its suite folder" in rejected.problems[0].message
    assert read_bounded(suite / "borrowed.json", 100, follow_links=False, limit=FIXTURE_LIMIT) is files.LINK


def test_the_default_size_limit_is_the_settings_default() -> None:
    assert EvalSettings().max_fixture_bytes == DEFAULT_MAX_FIXTURE_BYTES == 16 * 1024 * 1024


def test_the_size_limit_reaches_admission_from_the_run_options(tmp_path: Path) -> None:
    write_fixture(tmp_path, "case.json", minimal_fixture())
    (case,) = run_suite(tmp_path, RunOptions(max_fixture_bytes=50)).cases
    assert case.problems
    assert "50-byte limit" in case.problems[0].message
    (case,) = run_suite(tmp_path, RunOptions()).cases
    assert case.passed


def test_a_symlink_leading_out_of_the_suite_is_rejected_and_never_read(tmp_path: Path) -> None:
    outside = tmp_path / "private"
    write_fixture(outside, "settings.json", '{"token": "zeroclaw_user-PRIVATE-VALUE"}')
    suite = tmp_path / "suite"
    suite.mkdir()
    os.symlink(outside / "settings.json", suite / "borrowed.json")
    rejected = load_fixture(suite / "borrowed.json")
    assert isinstance(rejected, RejectedFixture)
    assert rejected.text == ""
    assert "outside its suite folder" in rejected.problems[0].message
    (report,) = run_suite(suite).cases
    assert report.source in ("", None)
    assert "PRIVATE" not in json.dumps([p.message for p in report.problems])


def test_a_symlink_within_the_suite_is_admitted(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write_fixture(suite / "shared", "case.json", minimal_fixture())
    os.symlink(suite / "shared" / "case.json", suite / "linked.json")
    assert isinstance(load_fixture(suite / "linked.json"), Case)


def test_an_empty_file_is_a_clear_rejection(tmp_path: Path) -> None:
    for content in (b"", b"  \n\t"):
        (problem,) = reject(tmp_path, content).problems
        assert problem.describe("case.json") == (
            "case.json:1:1: the file is empty; a fixture is a JSON object (see `zeroclaw eval new`)"
        )
