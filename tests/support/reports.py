"""Reports the reporter tests share: one with a passing, a failing, an errored and a
rejected case built from objects (hostile text everywhere), and the same four statuses
run for real from fixtures on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import line_col, text_step, tool_call, tools_step
from tests.support.ci_log import HOSTILE
from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.cases.location import FieldRef, FixtureProblem
from zeroclaw_eval.grading.result import BUDGET, RESPONSE, TOOL, GradeResult
from zeroclaw_eval.report.model import CaseError, CaseReport, SuiteReport
from zeroclaw_eval.runner import run_suite

PASSING_SOURCE = """{
  "model_name": "passing-model",
  "expects": {
    "response_contains": [
      "pong"
    ]
  }
}
"""
FAILING_SOURCE = """{
  "model_name": "failing-model",
  "expects": {
    "response_contains": [
      "needle-one",
      "needle-two"
    ],
    "tool_arguments_contain": [
      {
        "tool": "echo",
        "needle": "nope"
      }
    ]
  }
}
"""
ERROR_SOURCE = """{
  "model_name": "erroring-model",
  "turns": [
    {
      "user_input": "Read todo.txt",
      "steps": []
    }
  ],
  "expects": {
    "response_contains": [
      "needle-err"
    ]
  }
}
"""
REJECTED_SOURCE = """{
  "model_name": "rejected-model",
  "expects": {
    "response_contians": [
      "x"
    ]
  }
}
"""
SUITE = "evals/regression"
#: The agent's frames the errored case keeps (its last line, the exception, follows).
AGENT_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/home/zeroclaw_user/agent.py", line 12, in run_turn\n'
    "    raise ValueError(text)\n"
    "ValueError: "
)


def at(source: str, fragment: str, pointer: str) -> FieldRef:
    """The field `fragment` (on one line) of `source`, located independently."""
    line, col = line_col(source, fragment)
    return FieldRef(pointer, line, col, line, col + len(fragment))


def spanning(source: str, first: str, last: str, pointer: str) -> FieldRef:
    """A field from `first` to the end of the next `last` after it (several lines)."""
    start = source.index(first)
    end = source.index(last, start) + len(last)

    def position(offset: int) -> tuple[int, int]:
        before = source[:offset]
        return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1

    return FieldRef(pointer, *position(start), *position(end))


def every_status_report(hostile: str = HOSTILE, root: str = "/nonexistent/repo") -> SuiteReport:
    """Cases in order: passing, failing (hostile text everywhere), errored, rejected."""
    passing = CaseReport(
        "a_passing.json",
        f"{SUITE}/a_passing.json",
        "passing-model",
        [GradeResult("response_contains[0]", RESPONSE, True, "found it", FieldRef("/expects/rc/0"), "pong")],
        duration_ms=3.25,
        record=RunRecord(turns=[TurnRecord(0, "ping?", "pong")], steps=[ModelStep(0, "pong", [], 3, 1)]),
    )
    arguments = {"message": hostile}
    failing = CaseReport(
        "b_failing.json",
        f"{SUITE}/b_failing.json",
        "failing-model",
        [
            GradeResult(
                "response_contains[0]",
                RESPONSE,
                False,
                f'expected the final response to contain "needle-one"; found {hostile}',
                at(FAILING_SOURCE, '"needle-one"', "/expects/response_contains/0"),
                "needle-one",
                hostile,
            ),
            GradeResult(
                "response_contains[1]", RESPONSE, True, "ok", FieldRef("/expects/response_contains/1")
            ),
            GradeResult(
                "tool_arguments_contain[0]",
                TOOL,
                False,
                f'expected the arguments of call 0 to echo to contain "nope"; found {hostile}',
                spanning(FAILING_SOURCE, '{\n        "tool"', "}", "/expects/tool_arguments_contain/0"),
                "nope",
                [arguments],
            ),
        ],
        duration_ms=12.5,
        record=RunRecord(
            turns=[TurnRecord(0, f"Echo {hostile}", hostile)],
            steps=[
                ModelStep(
                    0, None, [{"id": "call_1", "name": "echo", "arguments": json.dumps(arguments)}], 40, 12
                ),
                ModelStep(0, hostile, [], 58, 10),
            ],
            calls=[RecordedCall(0, "call_1", "echo", arguments, hostile, True)],
            duration_ms=12.5,
        ),
        source=FAILING_SOURCE,
    )
    errored = CaseReport(
        "c_error.json",
        f"{SUITE}/c_error.json",
        "erroring-model",
        [
            GradeResult(
                "response_contains[0]",
                RESPONSE,
                False,
                "expected the final response to contain needle-err; the final response is empty",
                at(ERROR_SOURCE, '"needle-err"', "/expects/response_contains/0"),
                "needle-err",
                "",
            )
        ],
        CaseError(
            f"turn 1: the agent raised ValueError: {hostile}",
            at(ERROR_SOURCE, '"steps"', "/turns/0/steps"),
            AGENT_TRACEBACK + hostile,
        ),
        duration_ms=7.0,
        record=RunRecord(
            turns=[TurnRecord(0, "Read todo.txt", None)],
            steps=[
                ModelStep(
                    0,
                    None,
                    [{"id": "call_9", "name": "file_read", "arguments": '{"path": "todo.txt"}'}],
                    20,
                    8,
                )
            ],
            calls=[
                RecordedCall(0, "call_9", "file_read", {"path": "todo.txt"}, "no such file: todo.txt", False)
            ],
            duration_ms=7.0,
        ),
        source=ERROR_SOURCE,
    )
    rejected = CaseReport(
        "d_rejected.json",
        f"{SUITE}/d_rejected.json",
        "rejected-model",
        problems=[
            FixtureProblem(
                at(REJECTED_SOURCE, '"response_contians"', "/expects/response_contians"),
                f"unknown expectation key; {hostile}",
            )
        ],
        source=REJECTED_SOURCE,
    )
    return SuiteReport(SUITE, "replay", [passing, failing, errored, rejected], 30.0, "9.9.9", root)


REAL_FIXTURES: dict[str, dict[str, Any]] = {
    "a_passing.json": {
        "model_name": "a-passing",
        "turns": [
            {
                "user_input": "Echo pong",
                "steps": [tools_step(tool_call("echo", {"message": "pong"}, "call_1")), text_step("pong")],
            }
        ],
        "expects": {"tool_results_contain": [{"tool": "echo", "needle": "pong", "call_index": 0}]},
    },
    "b_failing.json": {
        "model_name": "b-failing",
        "turns": [
            {
                "user_input": f"Echo {HOSTILE}",
                "steps": [tools_step(tool_call("echo", {"message": HOSTILE}, "call_1")), text_step(HOSTILE)],
            }
        ],
        "expects": {
            "tools_used": ["echo"],
            "response_contains": ["needle-one"],
            "tool_arguments_contain": [{"tool": "echo", "needle": "nope", "call_index": 0}],
        },
    },
    "c_error.json": {
        "model_name": "c-error",
        "turns": [
            {
                "user_input": "Echo twice",
                "steps": [tools_step(tool_call("echo", {"message": "once"}, "call_1"))],
            }
        ],
        "expects": {"response_contains": ["needle-err"]},
    },
    "d_rejected.json": {
        "model_name": "d-rejected",
        "turns": [{"user_input": "hi", "steps": [text_step("hi")]}],
        "expects": {"response_contians": ["hi"]},
    },
}


def run_every_status_suite(repo: Path, monkeypatch: pytest.MonkeyPatch) -> SuiteReport:
    """Write `REAL_FIXTURES` into `repo/evals/regression` and run them from `repo`."""
    suite = repo / SUITE
    suite.mkdir(parents=True, exist_ok=True)
    for name, data in REAL_FIXTURES.items():
        (suite / name).write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    monkeypatch.chdir(repo)
    report = run_suite(Path(SUITE))
    assert [c.status for c in report.cases] == ["passed", "failed", "error", "rejected"]
    return report


def written_fixture_text(repo: Path, name: str) -> str:
    """The text of a fixture written by `run_every_status_suite`."""
    return (repo / SUITE / name).read_text(encoding="utf-8")


def grade_result(check_id: str, category: str, passed: bool, **extra: Any) -> GradeResult:
    """A verdict on `check_id`; a failing one is located at line 3."""
    return GradeResult(
        check_id,
        category,
        passed,
        f"detail of {check_id}",
        FieldRef(f"/expects/{check_id}", 3, 5, 3, 9) if not passed else FieldRef(f"/expects/{check_id}"),
        **extra,
    )


def passing_case(name: str = "pass.json") -> CaseReport:
    """A case whose two checks passed."""
    return CaseReport(
        name,
        f"evals/{name}",
        "passing",
        [grade_result("response_contains[0]", RESPONSE, True), grade_result("exact_tool_calls", TOOL, True)],
    )


def failing_case() -> CaseReport:
    """A case with two of four checks failed (a response and a budget check)."""
    return CaseReport(
        "fail.json",
        "evals/fail.json",
        "failing",
        [
            grade_result("response_contains[0]", RESPONSE, True),
            grade_result("response_contains[1]", RESPONSE, False, expected="x", actual="y"),
            grade_result("tools_used[0]", TOOL, True),
            grade_result("budget.max_llm_calls", BUDGET, False, expected=1, actual=2),
        ],
    )


def error_case() -> CaseReport:
    """A case whose run errored after one passing check."""
    record = RunRecord(
        turns=[TurnRecord(0, "hi", None)],
        steps=[ModelStep(0, None, [{"id": "c1", "name": "echo", "arguments": '{"message":"東京"}'}], 5, 6)],
        calls=[RecordedCall(0, "c1", "echo", {"message": "東京"}, "東京", True)],
        duration_ms=12.5,
    )
    return CaseReport(
        "error.json",
        "evals/error.json",
        "erroring",
        [grade_result("tools_used[0]", TOOL, True)],
        CaseError("turn 1: the agent raised ValueError: boom", FieldRef("/turns/0", 4, 5, 9, 6)),
        duration_ms=12.5,
        record=record,
    )


def rejected_case() -> CaseReport:
    """A case whose fixture was rejected."""
    problem = FixtureProblem(FieldRef("/expects/tool_used", 6, 5, 6, 16), "unknown expectation key")
    return CaseReport("rejected.json", "evals/rejected.json", problems=[problem])
