"""Agents that write the conversation otherwise, gated with the settings that describe
them: `tool_echo = "text"` (smolagents: calls echoed in the assistant's text, results
sent back as user messages, a turn closed by a `final_answer` call) and `history =
"turn"` (a CrewAI crew: each turn a conversation of its own), both with `user_input_match
= "contains"`. Each passes with its settings, fails without them saying which to set,
and its broken variants fail (`tests/support/text_agent.py`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import text_step as text, tool_call, tools_step, write_fixture
from tests.support.invoke import Runner, full_json_report

AGENT = Path(__file__).resolve().parents[2] / "support" / "text_agent.py"


def _final(answer: str, call_id: str) -> dict[str, Any]:
    return tools_step(tool_call("final_answer", {"answer": answer}, call_id))


EXPECTS: dict[str, Any] = {
    "tools_used": ["echo", "write_note"],
    "tool_arguments_contain": [{"tool": "write_note", "needle": "remember"}],
    "tool_results_contain": [{"tool": "echo", "needle": "hello"}, {"tool": "write_note", "needle": "saved"}],
    "response_contains": ["Saved your note"],
    "workspace": {"file_contains": {"note.txt": ["remember"]}},
}

# smolagents: every step a tool call, the two echoes of the first step sorted by id by the agent.
SMOLAGENTS: dict[str, Any] = {
    "model_name": "text-notes",
    "tools": ["echo", "write_note"],
    "turns": [
        {
            "user_input": "Echo hello twice",
            "steps": [
                tools_step(
                    tool_call("echo", {"message": "hello"}, "call_b"),
                    tool_call("echo", {"message": "hello again"}, "call_a"),
                ),
                _final("The echo tool said: hello", "call_f1"),
            ],
        },
        {
            "user_input": "Save a note saying remember",
            "steps": [
                tools_step(tool_call("write_note", {"text": "remember"}, "call_n")),
                _final("Saved your note.", "call_f2"),
            ],
        },
    ],
    "expects": EXPECTS,
}

CREW: dict[str, Any] = {
    "model_name": "crew-notes",
    "tools": ["echo", "write_note"],
    "turns": [
        {
            "user_input": "Echo hello",
            "steps": [tools_step(tool_call("echo", {"message": "hello"}, "call_1")), text("It said hello.")],
        },
        {
            "user_input": "Save a note saying remember",
            "steps": [
                tools_step(tool_call("write_note", {"text": "remember"}, "call_2")),
                text("Saved your note."),
            ],
        },
    ],
    "expects": EXPECTS,
}

SETTINGS = {
    "smolagents": 'user_input_match = "contains"\ntool_echo = "text"\n',
    "crew": 'user_input_match = "contains"\nhistory = "turn"\n',
}


def project(tmp_path: Path, style: str, settings: str | None = None) -> Path:
    write_fixture(
        tmp_path / "evals" / "regression", "notes.json", SMOLAGENTS if style == "smolagents" else CREW
    )
    config = SETTINGS[style] if settings is None else settings
    (tmp_path / "zeroclaw.toml").write_text(f"[eval]\n{config}", encoding="utf-8")
    return tmp_path


def run(cli: Runner, root: Path, style: str, *flags: str) -> dict[str, Any]:
    agent = " ".join([sys.executable, str(AGENT), "--style", style, *flags])
    case: dict[str, Any] = full_json_report(cli, root, "--agent-cmd", agent)["cases"][0]
    return case


def test_a_smolagents_style_agent_passes_and_each_tool_call_is_recorded_once(
    cli: Runner, tmp_path: Path
) -> None:
    case = run(cli, project(tmp_path, "smolagents"), "smolagents")
    assert case["status"] == "passed", case["error"] or case["grades"]
    calls = [
        (c["turn"], c["call_id"], c["name"], c["arguments"], c["result"]) for c in case["record"]["calls"]
    ]
    # The two results of one step come back joined in one observation: each call is
    # recorded with it whole, in the order the model made the calls (the agent sorted
    # them by id). The final answers are no tool the harness records: their observation
    # reaches the model only with the next turn's input, or never.
    assert calls == [
        (0, "call_b", "echo", {"message": "hello"}, "hello again\nhello"),
        (0, "call_a", "echo", {"message": "hello again"}, "hello again\nhello"),
        (1, "call_n", "write_note", {"text": "remember"}, "saved"),
    ]


def test_a_crew_style_agent_passes(cli: Runner, tmp_path: Path) -> None:
    case = run(cli, project(tmp_path, "crew"), "crew")
    assert case["status"] == "passed", case["error"] or case["grades"]
    assert [c["name"] for c in case["record"]["calls"]] == ["echo", "write_note"]


@pytest.mark.parametrize(
    ("style", "settings", "words"),
    [
        ("smolagents", 'user_input_match = "contains"\n', "the request echoes back none"),
        ("crew", 'user_input_match = "contains"\n', "turn 2 needs every earlier turn"),
        ("crew", 'history = "turn"\n', 'set user_input_match = "contains"'),
    ],
    ids=["smolagents-without-text-echo", "crew-without-turn-history", "crew-without-contains"],
)
def test_without_its_settings_the_agent_is_a_run_error(
    cli: Runner, tmp_path: Path, style: str, settings: str, words: str
) -> None:
    case = run(cli, project(tmp_path, style, settings), style)
    assert case["status"] == "error"
    assert words in case["error"]["message"]


@pytest.mark.parametrize("style", ["smolagents", "crew"])
@pytest.mark.parametrize(
    ("breaks", "words"),
    [
        ("echo-args", 'the request echoes that call back with "{}", as if the model had asked for them'),
        ("stale-input", 'turn 2\'s user input is "Save a note saying remember"'),
        # Asked after the turn's answer, the title request comes in that turn (a step the
        # script does not have) or, as the next turn has begun, in the next one (a
        # conversation that is not its): quoted either way.
        ("extra", '"A title for: '),
    ],
)
def test_a_broken_variant_is_a_run_error(
    cli: Runner, tmp_path: Path, style: str, breaks: str, words: str
) -> None:
    case = run(cli, project(tmp_path, style), style, "--break", breaks)
    assert case["status"] == "error", case["grades"]
    assert words in case["error"]["message"]


@pytest.mark.parametrize("style", ["smolagents", "crew"])
@pytest.mark.parametrize(
    ("breaks", "failed"),
    [
        ("garble", {"tool_results_contain[0]", "tool_results_contain[1]"}),
        (
            "skip",
            {"tool_results_contain[0]", "tool_results_contain[1]", 'workspace.file_contains["note.txt"][0]'},
        ),
    ],
)
def test_a_broken_variant_fails_its_checks(
    cli: Runner, tmp_path: Path, style: str, breaks: str, failed: set[str]
) -> None:
    case = run(cli, project(tmp_path, style), style, "--break", breaks)
    assert case["status"] == "failed", case["error"]
    assert {grade["check_id"] for grade in case["grades"] if not grade["passed"]} == failed
