"""`zeroclaw_eval.backends.capture`: a live run written back as a replay fixture that replays
to the same verdict."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import admitted, write_fixture
from zeroclaw_eval._support.redaction import REDACTED
from zeroclaw_eval.backends.capture import fixture_from_run, write_captured_fixture
from zeroclaw_eval.boundary.record import ModelStep, RunRecord
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
from zeroclaw_eval.report.model import CaseReport
from zeroclaw_eval.runner import RunOptions, run_case
from zeroclaw_eval.serve.routing import load_cases
from zeroclaw_eval.serve.server import ReplayServer

KEY = "sk-record-test-93b1d0c7e2"


ORIGINAL: dict[str, Any] = {
    "id": "ZC-42",
    "model_name": "recorded-case",
    "tools": ["file_read"],
    "setup": {"workspace_files": {f"keys/{KEY}.txt": f"token={KEY}", "notes.txt": "plain"}},
    "turns": [
        {"user_input": f"Use the key {KEY} to echo"},
        {"user_input": "And now?", "steps": [{"response": {"type": "text", "content": "old scripted"}}]},
    ],
    "expects": {
        "tools_used": ["echo"],
        "response_not_contains": [KEY],
        "workspace": {"file_exists": ["notes.txt"]},
    },
}


STEPS = [
    ModelStep(
        0, f"Echoing {KEY}.", [{"id": "c1", "name": "echo", "arguments": f'{{"message": "hi {KEY}"}}'}], 10, 4
    ),
    ModelStep(
        0,
        None,
        [
            {"id": "c2", "name": "echo", "arguments": "not json {"},
            {"id": "c3", "name": "echo", "arguments": "[1, 2]"},
        ],
        5,
        1,
    ),
    ModelStep(0, f"done with {KEY}", [], 7, 2),
    ModelStep(1, None, [], 3, 0),
]


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Case, dict[str, Any]]:
    case = admitted(write_fixture(tmp_path / "live", "recorded_case.json", ORIGINAL))
    record = RunRecord(steps=list(STEPS))
    return case, fixture_from_run(case, record, [KEY, ""])


def test_the_provider_responses_become_the_steps_of_each_turn(recorded: tuple[Case, dict[str, Any]]) -> None:
    _, fixture = recorded
    first, second = fixture["turns"]
    assert first["user_input"] == f"Use the key {REDACTED} to echo"
    assert [step["response"] for step in first["steps"]] == [
        {
            "type": "tool_calls",
            "content": f"Echoing {REDACTED}.",
            "tool_calls": [{"id": "c1", "name": "echo", "arguments": {"message": f"hi {REDACTED}"}}],
            "input_tokens": 10,
            "output_tokens": 4,
        },
        {
            "type": "tool_calls",
            "tool_calls": [
                {"id": "c2", "name": "echo", "arguments": "not json {"},
                {"id": "c3", "name": "echo", "arguments": "[1, 2]"},
            ],
            "input_tokens": 5,
            "output_tokens": 1,
        },
        {"type": "text", "content": f"done with {REDACTED}", "input_tokens": 7, "output_tokens": 2},
    ]
    # The old scripted step of turn 2 is replaced by what the provider actually said.
    assert second == {
        "user_input": "And now?",
        "steps": [{"response": {"type": "text", "content": "", "input_tokens": 3, "output_tokens": 0}}],
    }


def test_the_case_own_fields_are_kept_in_their_order(recorded: tuple[Case, dict[str, Any]]) -> None:
    _, fixture = recorded
    assert list(fixture) == list(ORIGINAL)
    assert fixture["id"] == "ZC-42"
    assert fixture["model_name"] == "recorded-case"
    assert fixture["tools"] == ["file_read"]
    assert fixture["expects"]["tools_used"] == ["echo"]
    assert fixture["expects"]["workspace"] == {"file_exists": ["notes.txt"]}


def test_secrets_are_scrubbed_everywhere_including_keys_of_objects(
    recorded: tuple[Case, dict[str, Any]],
) -> None:
    _, fixture = recorded
    text = json.dumps(fixture, ensure_ascii=False)
    assert KEY not in text
    assert fixture["setup"]["workspace_files"] == {
        f"keys/{REDACTED}.txt": f"token={REDACTED}",
        "notes.txt": "plain",
    }
    assert fixture["expects"]["response_not_contains"] == [REDACTED]


def test_the_written_recording_is_the_fixture_and_passes_admission(
    tmp_path: Path, recorded: tuple[Case, dict[str, Any]]
) -> None:
    case, fixture = recorded
    path = write_captured_fixture(tmp_path / "recorded" / "deeper", case, RunRecord(steps=list(STEPS)), [KEY])
    assert path == tmp_path / "recorded" / "deeper" / "recorded_case.json"
    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    assert json.loads(text) == fixture
    again = admitted(path)
    assert [len(turn.steps or ()) for turn in again.trace.turns] == [3, 1]


def _script(user_input: str, *steps: dict[str, Any]) -> dict[str, Any]:
    return {
        "model_name": "script",
        "turns": [{"user_input": user_input, "steps": list(steps)}],
        "expects": {"max_tool_calls": 5},
    }


def _echo(message: str) -> dict[str, Any]:
    call = {"id": "call_1", "name": "echo", "arguments": {"message": message}}
    return {"response": {"type": "tool_calls", "tool_calls": [call], "input_tokens": 40, "output_tokens": 12}}


def _text(content: str) -> dict[str, Any]:
    return {"response": {"type": "text", "content": content, "input_tokens": 60, "output_tokens": 9}}


SCRIPTS = {
    "passing": _script("Echo hello", _echo(f"hello {KEY}"), _text(f"The echo tool said: hello {KEY}")),
    "failing": _script("Echo goodbye", _echo("good bye"), _text("I echoed something.")),
    "denied": _script(
        "Write a note",
        {
            "response": {
                "type": "tool_calls",
                "tool_calls": [
                    {"id": "w1", "name": "file_write", "arguments": {"path": "n.txt", "content": "x"}}
                ],
            }
        },
        _text("Wrote the note."),
    ),
}


LIVE_CASES = {
    "passing": {
        "model_name": "live-passing",
        "turns": [{"user_input": "Echo hello"}],
        "expects": {
            "tools_used": ["echo"],
            "tool_results_contain": [{"tool": "echo", "needle": "hello"}],
            "response_contains": ["hello"],
            "budget": {"max_total_tokens": 500, "max_llm_calls": 2},
        },
    },
    "failing": {
        "model_name": "live-failing",
        "turns": [{"user_input": "Echo goodbye"}],
        "expects": {
            "tools_used": ["echo"],
            "tool_arguments_contain": [{"tool": "echo", "needle": "goodbye"}],
            "response_contains": ["goodbye"],
            "budget": {"max_llm_calls": 2},
        },
    },
    "denied": {
        "model_name": "live-denied",
        "tools": ["file_write"],
        "turns": [{"user_input": "Write a note"}],
        "expects": {"tools_used": ["file_write"], "all_tools_succeeded": True},
    },
}


@pytest.fixture
def provider_url(tmp_path: Path, serve: Callable[..., ReplayServer]) -> str:
    paths = [write_fixture(tmp_path / "scripts", f"{n}.json", s) for n, s in SCRIPTS.items()]
    return serve(load_cases(paths)).url


ALLOWED: frozenset[str] = frozenset()  # the live allowlist: echo only


def live_run(case: Case, url: str) -> CaseReport:
    # The model names no fixture: the server routes by the first user message.
    settings = ProviderSettings(base_url=url, model="gpt-live", api_key_env="RECORD_KEY", max_retries=0)
    options = RunOptions(mode="live", live=LiveOptions(settings, KEY, ALLOWED))

    return asyncio.run(run_case(case, options))


def record_and_replay(tmp_path: Path, name: str, url: str) -> tuple[CaseReport, CaseReport, str]:
    live_case = admitted(write_fixture(tmp_path / "live", f"{name}.json", LIVE_CASES[name]))
    live = live_run(live_case, url)
    assert live.record is not None
    path = write_captured_fixture(tmp_path / "recorded", live_case, live.record, [KEY], allowed=ALLOWED)
    assert path is not None, "nothing was recorded"
    replayed = asyncio.run(run_case(admitted(path)))
    return live, replayed, path.read_text(encoding="utf-8")


def verdicts(report: CaseReport) -> dict[str, bool]:
    return {grade.check_id: grade.passed for grade in report.grades}


def test_a_passing_live_run_records_a_fixture_that_replays_to_a_pass(
    tmp_path: Path, provider_url: str
) -> None:
    live, replayed, text = record_and_replay(tmp_path, "passing", provider_url)
    assert live.status == "passed", live.error
    assert replayed.status == "passed", replayed.error
    assert verdicts(replayed) == verdicts(live)
    assert replayed.record is not None
    assert live.record is not None
    assert replayed.record.input_tokens == live.record.input_tokens == 100
    assert KEY not in text
    steps = json.loads(text)["turns"][0]["steps"]
    assert steps[0]["response"]["tool_calls"][0]["arguments"] == {"message": f"hello {REDACTED}"}
    assert steps[1]["response"]["content"] == f"The echo tool said: hello {REDACTED}"


def test_a_failing_live_run_records_a_fixture_that_replays_to_the_same_failures(
    tmp_path: Path, provider_url: str
) -> None:
    live, replayed, _ = record_and_replay(tmp_path, "failing", provider_url)
    assert live.status == "failed"
    assert replayed.status == "failed"
    assert verdicts(replayed) == verdicts(live)
    assert {g.check_id for g in replayed.failed_grades} == {
        "tool_arguments_contain[0]",
        "response_contains[0]",
    }


def test_a_live_approval_denial_is_still_a_failure_when_the_recording_replays(
    tmp_path: Path, provider_url: str
) -> None:
    # Live, file_write is not on the (empty) allowlist, so the call is denied and the case
    # fails. Replay has no approval gate to deny it again, so the recording must not turn
    # that failure into a passing regression case: nothing is written for it.
    live_case = admitted(write_fixture(tmp_path / "live", "denied.json", LIVE_CASES["denied"]))
    live = live_run(live_case, provider_url)
    assert live.status == "error"
    assert live.error is not None
    assert "approval denied" in live.error.message
    assert live.record is not None
    assert (
        write_captured_fixture(tmp_path / "recorded", live_case, live.record, [KEY], allowed=ALLOWED) is None
    )
    assert not (tmp_path / "recorded").exists()


def test_tools_are_narrowed_to_what_the_live_sandbox_offered(tmp_path: Path) -> None:
    # A replay must offer what the live run offered: a tool the allowlist kept out was never
    # on offer live, so the recorded fixture does not list it either.
    data = {**ORIGINAL, "tools": ["file_read", "file_write", "list_dir"]}
    case = admitted(write_fixture(tmp_path / "live", "narrowed.json", data))
    record = RunRecord(steps=list(STEPS))
    narrowed = fixture_from_run(case, record, [KEY], allowed=["list_dir", "file_read"])
    assert narrowed["tools"] == ["file_read", "list_dir"]
    assert fixture_from_run(case, record, [KEY], allowed=[])["tools"] == []
    assert fixture_from_run(case, record, [KEY])["tools"] == ["file_read", "file_write", "list_dir"]


def test_doubles_of_tools_the_sandbox_kept_out_are_dropped_with_them(tmp_path: Path) -> None:
    # A double of a tool no longer in `tools` fails admission: the recording would not load.
    doubled = {"file_read": [{"result": "read"}], "list_dir": [{"result": "listed"}]}
    data = {**ORIGINAL, "tools": ["file_read", "list_dir"], "tool_doubles": doubled}
    case = admitted(write_fixture(tmp_path / "live", "doubled.json", data))
    record = RunRecord(steps=list(STEPS))
    narrowed = fixture_from_run(case, record, [KEY], allowed=["list_dir"])
    assert narrowed["tool_doubles"] == {"list_dir": [{"result": "listed"}]}
    assert "tool_doubles" not in fixture_from_run(case, record, [KEY], allowed=[])
    written = write_captured_fixture(tmp_path / "recorded", case, record, [KEY], allowed=["list_dir"])
    assert written is not None
    admitted(written)
