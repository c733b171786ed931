"""What every check says, held as a golden file: for runs that meet each check passing
and failing, each check's verdict, the value it expected, the value it found and its
words, as every report shows them. Any change to a check's words or values shows up as
a diff here.

Refresh the golden file after an intended change (then read the diff before committing):

    .venv/bin/python -m pytest tests/grading/test_grades_golden.py --update-golden
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from tests.grading.runs import FIXTURES, case_of, records
from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.tools.workspace import Workspace

GOLDEN = Path(__file__).resolve().parent / "golden" / "grades.txt"
#: The checks the shipped fixtures hold beyond those of `EVERY_CHECK` (None): JSON
#: values, an answer in a fenced block, a failed call fed back, a multi-turn answer.
SHOWN = [
    None,
    *(
        path
        for path in FIXTURES
        if path.stem
        in (
            "json_answer_values_compared_as_typed_json",
            "json_answer_in_fenced_block",
            "file_read_missing_file_failure_fed_back",
            "multi_turn_final_response_is_last_turn",
        )
    ),
]


#: Workspace checks on every kind of path: a file, a file that is no UTF-8, a non-ASCII
#: name, a folder, one missing, one outside, one the OS refuses, one holding a newline.
LONG = "x" * 300  # longer than any file name the OS takes
WORKSPACE = {
    "file_exists": ["out.txt", "missing.txt", "../outside.txt", "ünï.txt", LONG, "a\nb"],
    "file_absent": ["missing.txt", "out.txt", "/etc/passwd", LONG],
    "file_contains": {
        "out.txt": ["done", "nope"],
        "latin1.txt": ["ok", "\ufffd"],
        "ünï.txt": ["ü"],
        "folder": ["x"],
        "missing.txt": ["x"],
        f"out.txt/{LONG}": ["x"],
    },
}


#: A run the fixtures cannot make: an empty answer, a JSON answer short of a member, raw
#: argument text, several tools offered; and checks on it in every trajectory mode.
def _entry(tool: str, **more: Any) -> dict[str, Any]:
    return {"tool": tool, **more}


ODD_EXPECTS = {
    "turn_response_contains": [{"turn": 0, "needle": "x"}],
    "response_json": {"/a": 1, "/b/c": "x", "": {"a": 2}},
    "tools_offered": ["lookup"],
    "system_prompt_contains": ["X"],
    "tool_arguments_contain": [{"tool": "lookup", "needle": "zzz"}],
}
ODD_TRAJECTORIES = [
    {
        "mode": "strict",
        "calls": [_entry("echo", args={"m": 1}, args_match="subset", status="ok"), _entry("lookup")],
    },
    {"mode": "unordered", "calls": [_entry("lookup", status="error"), _entry("echo", args={"m": 1})]},
    {"mode": "subset", "calls": [_entry("echo", args={"m": 2}, args_match=["m"])]},
    {"mode": "superset", "calls": [_entry("nope", args={"m": 1}, args_match="superset")]},
]


def _odd_run() -> RunRecord:
    calls = [
        RecordedCall(0, "c1", "echo", {"m": 1, "n": 2}, "1", True),
        RecordedCall(0, "c2", "lookup", '{"id": 7', "bad arguments", False),
    ]
    steps = [ModelStep(0, None, [], sent_roles=["user"], offered_tools=["echo", "file_read"])]
    return RunRecord(
        turns=[TurnRecord(0, "hi", ""), TurnRecord(1, "and?", '{"a": 2}')], steps=steps, calls=calls
    )


def _workspace(folder: Path) -> Workspace:
    root = folder / "ws"
    (root / "folder").mkdir(parents=True)
    (root / "out.txt").write_text("done ✓", encoding="utf-8")
    (root / "latin1.txt").write_bytes(b"caf\xe9 ok")
    (root / "ünï.txt").write_text("ü", encoding="utf-8")
    return Workspace(root)


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=repr)


def _grades(tmp_path: Path) -> str:
    lines: list[str] = []
    for path in SHOWN:
        case = case_of(path, tmp_path)
        for name, record in records(case).items():
            # Wall time is never the same twice: each run is said to have taken 7 ms, an
            # overdone one a thousand seconds.
            record = dataclasses.replace(record, duration_ms=7.0 if record.duration_ms < 10**6 else 10**6)
            lines.append(f"## {path.stem if path else 'every_check'} / {name}")
            lines.extend(_lines(grade(case.trace.expects, record, None, words=True)))
            lines.append("")
    odd = _odd_run()
    lines.append("## odd run")
    lines.extend(_lines(grade(Expects.model_validate(ODD_EXPECTS), odd, None, words=True)))
    for trajectory in ODD_TRAJECTORIES:
        lines.extend(_lines(grade(Expects.model_validate({"trajectory": trajectory}), odd, None, words=True)))
        lines.extend(_lines(grade(Expects.model_validate({"trajectory": trajectory}), RunRecord(), None)))
    lines.append("")
    expects = Expects.model_validate({"workspace": WORKSPACE})
    for name, workspace in (("workspace", _workspace(tmp_path)), ("no workspace", None)):
        lines.append(f"## {name}")
        lines.extend(_lines(grade(expects, RunRecord(), workspace, words=True)))
        lines.append("")
    return "\n".join(lines)


def _lines(grades: list[GradeResult]) -> list[str]:
    lines = []
    for result in grades:
        verdict = "pass" if result.passed else "FAIL"
        lines.append(f"{verdict} {result.check_id} [{result.category}] at {result.field.pointer}")
        lines.append(f"    expected {_value(result.expected)}; found {_value(result.actual)}")
        lines.append(f"    {result.detail}")
    return lines


def test_every_checks_words_and_values_match_the_golden_file(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    text = _grades(tmp_path)
    if request.config.getoption("--update-golden"):
        GOLDEN.write_text(text, encoding="utf-8", newline="")
    assert GOLDEN.read_text(encoding="utf-8") == text, (
        "grades.txt differs from its golden file; refresh it with"
        " `python -m pytest tests/grading/test_grades_golden.py --update-golden` and read the diff"
    )
