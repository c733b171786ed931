"""What the tests build fixtures from: fixture data, steps, files on disk, admission, and
position arithmetic written apart from the package (so the scanner is never checked
against itself)."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zeroclaw_eval.boundary.record import ModelStep, RecordedCall, RunRecord, TurnRecord
from zeroclaw_eval.cases.admission import load_fixture
from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.cases.location import FixtureProblem
from zeroclaw_eval.cases.model import Expects
from zeroclaw_eval.grading.grader import grade
from zeroclaw_eval.grading.result import GradeResult
from zeroclaw_eval.report.model import CaseReport
from zeroclaw_eval.runner import RunOptions, run_case
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS, tools_for_case
from zeroclaw_eval.tools.tool import ToolOutcome
from zeroclaw_eval.tools.toolbox import ToolBox
from zeroclaw_eval.tools.workspace import Workspace

_MINIMAL: dict[str, Any] = {
    "model_name": "minimal",
    "turns": [
        {
            "user_input": "Say hello",
            "steps": [{"response": {"type": "text", "content": "hello there"}}],
        }
    ],
    "expects": {"response_contains": ["hello"]},
}

#: A fixture that passes: one echo dispatch whose result carries the value.
PASSING: dict[str, Any] = {
    "model_name": "echo-hello",
    "turns": [
        {
            "user_input": "Echo hello",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [{"id": "c1", "name": "echo", "arguments": {"message": "hello"}}],
                    }
                },
                {"response": {"type": "text", "content": "hello"}},
            ],
        }
    ],
    "expects": {"exact_tool_calls": 1, "tool_results_contain": [{"tool": "echo", "needle": "hello"}]},
}

#: `PASSING` with a check its scripted answer fails.
FAILING: dict[str, Any] = {**PASSING, "expects": {"response_contains": ["goodbye"]}}


#: A model answer that tries every way to forge a workflow command or inject markup.
HOSTILE_ANSWER = (
    "::error file=x.py,line=1::forged\n::stop-commands::abc\n::add-mask::secret\r::warning::lone-cr"
    " %0A ##[error]legacy </script><script>alert(1)</script>"
)
#: A fixture whose scripted answer is `HOSTILE_ANSWER` and fails its checks (as text:
#: tests point at its lines).
HOSTILE_ANSWER_FIXTURE = """{
  "model_name": "hostile-answer",
  "turns": [{"user_input": "hi", "steps": [
    {"response": {"type": "text", "content": HOSTILE}}
  ]}],
  "expects": {
    "response_contains": ["the expected answer"],
    "max_tool_calls": 0
  }
}
""".replace("HOSTILE", json.dumps(HOSTILE_ANSWER))
#: A fixture rejected for a misspelt expectation key.
TYPO_FIXTURE = """{
  "model_name": "typo",
  "turns": [{"user_input": "hi", "steps": [{"response": {"type": "text", "content": "x"}}]}],
  "expects": {
    "tool_used": ["echo"]
  }
}
"""


#: The `turns` line of `fixture_text`: one turn answered "ok".
TURNS_LINE = (
    '  "turns": [{"user_input": "hi", "steps": [{"response": {"type": "text", "content": "ok"}}]}],\n'
)


def fixture_text(expects: str, *, extra: str = "", turns: str = TURNS_LINE) -> str:
    """A fixture as text, one top-level key a line (so each field's line is known): the
    `turns` line, any `extra` lines, and the `expects` block given as text."""
    return '{\n  "model_name": "m",\n' + turns + extra + '  "expects": ' + expects + "\n}\n"


def echo_fixture(expects: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """`PASSING` (one echo of hello) with other `expects` and extra top-level keys."""
    return {**PASSING, **extra, "expects": expects}


#: A zeroclaw.toml with a live provider (every setting given) and a second provider.
PROVIDER_CONFIG = """
[eval]
live_provider = "local"
live_allowed_tools = ["file_read"]

[providers.models.local]
base_url = "http://127.0.0.1:8765/v1"
model = "gpt-4o-mini"
api_key_env = "LOCAL_LLM_KEY"
headers = { "X-Team" = "evals" }
temperature = 0.2
max_tokens = 512
request_timeout_secs = 30.5
max_retries = 5

[providers.models.other]
base_url = "https://api.example.com/v1"
model = "m"
"""


def minimal_fixture(**overrides: Any) -> dict[str, Any]:
    """A valid fixture as data; top-level keys in `overrides` replace the defaults."""
    data = copy.deepcopy(_MINIMAL)
    data.update(overrides)
    return data


def write_fixture(folder: Path, name: str, content: dict[str, Any] | str | bytes) -> Path:
    """Write a fixture file into `folder` (made if missing): data is dumped as indented JSON
    with non-ASCII kept, text and bytes are written as they are."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_bytes(content.encode("utf-8"))
    else:
        path.write_bytes(json.dumps(content, ensure_ascii=False, indent=2).encode("utf-8"))
    return path


def admit(
    directory: Path, content: dict[str, Any] | str | bytes, name: str = "case.json"
) -> Case | RejectedFixture:
    """Write a fixture and load it the way the runner does (built-in tools known)."""
    return load_fixture(write_fixture(directory, name, content), BUILTIN_TOOLS)


def admit_case(directory: Path, content: dict[str, Any] | str | bytes, name: str = "case.json") -> Case:
    """Admit a fixture that must be admitted."""
    result = admit(directory, content, name)
    assert isinstance(result, Case), [(p.field, p.message) for p in getattr(result, "problems", [])]
    return result


def admit_with_project_tools(directory: Path, content: dict[str, Any]) -> Case:
    """Admit a fixture that names tools of the project's own (admitted whatever their
    names, as with a project's tools configured), which must be admitted."""
    result = load_fixture(write_fixture(directory, "case.json", content), None)
    assert isinstance(result, Case), [(p.field, p.message) for p in getattr(result, "problems", [])]
    return result


def admitted(path: Path) -> Case:
    """Load a fixture file that must be admitted."""
    result = load_fixture(path, BUILTIN_TOOLS)
    assert isinstance(result, Case), f"{path.name} was rejected: {getattr(result, 'problems', None)}"
    return result


def reject(
    directory: Path, content: dict[str, Any] | str | bytes, name: str = "case.json"
) -> RejectedFixture:
    """Admit a fixture that must be rejected."""
    result = admit(directory, content, name)
    assert isinstance(result, RejectedFixture), f"fixture was admitted: {content!r}"
    return result


def problems_at(rejected: RejectedFixture, pointer: str) -> list[FixtureProblem]:
    """The problems of a rejection reported at exactly `pointer`."""
    return [p for p in rejected.problems if p.field.pointer == pointer]


def only_problem_at(rejected: RejectedFixture, pointer: str) -> FixtureProblem:
    """The single problem at `pointer` (fails with every problem listed otherwise)."""
    found = problems_at(rejected, pointer)
    listed = [(p.field.pointer, p.message) for p in rejected.problems]
    assert len(found) == 1, f"expected one problem at {pointer!r}, got {listed}"
    return found[0]


def line_col(text: str, fragment: str, occurrence: int = 1) -> tuple[int, int]:
    """1-based (line, column in code points) of the `occurrence`-th `fragment` in `text`."""
    index = -1
    for _ in range(occurrence):
        index = text.index(fragment, index + 1)
    before = text[:index]
    line = before.count("\n") + 1
    col = len(before) - (before.rfind("\n") + 1) + 1
    return line, col


def line_of(text: str, fragment: str) -> int:
    """1-based line of the first `fragment` in `text`."""
    return line_col(text, fragment)[0]


def position(problem: FixtureProblem) -> tuple[int | None, int | None]:
    """(line, col) of a problem."""
    return problem.field.line, problem.field.col


def tool_call(name: str, arguments: dict[str, Any] | str, call_id: str | None = None) -> dict[str, Any]:
    """A scripted tool call (`arguments` as text scripts malformed arguments; an empty
    `call_id` scripts a call without an id)."""
    return {"id": f"call_{name}" if call_id is None else call_id, "name": name, "arguments": arguments}


def tools_step(*calls: dict[str, Any], tokens: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    """A scripted step asking for `calls`, with the token counts the provider reports."""
    return {
        "response": {
            "type": "tool_calls",
            "tool_calls": list(calls),
            "input_tokens": tokens[0],
            "output_tokens": tokens[1],
        }
    }


def text_step(content: str, tokens: tuple[int, int] = (0, 0)) -> dict[str, Any]:
    """A scripted text answer, with the token counts the provider reports."""
    return {
        "response": {
            "type": "text",
            "content": content,
            "input_tokens": tokens[0],
            "output_tokens": tokens[1],
        }
    }


#: The built-in tools that act on the case workspace.
ALL_TOOLS = ["file_read", "file_write", "list_dir"]


def make_box(workspace: Workspace | None = None, tools: list[str] | None = None) -> tuple[ToolBox, RunRecord]:
    """A tool box offering `echo` and `tools` (default: every built-in tool) and the record
    it writes."""
    record = RunRecord()
    box = ToolBox(tools_for_case(["echo", *(ALL_TOOLS if tools is None else tools)]), record, workspace)
    return box, record


def dispatch(
    box: ToolBox, name: str, arguments: str | dict[str, Any] | Any, call_id: str = "c1"
) -> ToolOutcome:
    """Dispatch one call through `box` and wait for its outcome."""
    return asyncio.run(box.call(name, arguments, call_id))


def record_of(
    response: str | None = "",
    calls: list[RecordedCall] | None = None,
    steps: list[ModelStep] | None = None,
    duration_ms: float = 0.0,
) -> RunRecord:
    """A run record with one turn that answered `response`."""
    return RunRecord(
        turns=[TurnRecord(0, "user says", response)],
        steps=steps or [],
        calls=calls or [],
        duration_ms=duration_ms,
    )


def run_grades(
    expects: dict[str, Any], record: RunRecord | None = None, workspace: Workspace | None = None
) -> dict[str, GradeResult]:
    """Grade `expects` and index the results by check id (ids must be unique)."""
    grades = grade(Expects.model_validate(expects), record or record_of(), workspace)
    by_id = {g.check_id: g for g in grades}
    assert len(by_id) == len(grades), [g.check_id for g in grades]
    return by_id


def scripted_fixture(
    turns: list[tuple[str, list[dict[str, Any]]]], expects: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    """A fixture from (user_input, steps) pairs."""
    return {
        "model_name": "unit",
        **extra,
        "turns": [{"user_input": user, "steps": steps} for user, steps in turns],
        "expects": expects,
    }


def said_suite(folder: Path, inputs: list[str]) -> Path:
    """A suite in `folder` of one-turn cases, in order, whose user says each of `inputs`
    (an agent's cue, say) and whose scripted answer "done" the case expects."""
    for number, said in enumerate(inputs):
        data = scripted_fixture([(said, [text_step("done")])], {"response_contains": ["done"]})
        write_fixture(folder, f"case_{number:02d}.json", data)
    return folder


def run_replay(case: Case, **options: Any) -> CaseReport:
    """Replay one case to its report, with `RunOptions(**options)`."""
    return asyncio.run(run_case(case, RunOptions(**options)))


def pipe_reader(folder: Path, name: str) -> tuple[Path, Callable[[], bytes]]:
    """A named pipe made in `folder`, and a function that waits (up to 10 s) for what was
    written into it: a reader is already waiting, so a writer's open does not block."""
    pipe = folder / name
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()), daemon=True)
    reader.start()

    def read() -> bytes:
        reader.join(10)
        return received[0] if received else b""

    return pipe, read
