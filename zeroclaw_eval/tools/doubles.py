"""Tool doubles: a fixture's scripted answers for a tool a case must not really run.

The first double whose `when` is a subset of the call's arguments (each key there, its
value equal as JSON) and that has answers left (`times`) answers; a call no double
matches is a failed dispatch that says so. The counts are the case's own: each call of
`with_doubles` starts them afresh.
A double keeps the tool's spec, so the model is offered the real tool, and its calls go
through the recording tool box like any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from zeroclaw_eval._support.json.text import compact_json, json_equal
from zeroclaw_eval.boundary.provider import ToolSpec
from zeroclaw_eval.cases.model import ToolDouble
from zeroclaw_eval.tools.tool import Tool, ToolOutcome
from zeroclaw_eval.tools.workspace import Workspace


def answers(double: ToolDouble, arguments: dict[str, Any]) -> bool:
    """Whether `double` answers a call with `arguments`."""
    return all(key in arguments and json_equal(arguments[key], value) for key, value in double.when.items())


def with_doubles(
    tools: Mapping[str, Tool], doubles: Mapping[str, Sequence[ToolDouble]], *, any_name: bool = False
) -> dict[str, Tool]:
    """`tools` with each doubled one answered by its doubles instead of its code;
    `any_name`: a doubled tool `tools` lacks (an agent command's own, served over MCP)
    joins them, known only by its name and its doubles."""
    doubled = dict(tools)
    for name, entries in doubles.items():
        if name in doubled:
            doubled[name] = replace(
                doubled[name], run=_answer_with(name, entries), blocking=False, instant=True
            )
        elif any_name:
            doubled[name] = Tool(ToolSpec(name, "", {"type": "object"}), _answer_with(name, entries))
    return doubled


def _answer_with(name: str, doubles: Sequence[ToolDouble]) -> Any:
    left: list[int | None] = [double.times for double in doubles]

    def answer(arguments: dict[str, Any], workspace: Workspace | None) -> ToolOutcome:
        for index, double in enumerate(doubles):
            remaining = left[index]
            if remaining != 0 and answers(double, arguments):
                if remaining is not None:
                    left[index] = remaining - 1
                return ToolOutcome(double.result, double.success)
        if any(answers(double, arguments) for double in doubles):
            message = (
                f"{name} was called with {compact_json(arguments)} more often than its doubles"
                " answer such a call (their times are used up)"
            )
            return ToolOutcome(message, False)
        wanted = "; ".join(compact_json(double.when) for double in doubles)
        message = f"no double of {name} matched the arguments {compact_json(arguments)}"
        return ToolOutcome(f"{message} (the doubles want: {wanted})", False)

    return answer
