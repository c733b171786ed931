"""Fuzzing a real run: a fixture whose scripted model text, tool arguments, results,
needles, names and file name are hostile is replayed by `zeroclaw eval run` under GitHub
Actions with every report written; the run ends in a verdict (never a traceback), and no
output lets that text act (see `tests.fuzz.outputs`)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, strategies as st

from tests.fuzz.budget import share
from tests.fuzz.hostile import hostile_text
from tests.fuzz.mutations import FILE_NAMES
from tests.fuzz.outputs import (
    EVERY_FILE_OUTPUT,
    check_annotations,
    check_log,
    check_no_terminal_escapes,
    check_outputs,
    under_actions,
)
from tests.support.invoke import invoke

#: Model and tool text: what a fixture file can hold (no lone surrogates, which it can
#: only write as escapes that admission rejects; `SCRIPTED_OR_ESCAPED` covers those).
TEXT = hostile_text(surrogates=False, max_pieces=3)
SCRIPTED_OR_ESCAPED = st.one_of(TEXT, TEXT, TEXT, hostile_text(max_pieces=2))


@st.composite
def hostile_fixtures(draw: st.DrawFn) -> dict[str, Any]:
    """A fixture that calls echo (and a tool it names itself) with hostile text, answers
    with hostile text, and checks hostile needles."""
    text = SCRIPTED_OR_ESCAPED
    calls = [{"id": draw(text), "name": "echo", "arguments": {"message": draw(text)}}]
    if draw(st.booleans()):
        calls.append(
            {"id": "c2", "name": draw(text), "arguments": draw(st.one_of(text, st.just("{not json")))}
        )
    expects: dict[str, Any] = {
        "response_contains": [draw(text)],
        "tool_arguments_contain": [{"tool": "echo", "needle": draw(text)}],
        "tool_results_contain": [{"tool": "echo", "needle": draw(text), "call_index": 0}],
    }
    if draw(st.booleans()):
        expects["response_json"] = {"/" + draw(TEXT): draw(text)}
    fixture: dict[str, Any] = {
        "model_name": draw(text),
        "turns": [
            {
                "user_input": draw(text),
                "steps": [
                    {"response": {"type": "tool_calls", "tool_calls": calls}},
                    {"response": {"type": "text", "content": draw(text)}},
                ],
            }
        ],
        "expects": expects,
    }
    if draw(st.booleans()):
        fixture["id"] = draw(text)
    return fixture


@share(0.5)
@given(fixture=hostile_fixtures(), name=FILE_NAMES)
def test_a_hostile_run_reports_harmlessly_in_every_format(fixture: dict[str, Any], name: bytes) -> None:
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root)
        suite = os.path.join(os.fsencode(root), b"suite")
        os.mkdir(suite)
        with open(os.path.join(suite, name), "wb") as stream:
            stream.write(json.dumps(fixture, indent=2).encode("utf-8"))
        summary = folder / "summary.md"
        result = invoke(
            "eval",
            "run",
            "--suite",
            "suite",
            "--no-color",
            "--no-progress",
            *EVERY_FILE_OUTPUT,
            cwd=folder,
            env=under_actions(folder, summary),
        )
        assert result.code in (0, 1), result.stderr[-2000:]
        check_log(result.stdout)
        check_no_terminal_escapes(result.stdout)
        check_annotations(result.stderr)
        check_outputs(folder)
        summary.read_bytes().decode("utf-8")
