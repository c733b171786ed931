"""The floor on the stack: the least a gate of zeroclaw-eval's design could do with its
libraries, in Python.

    python benchmarks/stack_floor.py SUITE VERDICT.json --report FILE

benchmarks/peer_floor.py's floor+report walks each fixture's steps with a plain loop. A
gate that certifies an agent cannot: its design asks for three more things a case, and
this script adds the least of each to floor+report, written for speed and nothing else:

- *admission*: each fixture validated by a strict pydantic model (unknown keys refused,
  no type coerced), so that a fixture that means something else fails before it runs;
- *an agent loop on asyncio*: the steps are replayed through an async agent that builds
  its conversation, awaits the model for every step and a tool for every call, and sends
  each result back, as agents under test do;
- *requests checked against the script*: the messages each request adds are compared
  with what the script and the tools say they must be.

No error is positioned, no case is bounded in time or isolated in a workspace, nothing is
recorded but the calls, and a request is compared only where it is new: each of those is
work zeroclaw-eval does that this floor does not. Its report and grading are
peer_floor.py's. benchmarks/targets.py and benchmarks/instructions.py measure it beside
floor+report, to show how much of zeroclaw-eval's cost over floor+report is its stack's.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Literal

import orjson
from peer_cases import Call, case_checks, echo, write_verdict
from peer_floor import record
from pydantic import BaseModel, ConfigDict


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class _ToolCall(_Strict):
    id: str
    name: str
    arguments: dict[str, Any]


class _Response(_Strict):
    type: Literal["text", "tool_calls"]
    content: str | None = None
    tool_calls: list[_ToolCall] = []


class _Step(_Strict):
    response: _Response


class _Turn(_Strict):
    user_input: str
    steps: list[_Step]


class _Needle(_Strict):
    tool: str
    needle: str
    call_index: int | None = None


class _Expects(_Strict):
    response_contains: list[str] = []
    response_not_contains: list[str] = []
    response_matches: list[str] = []
    exact_tool_calls: int | None = None
    all_tools_succeeded: bool | None = None
    tools_not_used: list[str] = []
    tool_arguments_contain: list[_Needle] = []
    tool_results_contain: list[_Needle] = []


class _Fixture(_Strict):
    model_name: str
    turns: list[_Turn]
    expects: _Expects


class _Script:
    """The model: answers each request with the next scripted step, once it has checked
    that the messages the request adds are the ones the script and the tools say."""

    def __init__(self, fixture: _Fixture) -> None:
        self.steps = iter([(turn.user_input, step.response) for turn in fixture.turns for step in turn.steps])
        self.seen = 0
        self.expected: list[dict[str, Any]] = []

    async def complete(self, messages: list[dict[str, Any]]) -> _Response:
        user_input, response = next(self.steps)
        last = self.expected[-1] if self.expected else None
        if last is None or (last["role"] == "assistant" and not last["tool_calls"]):  # a new turn
            self.expected.append({"role": "user", "content": user_input})
        if messages[self.seen :] != self.expected[self.seen :]:
            raise AssertionError(f"the request left the script at message {self.seen}")
        self.seen = len(messages)
        answered = {"role": "assistant", "content": response.content, "tool_calls": _wire(response)}
        self.expected.append(answered)
        for call in response.tool_calls:
            result = echo(call.arguments)
            self.expected.append({"role": "tool", "tool_call_id": call.id, "content": result})
        return response


def _wire(response: _Response) -> list[dict[str, Any]]:
    """A reply's tool calls as an assistant message carries them: arguments as JSON text."""
    return [{"id": c.id, "name": c.name, "arguments": json.dumps(c.arguments)} for c in response.tool_calls]


class _Tools:
    def __init__(self) -> None:
        self.calls: list[Call] = []

    async def call(self, name: str, arguments: dict[str, Any]) -> str:
        result = echo(arguments)
        self.calls.append(Call(name, arguments, result, True))
        return result


async def _agent_turn(user_input: str, messages: list[dict[str, Any]], model: _Script, tools: _Tools) -> str:
    """The agent: ask, run each call, send the results back, until the model answers."""
    messages.append({"role": "user", "content": user_input})
    while True:
        response = await model.complete(messages)
        messages.append({"role": "assistant", "content": response.content, "tool_calls": _wire(response)})
        if not response.tool_calls:
            return response.content or ""
        for call in response.tool_calls:
            result = await tools.call(call.name, call.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


async def _run(suite: Path, verdict: Path, report_path: Path) -> None:
    failed: list[str] = []
    cases = checks = 0
    with report_path.open("wb") as report:
        report.write(b'{"cases": [\n')
        for path in sorted(suite.glob("*.json")):
            raw = path.read_bytes()
            name, data = path.name, json.loads(raw)
            fixture = _Fixture.model_validate(data)
            model, tools = _Script(fixture), _Tools()
            messages: list[dict[str, Any]] = []
            final = ""
            for turn in fixture.turns:
                final = await _agent_turn(turn.user_input, messages, model, tools)
            checked = case_checks(data["expects"])
            graded = [(check.check_id, check.holds(final, tools.calls)) for check in checked]
            cases += 1
            checks += len(graded)
            if not all(ok for _, ok in graded):
                failed.append(name)
            if cases > 1:
                report.write(b",\n")
            written = orjson.dumps(record(name, data, raw, graded, tools.calls), option=orjson.OPT_INDENT_2)
            report.write(b"    " + written.replace(b"\n", b"\n    "))
            print(f"{'✓' if all(ok for _, ok in graded) else '✗'} {name}")
        report.write(b"\n]}\n")
    write_verdict(verdict, cases, checks, failed)


def main() -> None:
    if {"-h", "--help"} & set(sys.argv[1:]):
        print(__doc__)
        return
    if sys.argv[3:4] != ["--report"] or len(sys.argv) != 5:
        sys.exit(__doc__)
    asyncio.run(_run(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[4])))


if __name__ == "__main__":
    main()
