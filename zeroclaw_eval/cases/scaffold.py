"""A new fixture from a few facts: the user input, one scripted tool call, the answer.

What `zeroclaw eval new` writes. The scaffold is built to pass in replay and to fail
against an empty run, so it can join a gate as it is: a text case checks that the
scripted answer reaches the final response; a tool case checks the dispatch itself
(the tool was called once, with its arguments, and succeeded), which an agent that does
nothing fails.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from zeroclaw_eval._support.json.text import compact_json, parse_json
from zeroclaw_eval.cases.model import ECHO_TOOL
from zeroclaw_eval.errors import UsageError

#: What a case scaffolded without flags says and answers.
TEXT_INPUT = "Say hello"
TEXT_ANSWER = "Hello!"


@dataclass(frozen=True)
class ScaffoldSpec:
    """What the new case is: its name and the turn it scripts."""

    model_name: str
    user_input: str | None = None
    #: The one tool the model calls before it answers; None: it answers at once.
    tool: str | None = None
    #: The call's arguments as JSON text (an object).
    arguments: str | None = None
    answer: str | None = None
    #: Substrings the final response must contain; none: the whole answer of a text case.
    needles: tuple[str, ...] = ()
    #: Answer the call with a tool double instead of running the tool (a project's own
    #: tool may reach a real service, which a replay must not).
    double: bool = False


def parse_arguments(text: str) -> dict[str, Any]:
    """`--args` text as an object, parsed as strictly as a fixture is."""
    parsed = parse_json(text.encode("utf-8"))
    if parsed.problems:
        raise UsageError(f"--args is not valid JSON: {parsed.problems[0].message}")
    if not isinstance(parsed.data, dict):
        raise UsageError(f'--args must be a JSON object, such as \'{{"message": "hi"}}\'; found {text!r}')
    return parsed.data


def string_values(value: Any) -> Iterator[str]:
    """The strings of JSON `value` at any depth, outermost first: each object's or list's
    own strings before those nested in it."""
    pending = deque([value])
    while pending:
        item = pending.popleft()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)


def argument_needle(arguments: dict[str, Any]) -> str | None:
    """A needle the call's arguments hold: the first non-empty string value, outermost
    first, at any depth; else the arguments' compact JSON text (which needles are also
    searched in); None for no arguments."""
    found = next((text for text in string_values(arguments) if text), None)
    if found is not None:
        return found
    return compact_json(arguments) if arguments else None


def scaffold_fixture(spec: ScaffoldSpec) -> dict[str, Any]:
    """The fixture data of `spec`; raises `UsageError` for facts that cannot make a case
    that passes (a needle the answer does not hold, arguments without a tool)."""
    if spec.arguments is not None and spec.tool is None:
        raise UsageError("--args are the arguments of a tool call; name the tool with --tool")
    default_answer = TEXT_ANSWER if spec.tool is None else f"The {spec.tool} tool has answered."
    answer = spec.answer if spec.answer is not None else default_answer
    needles = list(spec.needles) or ([answer] if spec.tool is None else [])
    for needle in needles:
        if needle not in answer:
            raise UsageError(
                f"the scripted answer {answer!r} does not contain the needle {needle!r}, so the case"
                " would fail in replay; give an --answer that holds it"
            )
    fixture: dict[str, Any] = {"model_name": spec.model_name}
    steps: list[dict[str, Any]] = []
    expects: dict[str, Any] = {}
    user_input = TEXT_INPUT if spec.tool is None else f"Use the {spec.tool} tool"
    if spec.tool is not None:
        if spec.tool != ECHO_TOOL:
            fixture["tools"] = [spec.tool]
        steps.append(_tool_call_step(spec.tool, spec.arguments, expects))
        if spec.double:
            arguments = parse_arguments(spec.arguments) if spec.arguments is not None else {}
            fixture["tool_doubles"] = {spec.tool: [{"when": arguments, "result": f"{spec.tool} answered"}]}
    steps.append({"response": {"type": "text", "content": answer}})
    if needles:
        expects["response_contains"] = needles
    user_input = spec.user_input if spec.user_input is not None else user_input
    fixture["turns"] = [{"user_input": user_input, "steps": steps}]
    fixture["expects"] = expects
    return fixture


def _tool_call_step(tool: str, arguments_text: str | None, expects: dict[str, Any]) -> dict[str, Any]:
    """The step that calls `tool`, adding to `expects` the checks of that dispatch."""
    arguments = parse_arguments(arguments_text) if arguments_text is not None else {}
    # Graded at the dispatch boundary: in replay the answer is scripted, so only the call
    # shows what the agent did (an agent that does nothing fails tools_used).
    expects.update(tools_used=[tool], exact_tool_calls=1)
    needle = argument_needle(arguments)
    if needle is not None:
        expects["tool_arguments_contain"] = [{"tool": tool, "needle": needle, "call_index": 0}]
    expects["all_tools_succeeded"] = True
    call = {"id": "call_1", "name": tool, "arguments": arguments}
    return {"response": {"type": "tool_calls", "tool_calls": [call]}}
