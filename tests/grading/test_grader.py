"""`zeroclaw_eval.grading.grader`: one graded result per declared check, never an exception."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import admit_case, record_of, run_grades, run_replay
from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.grading.result import BUDGET, REQUEST, RESPONSE, TOOL


def call(
    name: str, arguments: Any = None, result: str = "", success: bool = True, call_id: str = ""
) -> RecordedCall:
    """A recorded dispatch."""
    return RecordedCall(0, call_id, name, {} if arguments is None else arguments, result, success)


def test_response_contains_pass_and_fail() -> None:
    grades = run_grades({"response_contains": ["sunny", "rain"]}, record_of("It is sunny in Paris"))
    assert list(grades) == ["response_contains[0]", "response_contains[1]"]
    ok, bad = grades["response_contains[0]"], grades["response_contains[1]"]
    assert ok.passed
    assert not bad.passed
    assert bad.category == ok.category == RESPONSE
    assert ok.field.pointer == "/expects/response_contains/0"
    assert bad.field.pointer == "/expects/response_contains/1"
    assert '"rain"' in bad.detail
    assert '"It is sunny in Paris"' in bad.detail


def test_response_contains_on_empty_response_says_so() -> None:
    grades = run_grades({"response_contains": ["x"]}, record_of(""))
    assert not grades["response_contains[0]"].passed
    assert "empty" in grades["response_contains[0]"].detail


def test_response_not_contains_pass_and_fail() -> None:
    grades = run_grades({"response_not_contains": ["[IMAGE:", "error"]}, record_of("an error happened"))
    assert grades["response_not_contains[0]"].passed
    bad = grades["response_not_contains[1]"]
    assert not bad.passed
    assert bad.category == RESPONSE
    assert bad.field.pointer == "/expects/response_not_contains/1"
    assert '"error"' in bad.detail
    assert '"an error happened"' in bad.detail


def test_response_matches_pass_and_fail() -> None:
    grades = run_grades({"response_matches": [r"\b\d{4}\b", r"^done$"]}, record_of("Year 2024 ended"))
    assert grades["response_matches[0]"].passed
    bad = grades["response_matches[1]"]
    assert not bad.passed
    assert bad.category == RESPONSE
    assert bad.field.pointer == "/expects/response_matches/1"
    assert "^done$" in bad.detail
    assert "Year 2024 ended" in bad.detail


@pytest.mark.parametrize("pattern", ["(unclosed", r"(a)\1", r"x(?=y)"])
def test_invalid_regex_is_a_failed_check_not_an_exception(pattern: str) -> None:
    grades = run_grades({"response_matches": [pattern, "ok"]}, record_of("ok"))
    bad = grades["response_matches[0]"]
    assert not bad.passed
    assert "invalid regex" in bad.detail
    assert pattern in bad.detail
    assert grades["response_matches[1]"].passed  # grading went on after the bad pattern


def test_response_json_pass_and_fail() -> None:
    response = '{"status": "ok", "count": 2, "flag": true, "items": [{"id": 7}], "a/b": 1}'
    grades = run_grades(
        {
            "response_json": {
                "/status": "ok",
                "/count": 2.0,
                "/flag": 1,
                "/items/0/id": 7,
                "/a~1b": 1,
                "/absent": None,
                "/count ": 2,
            }
        },
        record_of(response),
    )
    assert grades['response_json["/status"]'].passed
    assert grades['response_json["/count"]'].passed  # 2 equals 2.0
    assert grades['response_json["/items/0/id"]'].passed
    assert grades['response_json["/a~1b"]'].passed
    flag = grades['response_json["/flag"]']
    assert not flag.passed  # true is not 1
    assert "true" in flag.detail
    assert "1" in flag.detail
    absent = grades['response_json["/absent"]']
    assert not absent.passed
    assert "no such member" in absent.detail
    assert not grades['response_json["/count "]'].passed
    assert all(g.category == RESPONSE for g in grades.values())
    assert grades['response_json["/status"]'].field.pointer == "/expects/response_json/~1status"
    assert grades['response_json["/a~1b"]'].field.pointer == "/expects/response_json/~1a~01b"


def test_response_json_wrong_value_detail_states_expected_and_found() -> None:
    grades = run_grades({"response_json": {"/status": "ok"}}, record_of('{"status": "failed"}'))
    bad = grades['response_json["/status"]']
    assert not bad.passed
    assert '"ok"' in bad.detail
    assert '"failed"' in bad.detail


def test_response_json_from_fenced_block() -> None:
    response = 'Here you go:\n```json\n{"status": "ok"}\n```\n'
    assert run_grades({"response_json": {"/status": "ok"}}, record_of(response))[
        'response_json["/status"]'
    ].passed


def test_response_json_root_pointer() -> None:
    grades = run_grades({"response_json": {"": [1, 2]}}, record_of("[1, 2.0]"))
    assert grades['response_json[""]'].passed


def test_response_that_is_not_json_fails_every_pointer() -> None:
    grades = run_grades({"response_json": {"/a": 1, "/b": 2}}, record_of("not json at all"))
    assert set(grades) == {'response_json["/a"]', 'response_json["/b"]'}
    for result in grades.values():
        assert not result.passed
        assert "response is not JSON" in result.detail


def test_a_response_nested_deeper_than_json_parses_is_not_json_not_a_crash() -> None:
    grades = run_grades({"response_json": {"/a": 1}}, record_of('{"a":' * 5_000 + "1" + "}" * 5_000))
    assert not grades['response_json["/a"]'].passed
    assert "response is not JSON" in grades['response_json["/a"]'].detail


def test_response_json_pointer_with_non_ascii_digit_does_not_raise() -> None:
    # A grader never raises: "/items/²" names no array element, so the check fails.
    grades = run_grades({"response_json": {"/items/\u00b2": 3}}, record_of('{"items": [1, 2, 3]}'))
    assert not grades['response_json["/items/\u00b2"]'].passed


def test_tools_used_and_not_used() -> None:
    calls = [call("echo", {"message": "a"}), call("file_read", {"path": "x"}, success=False)]
    grades = run_grades(
        {"tools_used": ["echo", "file_read", "list_dir"], "tools_not_used": ["file_write", "echo"]},
        record_of("x", calls),
    )
    assert grades["tools_used[0]"].passed
    assert grades["tools_used[1]"].passed  # a failed call is still a dispatch
    assert not grades["tools_used[2]"].passed
    assert "list_dir" in grades["tools_used[2]"].detail
    assert "echo, file_read" in grades["tools_used[2]"].detail
    assert grades["tools_not_used[0]"].passed
    assert not grades["tools_not_used[1]"].passed
    assert grades["tools_not_used[1]"].field.pointer == "/expects/tools_not_used/1"
    assert all(g.category == TOOL for g in grades.values())


def test_unknown_tool_call_counts_as_a_dispatch() -> None:
    calls = [call("no_such_tool", {}, "unknown tool", success=False)]
    grades = run_grades({"tools_used": ["no_such_tool"], "exact_tool_calls": 1}, record_of("x", calls))
    assert grades["tools_used[0]"].passed
    assert grades["exact_tool_calls"].passed


@pytest.mark.parametrize(
    ("key", "bound", "calls_made", "passed"),
    [
        ("min_tool_calls", 2, 2, True),
        ("min_tool_calls", 2, 1, False),
        ("min_tool_calls", 2, 3, True),
        ("max_tool_calls", 2, 2, True),
        ("max_tool_calls", 2, 3, False),
        ("max_tool_calls", 0, 0, True),
        ("max_tool_calls", 0, 1, False),
        ("exact_tool_calls", 2, 2, True),
        ("exact_tool_calls", 2, 1, False),
        ("exact_tool_calls", 2, 3, False),
    ],
)
def test_call_count_bounds_are_inclusive(key: str, bound: int, calls_made: int, passed: bool) -> None:
    calls = [call("echo", {"message": str(i)}) for i in range(calls_made)]
    grades = run_grades({key: bound}, record_of("x", calls))
    assert list(grades) == [key]
    result = grades[key]
    assert result.passed is passed
    assert result.category == TOOL
    assert result.field.pointer == f"/expects/{key}"
    assert f"{bound} tool call" in result.detail
    assert f"found {calls_made}" in result.detail


@pytest.mark.parametrize(
    ("expected", "successes", "passed"),
    [
        (True, [], True),
        (True, [True, True], True),
        (True, [True, False], False),
        (False, [], False),
        (False, [True], False),
        (False, [True, False], True),
    ],
)
def test_all_tools_succeeded(expected: bool, successes: list[bool], passed: bool) -> None:
    calls = [call("echo", {}, f"result {i}", success=ok) for i, ok in enumerate(successes)]
    result = run_grades({"all_tools_succeeded": expected}, record_of("x", calls))["all_tools_succeeded"]
    assert result.passed is passed
    assert result.category == TOOL
    assert result.field.pointer == "/expects/all_tools_succeeded"


def test_all_tools_succeeded_failure_names_the_failed_call() -> None:
    calls = [
        call("echo", {}, "fine"),
        call("file_read", {"path": "gone.txt"}, "no such file: gone.txt", False),
    ]
    result = run_grades({"all_tools_succeeded": True}, record_of("x", calls))["all_tools_succeeded"]
    assert not result.passed
    assert "file_read" in result.detail
    assert "no such file: gone.txt" in result.detail


def test_tool_arguments_contain_any_call() -> None:
    calls = [call("echo", {"message": "first"}), call("echo", {"message": "second"})]
    grades = run_grades(
        {
            "tool_arguments_contain": [
                {"tool": "echo", "needle": "second"},
                {"tool": "echo", "needle": "third"},
                {"tool": "file_read", "needle": "first"},
            ]
        },
        record_of("x", calls),
    )
    assert grades["tool_arguments_contain[0]"].passed
    missing = grades["tool_arguments_contain[1]"]
    assert not missing.passed
    assert '"third"' in missing.detail
    assert '{"message":"first"}' in missing.detail
    assert '{"message":"second"}' in missing.detail
    other_tool = grades["tool_arguments_contain[2]"]
    assert not other_tool.passed  # the needle is in an echo call, not a file_read call
    assert "never called" in other_tool.detail
    assert all(g.category == TOOL for g in grades.values())
    assert missing.field.pointer == "/expects/tool_arguments_contain/1"


def test_tool_arguments_contain_uses_the_needle_semantics() -> None:
    calls = [call("echo", {"message": '東京 "quoted"', "n": 1})]
    grades = run_grades(
        {
            "tool_arguments_contain": [
                {"tool": "echo", "needle": '東京 "quoted"'},
                {"tool": "echo", "needle": '"n":1'},
            ]
        },
        record_of("x", calls),
    )
    assert grades["tool_arguments_contain[0]"].passed
    assert grades["tool_arguments_contain[1]"].passed


def test_call_index_counts_calls_to_that_tool_only() -> None:
    calls = [
        call("echo", {"message": "alpha"}),
        call("file_read", {"path": "beta.txt"}),
        call("list_dir", {}),
        call("echo", {"message": "beta"}),
    ]
    grades = run_grades(
        {
            "tool_arguments_contain": [
                {"tool": "echo", "needle": "beta", "call_index": 1},
                {"tool": "echo", "needle": "alpha", "call_index": 0},
                {"tool": "echo", "needle": "beta", "call_index": 0},
                {"tool": "file_read", "needle": "beta", "call_index": 0},
            ]
        },
        record_of("x", calls),
    )
    assert grades["tool_arguments_contain[0]"].passed
    assert grades["tool_arguments_contain[1]"].passed
    assert not grades["tool_arguments_contain[2]"].passed
    assert grades["tool_arguments_contain[3]"].passed
    # What was found is the indexed call alone, the one the check looked at.
    assert grades["tool_arguments_contain[2]"].actual == {"message": "alpha"}


def test_call_index_past_the_calls_made_fails_and_lists_the_observed_calls() -> None:
    calls = [call("echo", {"message": "only once"}, "only once")]
    grades = run_grades(
        {
            "tool_arguments_contain": [{"tool": "echo", "needle": "only", "call_index": 1}],
            "tool_results_contain": [{"tool": "echo", "needle": "only", "call_index": 1}],
        },
        record_of("x", calls),
    )
    for check_id in ("tool_arguments_contain[0]", "tool_results_contain[0]"):
        result = grades[check_id]
        assert not result.passed
        assert result.actual is None  # there is no call 1 to have found anything in
        assert "call 1" in result.detail
        assert "1 time" in result.detail
        assert "only once" in result.detail


def test_tool_results_contain_reads_results_not_arguments() -> None:
    calls = [
        call("echo", {"message": "argument text"}, "result text"),
        call("file_read", {"path": "a.txt"}, "no such file: a.txt", success=False),
    ]
    grades = run_grades(
        {
            "tool_results_contain": [
                {"tool": "echo", "needle": "result text"},
                {"tool": "echo", "needle": "argument text"},
                {"tool": "file_read", "needle": "no such file", "call_index": 0},
            ]
        },
        record_of("x", calls),
    )
    assert grades["tool_results_contain[0]"].passed
    bad = grades["tool_results_contain[1]"]
    assert not bad.passed
    assert '"argument text"' in bad.detail
    assert '"result text"' in bad.detail
    assert grades["tool_results_contain[2]"].passed
    assert bad.field.pointer == "/expects/tool_results_contain/1"


def test_tool_arguments_contain_on_raw_argument_text() -> None:
    calls = [call("echo", '{"message": "broken', "malformed arguments", success=False)]
    grades = run_grades(
        {"tool_arguments_contain": [{"tool": "echo", "needle": '"message": "broken'}]}, record_of("x", calls)
    )
    assert grades["tool_arguments_contain[0]"].passed


def _steps(*tokens: tuple[int, int]) -> list[ModelStep]:
    return [ModelStep(0, None, [], i, o) for i, o in tokens]


@pytest.mark.parametrize(
    ("key", "bound", "passed"),
    [
        ("max_input_tokens", 30, True),
        ("max_input_tokens", 29, False),
        ("max_output_tokens", 12, True),
        ("max_output_tokens", 11, False),
        ("max_total_tokens", 42, True),
        ("max_total_tokens", 41, False),
        ("max_llm_calls", 2, True),
        ("max_llm_calls", 1, False),
        ("max_duration_ms", 250, True),
        ("max_duration_ms", 249, False),
    ],
)
def test_budget_bounds_are_inclusive(key: str, bound: int, passed: bool) -> None:
    # Steps report (10 in, 5 out) and (20 in, 7 out): 30 in, 12 out, 42 in all, 2 calls.
    record = record_of("x", steps=_steps((10, 5), (20, 7)), duration_ms=250.0)
    grades = run_grades({"budget": {key: bound}}, record)
    result = grades[f"budget.{key}"]
    assert result.passed is passed
    assert result.category == BUDGET
    assert result.field.pointer == f"/expects/budget/{key}"
    assert f"at most {bound}" in result.detail


def test_budget_detail_states_what_was_spent() -> None:
    record = record_of("x", steps=_steps((10, 5), (20, 7)))
    grades = run_grades({"budget": {"max_total_tokens": 40, "max_llm_calls": 1}}, record)
    assert "42" in grades["budget.max_total_tokens"].detail
    assert "spent 2" in grades["budget.max_llm_calls"].detail


@pytest.mark.parametrize(
    ("key", "bound", "detail", "spent"),
    [
        ("max_input_tokens", 29, "expected at most 29 input tokens; spent 30", 30),
        ("max_output_tokens", 11, "expected at most 11 output tokens; spent 12", 12),
        ("max_total_tokens", 41, "expected at most 41 tokens in all; spent 42", 42),
        ("max_llm_calls", 1, "expected at most 1 LLM calls; spent 2", 2),
        ("max_duration_ms", 250, "expected at most 250 ms of wall time; spent 250.123", 250.123),
    ],
)
def test_a_budget_overrun_says_the_bound_the_unit_and_what_was_spent(
    key: str, bound: int, detail: str, spent: float
) -> None:
    # Wall time is shown to the microsecond: 250.12345 ms is spent 250.123.
    record = record_of("x", steps=_steps((10, 5), (20, 7)), duration_ms=250.12345)
    result = run_grades({"budget": {key: bound}}, record)[f"budget.{key}"]
    assert (result.passed, result.detail) == (False, detail)
    assert (result.expected, result.actual) == (bound, spent)


def test_a_budget_kept_is_silent_without_words_and_an_overrun_never_is() -> None:
    record = record_of("x", steps=_steps((10, 5), (20, 7)))
    expects = Expects.model_validate({"budget": {"max_input_tokens": 30, "max_output_tokens": 11}})
    quiet = {g.check_id: g for g in grade(expects, record, words=False)}
    assert (quiet["budget.max_input_tokens"].passed, quiet["budget.max_input_tokens"].detail) == (True, "")
    assert quiet["budget.max_output_tokens"].detail == "expected at most 11 output tokens; spent 12"
    worded = {g.check_id: g for g in grade(expects, record, words=True)}
    assert worded["budget.max_input_tokens"].detail == "expected at most 30 input tokens; spent 30"


def test_budget_detail_survives_sums_too_long_to_print() -> None:
    # Two 4,300-digit counts (the most Python converts) sum to one it cannot print; a
    # live provider's usage is not bounded by admission, so the grader must not crash.
    huge = 10**4300 - 1
    record = record_of("x", steps=_steps((huge, huge)))
    grades = run_grades({"budget": {"max_total_tokens": 5, "max_input_tokens": 5}}, record)
    assert not grades["budget.max_total_tokens"].passed
    for check in ("budget.max_total_tokens", "budget.max_input_tokens"):
        assert grades[check].detail.endswith("spent a number of about 4,301 digits")


def test_empty_run_satisfies_only_vacuous_checks() -> None:
    empty = RunRecord()
    grades = run_grades(
        {
            "max_tool_calls": 0,
            "all_tools_succeeded": True,
            "response_not_contains": ["x"],
            "response_contains": ["x"],
            "tools_used": ["echo"],
            "min_tool_calls": 1,
        },
        empty,
    )
    assert grades["max_tool_calls"].passed
    assert grades["all_tools_succeeded"].passed
    assert grades["response_not_contains[0]"].passed
    assert not grades["response_contains[0]"].passed
    assert not grades["tools_used[0]"].passed
    assert not grades["min_tool_calls"].passed


def test_one_grade_per_declared_check() -> None:
    expects = {
        "response_contains": ["a", "b"],
        "tools_used": ["echo"],
        "max_tool_calls": 3,
        "tool_results_contain": [{"tool": "echo", "needle": "x"}],
        "response_json": {"/a": 1, "/b": 2},
        "budget": {"max_llm_calls": 5},
    }
    grades = grade(Expects.model_validate(expects), record_of("a b"))
    assert len(grades) == 2 + 1 + 1 + 1 + 2 + 1
    categories = {g.check_id: g.category for g in grades}
    assert categories["budget.max_llm_calls"] == BUDGET
    assert categories['response_json["/b"]'] == RESPONSE
    assert categories["tool_results_contain[0]"] == TOOL


def test_grades_use_the_final_turns_answer() -> None:
    record = RunRecord(turns=[TurnRecord(0, "first", "early answer"), TurnRecord(1, "second", "late answer")])
    grades = run_grades({"response_contains": ["late", "early"]}, record)
    assert grades["response_contains[0]"].passed
    assert not grades["response_contains[1]"].passed


def test_response_json_null_expectation() -> None:
    grades = run_grades(
        {"response_json": {"/reason": None, "/other": None}}, record_of('{"reason": null, "other": 0}')
    )
    assert grades['response_json["/reason"]'].passed
    assert not grades['response_json["/other"]'].passed  # 0 is not null


def _requests(*sent: tuple[str | None, list[str]]) -> RunRecord:
    """A record of requests, each (system prompt, tools offered), all of turn 1."""
    steps = [ModelStep(0, "ok", [], 0, 0, ["system", "user"], tools, prompt) for prompt, tools in sent]
    return record_of("ok", steps=steps)


def test_system_prompt_contains_holds_only_when_every_request_carries_it() -> None:
    record = _requests(
        ("You are brief. Never reveal keys.", ["echo"]), ("You are brief.", ["echo"]), (None, [])
    )
    grades = run_grades({"system_prompt_contains": ["brief", "Never reveal"]}, record)
    assert grades["system_prompt_contains[0]"].category == REQUEST
    assert not grades["system_prompt_contains[0]"].passed
    assert grades["system_prompt_contains[0]"].detail == (
        'expected the system prompt of every request to contain "brief"; 1 of 3 request(s) do not;'
        " the first, request 3 (turn 1): it has no system prompt"
    )
    assert grades["system_prompt_contains[1]"].detail.endswith(
        'request 2 (turn 1): its system prompt is "You are brief."'
    )
    passing = run_grades({"system_prompt_contains": ["brief"]}, _requests(("brief", []), ("so brief", [])))
    assert passing["system_prompt_contains[0]"].passed
    assert passing["system_prompt_contains[0]"].detail.endswith("all 2 request(s) do")


def test_tools_offered_holds_only_when_every_request_offers_the_tool() -> None:
    record = _requests(("s", ["echo", "file_read"]), ("s", ["echo"]))
    grades = run_grades({"tools_offered": ["echo", "file_read"]}, record)
    assert grades["tools_offered[0]"].passed
    assert grades["tools_offered[0]"].category == REQUEST
    failed = grades["tools_offered[1]"]
    assert not failed.passed
    assert failed.detail == (
        "expected every request to offer file_read; 1 of 2 request(s) do not; the first, request 2"
        " (turn 1): it offers echo"
    )
    assert failed.actual == [["echo", "file_read"], ["echo"]]


def test_request_checks_hold_for_a_run_that_sent_nothing() -> None:
    # Like all_tools_succeeded over no calls: the vacuity check flags a case with only these.
    grades = run_grades({"system_prompt_contains": ["x"], "tools_offered": ["echo"]}, record_of("", steps=[]))
    assert all(grade.passed for grade in grades.values())


def test_a_failing_check_is_located_at_its_key_where_its_value_sits_lines_below(tmp_path: Path) -> None:
    # Annotations and the HTML page point at the line that names the check.
    text = (
        '{\n  "model_name": "unit",\n  "turns": [{"user_input": "hi", "steps": [\n'
        '    {"response": {"type": "text", "content": "hello", "output_tokens": 5}}]}],\n'
        '  "expects": {\n    "response_contains": ["hello"],\n    "budget": {\n'
        '      "max_output_tokens":\n\n        1\n    }\n  }\n}\n'
    )
    report = run_replay(admit_case(tmp_path, text))
    (failed,) = report.failed_grades
    key_line = text.splitlines().index('      "max_output_tokens":') + 1
    assert (failed.check_id, failed.field.line, failed.field.col) == (
        "budget.max_output_tokens",
        key_line,
        7,
    )
