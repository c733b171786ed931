"""pydantic-evals as a contender of the peer benchmark.

    python benchmarks/peer_pydantic_evals.py SUITE VERDICT.json

Each fixture becomes a `pydantic_evals.Case` whose inputs are its turns; the task runs a
pydantic-ai `Agent` with an `echo` tool, one `agent.run` per turn (the history carried
over), against a `FunctionModel` that replies with the fixture's scripted steps in
order. Every check of `expects` is a case-specific `Evaluator` named by its check id,
graded on the run's final output and the tool calls and returns in its messages. The
report is printed as a user would look at it (`report.print()`, no progress bar).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from peer_cases import Call, Check, case_checks, echo, load_suite, write_verdict
from pydantic_ai import Agent, Tool
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import Evaluator, EvaluatorContext


@dataclass
class Inputs:
    """What the task gets for one case: its turns as the fixture scripts them."""

    turns: list[dict[str, Any]]


@dataclass
class Outcome:
    """What the task returns: the last turn's answer and every tool dispatch, in order."""

    final: str
    calls: list[Call]


@dataclass
class ExpectCheck(Evaluator[Inputs, Outcome, None]):
    """One check of the fixture's `expects`, reported under its check id."""

    check: Check

    def evaluate(self, ctx: EvaluatorContext[Inputs, Outcome, None]) -> bool:
        return self.check.holds(ctx.output.final, ctx.output.calls)

    def get_default_evaluation_name(self) -> str:
        return self.check.check_id


def echo_message(message: str = "") -> str:
    """Echo the message back."""
    return echo({"message": message})


# `echo` would shadow peer_cases.echo here, so the tool is named explicitly.
agent = Agent(name="replay", tools=[Tool(echo_message, name="echo", takes_ctx=False)])


def scripted(steps: Iterator[dict[str, Any]]) -> FunctionModel:
    """A model that answers each request with the next scripted step of the case."""

    def reply(_messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
        response = next(steps)["response"]
        if response["type"] == "text":
            return ModelResponse(parts=[TextPart(response["content"])])
        return ModelResponse(
            parts=[
                ToolCallPart(call["name"], call["arguments"], call["id"]) for call in response["tool_calls"]
            ]
        )

    return FunctionModel(reply)


def dispatches(messages: list[ModelMessage]) -> list[Call]:
    """The tool calls of a run with what came back: a return is a success, a retry prompt a failure."""
    asked: dict[str, ToolCallPart] = {}
    calls: list[Call] = []
    for message in messages:
        for part in message.parts:
            if isinstance(message, ModelResponse) and isinstance(part, ToolCallPart):
                asked[part.tool_call_id] = part
            elif isinstance(message, ModelRequest) and isinstance(part, ToolReturnPart | RetryPromptPart):
                call = asked[part.tool_call_id or ""]
                if isinstance(part, ToolReturnPart):
                    calls.append(Call(call.tool_name, call.args_as_dict(), part.model_response_str(), True))
                else:
                    calls.append(Call(call.tool_name, call.args_as_dict(), part.model_response(), False))
    return calls


async def replay(inputs: Inputs) -> Outcome:
    steps = iter([step for turn in inputs.turns for step in turn["steps"]])
    model = scripted(steps)
    history: list[ModelMessage] = []
    final = ""
    for turn in inputs.turns:
        result = await agent.run(turn["user_input"], message_history=history, model=model)
        history = result.all_messages()
        final = result.output
    return Outcome(final, dispatches(history))


def main() -> None:
    suite, verdict = Path(sys.argv[1]), Path(sys.argv[2])
    cases = [
        Case(
            name=name,
            inputs=Inputs(fixture["turns"]),
            evaluators=[ExpectCheck(check) for check in case_checks(fixture["expects"])],
        )
        for name, fixture in load_suite(suite)
    ]
    dataset = Dataset[Inputs, Outcome, None](name="peer-benchmark", cases=cases)
    report = dataset.evaluate_sync(replay, progress=False)
    report.print(include_durations=False)
    failed = [case.name for case in report.cases if not all(a.value for a in case.assertions.values())]
    failed += [failure.name for failure in report.failures]
    checks = sum(len(case.assertions) for case in report.cases)
    write_verdict(verdict, len(report.cases) + len(report.failures), checks, failed)


if __name__ == "__main__":
    main()
