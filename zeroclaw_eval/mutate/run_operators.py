"""Mutants of the rest of a run: the final response, the order of turns, what it spent,
and the files it left in the workspace."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from zeroclaw_eval.boundary.record import ModelStep, RunRecord, TurnRecord
from zeroclaw_eval.mutate.call_operators import needle_of
from zeroclaw_eval.mutate.edits import nudge_text
from zeroclaw_eval.mutate.mutant import FileEdit, Mutant, argument_text, describe_call, shown

_NUMBER = re.compile(r"\d+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
#: Characters either side of a changed number that its suggested needle keeps.
_AROUND = 12


def _with_response(record: RunRecord, response: str) -> RunRecord:
    last = replace(record.turns[-1], response=response)
    return replace(record, turns=[*record.turns[:-1], last])


def _pieces(response: str) -> tuple[str, list[str], str]:
    """The response cut into lines, or else sentences: (kind, pieces, joiner)."""
    lines = response.split("\n")
    if len([line for line in lines if line.strip()]) > 1:
        return "line", lines, "\n"
    sentences = _SENTENCE_END.split(response)
    return "sentence", sentences, " "


def response_mutants(record: RunRecord) -> Iterator[Mutant]:
    """The final response emptied, each line (or sentence) dropped, each number changed.

    Only the final response is graded, so only it is changed.
    """
    if not record.turns or not record.final_response:
        return
    response = record.final_response
    yield Mutant(
        "alter_response",
        "final response, emptied",
        shown(response),
        '""',
        _with_response(record, ""),
        candidates=({"response_contains": [needle_of(response)]},),
    )
    kind, pieces, joiner = _pieces(response)
    if len([piece for piece in pieces if piece.strip()]) > 1:
        for index, piece in enumerate(pieces):
            if not piece.strip():
                continue
            rest = joiner.join(pieces[:index] + pieces[index + 1 :])
            yield Mutant(
                "alter_response",
                f"final response, {kind} {index + 1} dropped",
                shown(piece),
                "(dropped)",
                _with_response(record, rest),
                candidates=(
                    {"response_contains": [piece.strip()]},
                    {"response_contains": [needle_of(piece.strip())]},
                ),
            )
    for index, match in enumerate(_NUMBER.finditer(response)):
        changed = str(int(match.group()) + 1)
        altered = response[: match.start()] + changed + response[match.end() :]
        context = _around(response, match.start(), match.end())
        yield Mutant(
            "alter_response",
            f"final response, number {index + 1}",
            match.group(),
            changed,
            _with_response(record, altered),
            candidates=({"response_contains": [context]},),
        )


def _around(text: str, start: int, end: int) -> str:
    """The words around `text[start:end]`: a needle that pins a number in its place."""
    left = text.rfind(" ", 0, max(start - _AROUND, 0) + 1) + 1 if start > _AROUND else 0
    right = text.find(" ", end + _AROUND)
    return text[left : right if right != -1 else len(text)].strip()


def turn_order_mutants(record: RunRecord) -> Iterator[Mutant]:
    """Each pair of adjacent turns answered in the other order: their calls, requests and
    answers trade places (the user inputs stay)."""
    turns = record.turns
    for first in range(len(turns) - 1):
        second = first + 1
        relabel = {first: second, second: first}
        calls = sorted(
            (replace(c, turn=relabel.get(c.turn, c.turn)) for c in record.calls), key=lambda c: c.turn
        )
        steps = sorted(
            (replace(s, turn=relabel.get(s.turn, s.turn)) for s in record.steps), key=lambda s: s.turn
        )
        answers = [t.response for t in turns]
        answers[first], answers[second] = answers[second], answers[first]
        new_turns = [
            TurnRecord(t.index, t.user_input, answer) for t, answer in zip(turns, answers, strict=True)
        ]
        before = _turn_words(record, first, second)
        yield Mutant(
            "alter_turn_order",
            f"turns {first + 1} and {second + 1}",
            before,
            _turn_words(record, second, first),
            replace(record, calls=calls, steps=steps, turns=new_turns),
            candidates=tuple(_order_candidates(record, first, second)),
        )


def _turn_words(record: RunRecord, first: int, second: int) -> str:
    def words(turn: int) -> str:
        made = [describe_call(c) for c in record.calls if c.turn == turn]
        return f"turn {turn + 1}: " + (", ".join(made) if made else "no call")

    return f"{words(first)}; {words(second)}"


def _order_candidates(record: RunRecord, first: int, second: int) -> Iterator[dict[str, Any]]:
    if record.final_response:
        yield {"response_contains": [needle_of(record.final_response)]}
    for turn in (first, second):
        answer = record.turns[turn].response
        if answer:
            yield {"turn_response_contains": [{"turn": turn, "needle": needle_of(answer)}]}
    seen: dict[str, int] = {}
    for call in record.calls:
        index = seen.get(call.name, 0)
        seen[call.name] = index + 1
        if call.turn in (first, second):
            arguments = argument_text(call)
            yield {
                "tool_arguments_contain": [
                    {"tool": call.name, "needle": needle_of(arguments), "call_index": index}
                ]
            }


def budget_mutants(record: RunRecord) -> Iterator[Mutant]:
    """The run spending twice the tokens, and making twice the LLM calls."""
    tokens = record.input_tokens + record.output_tokens
    if tokens:
        doubled = [
            replace(s, input_tokens=s.input_tokens * 2, output_tokens=s.output_tokens * 2)
            for s in record.steps
        ]
        yield Mutant(
            "inflate_budget",
            "tokens",
            f"{tokens} tokens",
            f"{tokens * 2} tokens",
            replace(record, steps=doubled),
            candidates=({"budget": {"max_total_tokens": tokens}},),
        )
    if record.steps:
        twice: list[ModelStep] = [step for step in record.steps for _ in (0, 1)]
        calls = len(record.steps)
        yield Mutant(
            "inflate_budget",
            "llm_calls",
            f"{calls} LLM calls",
            f"{calls * 2} LLM calls",
            replace(record, steps=twice),
            candidates=({"budget": {"max_llm_calls": calls}},),
        )


def file_mutants(
    record: RunRecord, written: Mapping[str, str | None], contents: Mapping[str, str]
) -> Iterator[Mutant]:
    """Each file the run wrote left unwritten, written elsewhere, or altered.

    `written` maps each file the run created or changed to its seeded text (None: not
    seeded); `contents` holds what the run left in each (decoded for descriptions).
    """
    for path, seeded in sorted(written.items()):
        if path not in contents:  # the run removed a seeded file: not removing it is the change
            yield Mutant(
                "skip_write",
                path,
                "(removed)",
                f"as seeded: {shown(seeded or '')}",
                record,
                files=FileEdit("skip", path, seeded),
                candidates=({"workspace": {"file_absent": [path]}},),
            )
            continue
        text = contents[path]
        exists = {"workspace": {"file_exists": [path]}}
        holds = {"workspace": {"file_contains": {path: [needle_of(text)]}}} if text else exists
        elsewhere = str(PurePosixPath(path).with_name("misplaced-" + PurePosixPath(path).name))
        unwritten = "(not written)" if seeded is None else f"as seeded: {shown(seeded)}"
        yield Mutant(
            "skip_write",
            path,
            shown(text),
            unwritten,
            record,
            files=FileEdit("skip", path, seeded),
            candidates=(exists, holds),
        )
        yield Mutant(
            "write_elsewhere",
            path,
            path,
            elsewhere,
            record,
            files=FileEdit("elsewhere", path, seeded, elsewhere),
            candidates=(exists, holds, {"workspace": {"file_absent": [elsewhere]}}),
        )
        if not text:
            continue  # only "contains" checks read a file, and none that passes can see an empty one grow
        yield Mutant(
            "alter_file",
            path,
            shown(text),
            shown(nudge_text(text)),
            record,
            files=FileEdit("alter", path, seeded),
            candidates=(holds,),
        )
