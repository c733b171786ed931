"""`zeroclaw eval run` verdicts: every expectation family and run behaviour, through the command.

One suite of small fixtures is written to disk and run once with `--format json`; each
test reads its cases from that report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import PASSING, text_step, tool_call, tools_step, write_fixture
from tests.support.invoke import Result, invoke


def case(
    expects: dict[str, Any], *steps: dict[str, Any], turns: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    return {
        "model_name": "e2e",
        **extra,
        "turns": turns or [{"user_input": "do it", "steps": list(steps)}],
        "expects": expects,
    }


ECHO_HELLO = (
    tools_step(tool_call("echo", {"message": "hello"}), tokens=(10, 5)),
    text_step("The echo said: hello", tokens=(10, 5)),
)
JSON_ANSWER = text_step('Here you go:\n```json\n{"status": "ok", "items": [1, 2.0], "flag": true}\n```')

# name -> (fixture, expected status, the failing check ids)
CASES: dict[str, tuple[dict[str, Any], str, set[str]]] = {
    "response_contains_pass": (case({"response_contains": ["hello"]}, *ECHO_HELLO), "passed", set()),
    "response_contains_fail": (
        case({"response_contains": ["goodbye"]}, *ECHO_HELLO),
        "failed",
        {"response_contains[0]"},
    ),
    "response_not_contains_pass": (
        case({"response_not_contains": ["error"], "response_contains": ["hello"]}, *ECHO_HELLO),
        "passed",
        set(),
    ),
    "response_not_contains_fail": (
        case({"response_not_contains": ["echo said"]}, *ECHO_HELLO),
        "failed",
        {"response_not_contains[0]"},
    ),
    "response_matches_pass": (
        case({"response_matches": ["^The echo said: \\w+$"]}, *ECHO_HELLO),
        "passed",
        set(),
    ),
    "response_matches_fail": (
        case({"response_matches": ["^\\d+$"]}, *ECHO_HELLO),
        "failed",
        {"response_matches[0]"},
    ),
    "response_json_pass": (
        case({"response_json": {"/status": "ok", "/items/1": 2, "/flag": True}}, JSON_ANSWER),
        "passed",
        set(),
    ),
    "response_json_fail": (
        case({"response_json": {"/status": "ok", "/flag": 1, "/missing": None}}, JSON_ANSWER),
        "failed",
        {'response_json["/flag"]', 'response_json["/missing"]'},
    ),
    "tools_used_pass": (case({"tools_used": ["echo"]}, *ECHO_HELLO), "passed", set()),
    "tools_used_fail": (
        case({"tools_used": ["list_dir"], "response_contains": ["hello"]}, *ECHO_HELLO),
        "failed",
        {"tools_used[0]"},
    ),
    "tools_not_used_pass": (
        case({"tools_not_used": ["file_write"], "tools_used": ["echo"]}, *ECHO_HELLO),
        "passed",
        set(),
    ),
    "tools_not_used_fail": (case({"tools_not_used": ["echo"]}, *ECHO_HELLO), "failed", {"tools_not_used[0]"}),
    "counts_pass": (
        case({"min_tool_calls": 1, "max_tool_calls": 1, "exact_tool_calls": 1}, *ECHO_HELLO),
        "passed",
        set(),
    ),
    "counts_fail": (
        case({"min_tool_calls": 2, "max_tool_calls": 3, "exact_tool_calls": 2}, *ECHO_HELLO),
        "failed",
        {"min_tool_calls", "exact_tool_calls"},
    ),
    "max_tool_calls_fail": (case({"max_tool_calls": 0}, *ECHO_HELLO), "failed", {"max_tool_calls"}),
    "all_tools_succeeded_pass": (case({"all_tools_succeeded": True}, *ECHO_HELLO), "passed", set()),
    "unknown_tool_is_a_failed_call": (
        case(
            {"all_tools_succeeded": False, "tools_used": ["web_search"], "exact_tool_calls": 1},
            tools_step(tool_call("web_search", {"q": "x"})),
            text_step("That tool is not available."),
        ),
        "passed",
        set(),
    ),
    "all_tools_succeeded_fail": (
        case(
            {"all_tools_succeeded": True},
            tools_step(tool_call("web_search", {"q": "x"})),
            text_step("That tool is not available."),
        ),
        "failed",
        {"all_tools_succeeded"},
    ),
    "tool_exception_is_fed_back": (
        case(
            {
                "tool_results_contain": [{"tool": "file_read", "needle": "no such file"}],
                "all_tools_succeeded": False,
            },
            tools_step(tool_call("file_read", {"path": "missing.txt"})),
            text_step("The file does not exist."),
            tools=["file_read"],
        ),
        "passed",
        set(),
    ),
    "malformed_arguments_are_a_failed_call": (
        case(
            {
                "tool_arguments_contain": [{"tool": "echo", "needle": "{not json"}],
                "tool_results_contain": [{"tool": "echo", "needle": "malformed arguments"}],
                "all_tools_succeeded": False,
                "response_contains": ["could not"],
            },
            tools_step(tool_call("echo", "{not json")),
            text_step("I could not call the tool."),
        ),
        "passed",
        set(),
    ),
    "arguments_and_results_pass": (
        case(
            {
                "tool_arguments_contain": [{"tool": "echo", "needle": '東京 "quoted"', "call_index": 0}],
                "tool_results_contain": [{"tool": "echo", "needle": '東京 "quoted"'}],
            },
            tools_step(tool_call("echo", {"message": '東京 "quoted"'})),
            text_step("done"),
        ),
        "passed",
        set(),
    ),
    "arguments_and_results_fail": (
        case(
            {
                "tool_arguments_contain": [{"tool": "echo", "needle": "goodbye"}],
                "tool_results_contain": [{"tool": "echo", "needle": "goodbye"}],
            },
            *ECHO_HELLO,
        ),
        "failed",
        {"tool_arguments_contain[0]", "tool_results_contain[0]"},
    ),
    "call_index_counts_per_tool": (
        case(
            {
                "tool_arguments_contain": [
                    {"tool": "echo", "needle": "first", "call_index": 0},
                    {"tool": "echo", "needle": "second", "call_index": 1},
                ],
                "exact_tool_calls": 3,
            },
            tools_step(tool_call("echo", {"message": "first"}, "c1"), tool_call("list_dir", {}, "c2")),
            tools_step(tool_call("echo", {"message": "second"}, "c3")),
            text_step("done"),
            tools=["list_dir"],
        ),
        "passed",
        set(),
    ),
    "call_index_beyond_calls": (
        case(
            {"tool_arguments_contain": [{"tool": "echo", "needle": "hello", "call_index": 1}]},
            *ECHO_HELLO,
        ),
        "failed",
        {"tool_arguments_contain[0]"},
    ),
    "multi_turn_ordering": (
        case(
            {
                "tool_arguments_contain": [
                    {"tool": "echo", "needle": "alpha", "call_index": 0},
                    {"tool": "echo", "needle": "beta", "call_index": 1},
                ],
                "response_contains": ["beta"],
                "response_not_contains": ["alpha"],
            },
            turns=[
                {
                    "user_input": "alpha",
                    "steps": [tools_step(tool_call("echo", {"message": "alpha"})), text_step("alpha")],
                },
                {
                    "user_input": "beta",
                    "steps": [tools_step(tool_call("echo", {"message": "beta"})), text_step("beta")],
                },
            ],
        ),
        "passed",
        set(),
    ),
    "workspace_pass": (
        case(
            {
                "workspace": {
                    "file_exists": ["notes", "notes/out.txt"],
                    "file_absent": ["draft.txt"],
                    "file_contains": {"notes/out.txt": ["zeroclaw_user", "example.com"]},
                },
            },
            tools_step(
                tool_call("file_write", {"path": "notes/out.txt", "content": "zeroclaw_user@example.com"})
            ),
            text_step("Saved."),
            tools=["file_write"],
        ),
        "passed",
        set(),
    ),
    "workspace_fail": (
        case(
            {
                "workspace": {
                    "file_exists": ["missing.txt"],
                    "file_absent": ["seed.txt"],
                    "file_contains": {"notes.txt": ["absent words"]},
                },
            },
            text_step("Nothing to do."),
            setup={"workspace_files": {"seed.txt": "seeded", "notes.txt": "other words"}},
        ),
        "failed",
        {
            "workspace.file_exists[0]",
            "workspace.file_absent[0]",
            'workspace.file_contains["notes.txt"][0]',
        },
    ),
    "budget_pass": (
        case(
            {
                "budget": {
                    "max_input_tokens": 20,
                    "max_output_tokens": 10,
                    "max_total_tokens": 30,
                    "max_llm_calls": 2,
                    "max_duration_ms": 60000,
                }
            },
            *ECHO_HELLO,
        ),
        "passed",
        set(),
    ),
    "budget_fail": (
        case({"budget": {"max_input_tokens": 19, "max_total_tokens": 29, "max_llm_calls": 1}}, *ECHO_HELLO),
        "failed",
        {"budget.max_input_tokens", "budget.max_total_tokens", "budget.max_llm_calls"},
    ),
    "over_specified_turn": (
        case({"response_contains": ["first"]}, text_step("first"), text_step("never asked for")),
        "error",
        set(),
    ),
    "under_specified_turn": (
        case({"tools_used": ["echo"]}, tools_step(tool_call("echo", {"message": "x"}))),
        "error",
        set(),
    ),
}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, dict[str, Any]]:
    suite = tmp_path_factory.mktemp("families")
    for name, (fixture, _status, _failing) in CASES.items():
        write_fixture(suite, f"{name}.json", fixture)
    result = invoke("eval", "run", "--suite", str(suite), "--format", "json", "--details", "all")
    return result, {c["name"]: c for c in result.json()["cases"]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_verdict_and_failing_checks(name: str, report: tuple[Result, dict[str, Any]]) -> None:
    _result, cases = report
    _fixture, status, failing = CASES[name]
    reported = cases[f"{name}.json"]
    assert reported["status"] == status, reported
    assert {g["check_id"] for g in reported["grades"] if not g["passed"]} == failing


def test_suite_exit_code_is_one_and_counts_match(report: tuple[Result, dict[str, Any]]) -> None:
    result, _cases = report
    assert result.code == 1
    counts = result.json()["counts"]
    expected = {
        s: sum(1 for _f, status, _x in CASES.values() if status == s) for s in ("passed", "failed", "error")
    }
    assert {k: counts[k] for k in expected} == expected


def failing(cases: dict[str, Any], name: str, check_id: str) -> dict[str, Any]:
    return next(g for g in cases[f"{name}.json"]["grades"] if g["check_id"] == check_id)


def test_call_index_beyond_calls_lists_observed_calls(report: tuple[Result, dict[str, Any]]) -> None:
    grade = failing(report[1], "call_index_beyond_calls", "tool_arguments_contain[0]")
    assert "echo was called 1 time(s)" in grade["detail"]
    assert '[0] echo: {"message":"hello"}' in grade["detail"]
    assert grade["field"]["pointer"] == "/expects/tool_arguments_contain/0"
    assert grade["field"]["line"] is not None


def test_dispatch_record_holds_every_call_in_order(report: tuple[Result, dict[str, Any]]) -> None:
    record = report[1]["call_index_counts_per_tool.json"]["record"]
    assert [(c["name"], c["call_id"], c["success"]) for c in record["calls"]] == [
        ("echo", "c1", True),
        ("list_dir", "c2", True),
        ("echo", "c3", True),
    ]
    assert record["calls"][0]["arguments"] == {"message": "first"}
    assert record["calls"][0]["result"] == "first"


def test_multi_turn_calls_carry_their_turn(report: tuple[Result, dict[str, Any]]) -> None:
    record = report[1]["multi_turn_ordering.json"]["record"]
    assert [(c["turn"], c["arguments"]["message"]) for c in record["calls"]] == [(0, "alpha"), (1, "beta")]
    assert [t["response"] for t in record["turns"]] == ["alpha", "beta"]


def test_unknown_tool_and_malformed_arguments_are_recorded(report: tuple[Result, dict[str, Any]]) -> None:
    unknown = report[1]["unknown_tool_is_a_failed_call.json"]["record"]["calls"]
    assert unknown[0]["name"] == "web_search"
    assert unknown[0]["success"] is False
    assert "unknown tool" in unknown[0]["result"]
    malformed = report[1]["malformed_arguments_are_a_failed_call.json"]["record"]["calls"]
    assert malformed[0]["arguments"] == "{not json"
    assert malformed[0]["success"] is False


@pytest.mark.parametrize(
    ("name", "words", "pointer"),
    [
        ("over_specified_turn", "1 scripted step(s) unconsumed", "/turns/0/steps/1"),
        ("under_specified_turn", "asked the model for step 2", "/turns/0/steps"),
    ],
)
def test_turn_script_divergence_is_a_run_error_naming_the_turn(
    name: str, words: str, pointer: str, report: tuple[Result, dict[str, Any]]
) -> None:
    error = report[1][f"{name}.json"]["error"]
    assert error["message"].startswith("turn 1:")
    assert words in error["message"]
    assert error["field"]["pointer"] == pointer
    assert error["field"]["line"] is not None


def test_case_workspaces_are_removed(tmp_path: Path) -> None:
    fixture = case(
        {"workspace": {"file_exists": ["a.txt"]}},
        tools_step(tool_call("file_write", {"path": "a.txt", "content": "x"})),
        text_step("ok"),
        tools=["file_write"],
    )
    write_fixture(tmp_path / "suite", "ws.json", fixture)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    result = invoke("eval", "run", "--suite", str(tmp_path / "suite"), env={"TMPDIR": str(scratch)})
    assert result.code == 0, result.stdout
    assert list(scratch.iterdir()) == []


def test_a_workspace_path_the_os_refuses_fails_its_check_and_every_fixture_is_reported(
    tmp_path: Path,
) -> None:
    # Once an OSError out of the grader: exit 2, no report at all, and the path (with its
    # newline) printed raw on stderr, where `::error::X` was a workflow command.
    long = "x" * 260 + "\n::error::X"
    write_fixture(tmp_path, "a_long.json", {**PASSING, "expects": {"workspace": {"file_exists": [long]}}})
    write_fixture(tmp_path, "b_fine.json", PASSING)
    result = invoke("eval", "run", "--suite", str(tmp_path))
    assert result.code == 1, result.stdout + result.stderr
    assert "File name too long" in result.stdout
    assert "✓ b_fine.json" in result.stdout
    assert "\n::error::" not in result.stdout + result.stderr
