"""inspect_ai as a contender of the peer benchmark.

    python benchmarks/peer_inspect_ai.py SUITE VERDICT.json LOG_DIR

Each fixture becomes a `Sample` (its first user input, its turns and `expects` in the
metadata) of one `Task`: `use_tools(echo())`, then a solver that sends each turn's user
input and calls `generate`, which loops over tool calls as inspect's agents do. The
model is inspect's `mockllm/model` with `custom_outputs` set to a function that finds
the case by its first user message and answers with the scripted step that follows the
assistant messages already in the conversation. A scorer verifies every check of
`expects`, keeping each verdict in the score's metadata.

Run as a CI job would: `display="none"` and `log_realtime=False` (no live view), but
the log is still written, to LOG_DIR, since it is inspect's report of the run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import Generate, TaskState, solver, use_tools
from inspect_ai.tool import Tool, ToolCall, ToolChoice, ToolInfo, tool
from peer_cases import Call, case_checks, echo as echo_message, load_suite, write_verdict

#: The scripted steps of each case, by the user input of its first turn.
SCRIPTS: dict[str, list[dict[str, Any]]] = {}


@tool
def echo() -> Tool:
    async def execute(message: str = "") -> str:
        """Echo the message back.

        Args:
            message: The text to echo.
        """
        return echo_message({"message": message})

    return execute


def reply(
    messages: list[ChatMessage], _tools: list[ToolInfo], _choice: ToolChoice, _config: GenerateConfig
) -> ModelOutput:
    """The next scripted step of the case this conversation belongs to."""
    first = next(m for m in messages if isinstance(m, ChatMessageUser))
    taken = sum(isinstance(m, ChatMessageAssistant) for m in messages)
    response = SCRIPTS[first.text][taken]["response"]
    if response["type"] == "text":
        output = ModelOutput.from_content("scripted", response["content"])
    else:
        calls = [ToolCall(call["id"], call["name"], call["arguments"]) for call in response["tool_calls"]]
        message = ChatMessageAssistant(content="", tool_calls=calls, model="scripted", source="generate")
        choice = ChatCompletionChoice(message=message, stop_reason="tool_calls")
        output = ModelOutput(model="scripted", choices=[choice])
    # Without usage, mockllm counts the tokens itself with tiktoken, whose encoding is
    # downloaded on first use: a network fetch (and cost) that has no place in a replay.
    output.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
    return output


@solver
def turns() -> Any:
    """Every turn of the case: its user input (the first is the sample's), then `generate`."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        for number, turn in enumerate(state.metadata["turns"]):
            if number:
                state.messages.append(ChatMessageUser(content=turn["user_input"]))
            state = await generate(state)
        return state

    return solve


def dispatches(messages: list[ChatMessage]) -> list[Call]:
    """The tool calls of the conversation with what came back (a tool error is a failure)."""
    asked = {
        call.id: call
        for message in messages
        if isinstance(message, ChatMessageAssistant)
        for call in message.tool_calls or ()
    }
    return [
        Call(
            asked[m.tool_call_id or ""].function,
            asked[m.tool_call_id or ""].arguments,
            m.text,
            m.error is None,
        )
        for m in messages
        if isinstance(m, ChatMessageTool)
    ]


@scorer(metrics=[accuracy()])
def expects() -> Any:
    """Every check of the fixture's `expects`; the sample passes only if all hold."""

    async def score(state: TaskState, _target: Target) -> Score:
        calls = dispatches(state.messages)
        final = state.output.completion
        verdicts = {c.check_id: c.holds(final, calls) for c in case_checks(state.metadata["expects"])}
        failed = [check_id for check_id, held in verdicts.items() if not held]
        return Score(
            value=INCORRECT if failed else CORRECT,
            explanation=", ".join(failed) or "every check holds",
            metadata={"checks": verdicts},
        )

    return score


def main() -> None:
    suite, verdict, log_dir = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    samples = []
    for name, fixture in load_suite(suite):
        turns_ = fixture["turns"]
        SCRIPTS[turns_[0]["user_input"]] = [step for turn in turns_ for step in turn["steps"]]
        samples.append(
            Sample(
                id=name,
                input=turns_[0]["user_input"],
                metadata={"turns": turns_, "expects": fixture["expects"]},
            )
        )
    task = Task(
        dataset=MemoryDataset(samples),
        solver=[use_tools(echo()), turns()],
        scorer=expects(),
    )
    model = get_model("mockllm/model", custom_outputs=reply)
    (log,) = eval(task, model=model, display="none", log_dir=log_dir, log_realtime=False)
    failed: list[str] = []
    checks = 0
    for sample in log.samples or ():
        score = (sample.scores or {}).get("expects")
        if score is None or score.value != CORRECT:
            failed.append(str(sample.id))
        if score is not None and score.metadata:
            checks += len(score.metadata["checks"])
    print(f"{log.status}: {len(log.samples or ())} samples, {len(failed)} failed")
    write_verdict(verdict, len(log.samples or ()), checks, failed)


if __name__ == "__main__":
    main()
