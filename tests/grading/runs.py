"""Runs to grade: every shipped regression fixture and one that declares the checks they
do not, each replayed through the real agent loop and then taken apart, changed and
overdone, so that the checks of every family are met passing and failing."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.support.builders import (
    admit_case,
    admitted,
    run_replay,
    scripted_fixture,
    text_step,
    tool_call,
    tools_step,
)
from zeroclaw_eval.boundary.record import RunRecord, TurnRecord
from zeroclaw_eval.cases.case import Case

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "evals" / "regression").glob("*.json"))

#: The checks the shipped fixtures do not declare (the request family, a trajectory, a
#: turn's answer, call indexes, JSON values), on a run of two turns and three calls.
EVERY_CHECK = scripted_fixture(
    [
        (
            "Echo hi, then twice",
            [
                tools_step(tool_call("echo", {"message": "hi"}, "c1"), tokens=(12, 3)),
                tools_step(tool_call("echo", {"message": "hi hi"}, "c2"), tokens=(20, 4)),
                text_step('{"said": "hi hi", "times": 2, "ok": true}', tokens=(30, 9)),
            ],
        ),
        ("And once more", [tools_step(tool_call("echo", {"message": "bye"}, "c3")), text_step("bye then")]),
    ],
    {
        "response_contains": ["bye"],
        "response_not_contains": ["sorry"],
        "response_matches": ["^bye"],
        "turn_response_contains": [{"turn": 0, "needle": '"times": 2'}, {"turn": 1, "needle": "then"}],
        "tools_used": ["echo"],
        "tools_not_used": ["file_write"],
        "min_tool_calls": 2,
        "max_tool_calls": 3,
        "exact_tool_calls": 3,
        "all_tools_succeeded": True,
        "tool_arguments_contain": [
            {"tool": "echo", "needle": "hi hi", "call_index": 1},
            {"tool": "echo", "needle": "bye"},
        ],
        "tool_results_contain": [{"tool": "echo", "needle": "hi", "call_index": 0}],
        "trajectory": {"mode": "strict", "calls": [{"tool": "echo"}, {"tool": "echo"}, {"tool": "echo"}]},
        "system_prompt_contains": ["Be brief"],
        "tools_offered": ["echo"],
        "budget": {"max_input_tokens": 62, "max_output_tokens": 16, "max_llm_calls": 5},
    },
)


def records(case: Case) -> dict[str, RunRecord]:
    """The case's replayed run, and that run with each thing a check reads taken away,
    changed or overdone."""
    record = run_replay(case).record
    assert record is not None
    silent = [TurnRecord(turn.index, turn.user_input, None) for turn in record.turns]
    briefed = [
        dataclasses.replace(step, system_prompt="Be brief.", offered_tools=["echo"]) for step in record.steps
    ]
    unoffered = [dataclasses.replace(step, system_prompt=None, offered_tools=[]) for step in record.steps]
    wrong = [dataclasses.replace(call, name="file_write", success=False) for call in record.calls]
    overdone = dataclasses.replace(
        record,
        turns=[TurnRecord(turn.index, turn.user_input, f"{turn.response} sorry") for turn in record.turns],
        calls=record.calls * 2 + wrong,
        steps=record.steps * 3,
        duration_ms=10**9,
    )
    return {
        "replayed": record,
        "briefed": dataclasses.replace(record, steps=briefed),
        "offered nothing": dataclasses.replace(record, steps=unoffered),
        "overdone": overdone,
        "nothing answered": dataclasses.replace(record, turns=silent),
        "no calls": dataclasses.replace(record, calls=[]),
        "no requests": dataclasses.replace(record, steps=[]),
        "empty": RunRecord(),
    }


def case_of(path: Path | None, folder: Path) -> Case:
    """The case of the shipped fixture at `path`, or (None) `EVERY_CHECK` admitted in `folder`."""
    return admitted(path) if path is not None else admit_case(folder, EVERY_CHECK)


#: The shipped regression fixtures, and None for `EVERY_CHECK`.
CASES = [*FIXTURES, None]
NAMES = [*(path.stem for path in FIXTURES), "every_check"]
