"""The cases of the peer benchmark (benchmarks/peers.py) and the meaning of their checks.

`write_suite` writes a suite of replay fixtures generated from a seed: 1-3 turns, 0-3
echo calls a turn, six checks each. A chosen fraction of the cases is broken on purpose
(the final reply loses its token, or a scripted echo argument loses its needle), so a
contender that skips a check cannot report the same failures as the gate.

`case_checks` turns a fixture's `expects` into `Check`s with the grading rules
(docs/concepts/grading.md) for these keys; every contender other than zeroclaw-eval
itself grades with them, so all of them verify the same things. Nothing here imports zeroclaw-eval or a peer
library: each contender's process imports this module and its own framework only.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Words the generated echo messages and reply tokens are made of.
WORDS = (
    "amber", "basil", "cedar", "delta", "ember", "fjord", "garnet", "harbor",
    "indigo", "juniper", "kestrel", "lumen", "maple", "nectar", "onyx", "pylon",
)  # fmt: skip
#: The final reply of every case starts like this (and a check says so).
FINISHED = re.compile(r"^Case \d+ finished")


@dataclass(frozen=True)
class Call:
    """One tool dispatch as a contender saw it."""

    name: str
    arguments: dict[str, Any]
    result: str
    success: bool


@dataclass(frozen=True)
class Check:
    """One graded check of a case: its id (as zeroclaw-eval names it) and its rule."""

    check_id: str
    holds: Callable[[str, Sequence[Call]], bool]


@dataclass(frozen=True)
class Suite:
    """A written suite: its folder, case names, how many checks and which cases must fail."""

    folder: Path
    names: list[str]
    checks: int
    failing: frozenset[str]


def _arguments_hold(needle: str, arguments: dict[str, Any]) -> bool:
    """The needle rule (docs/concepts/grading.md): any string value at any depth, or the
    compact JSON text."""
    pending: list[Any] = [arguments]
    while pending:
        value = pending.pop()
        if isinstance(value, str) and needle in value:
            return True
        if isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return needle in json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)


def _calls_to(tool: str, calls: Sequence[Call], index: int | None) -> list[Call]:
    """The calls to `tool` a needle may match: all of them, or the one at `index`."""
    to_tool = [call for call in calls if call.name == tool]
    if index is None:
        return to_tool
    return to_tool[index : index + 1]


#: Keys whose value is a list, each entry one check, and keys that are one check.
LISTED = (
    "response_contains",
    "response_not_contains",
    "response_matches",
    "tools_used",
    "tools_not_used",
    "tool_arguments_contain",
    "tool_results_contain",
)
SINGLE = ("exact_tool_calls", "all_tools_succeeded")


def _rule(key: str, entry: Any) -> Callable[[str, Sequence[Call]], bool]:
    """The rule of one check: `entry` is a list item of `expects[key]`, or its value."""
    pattern = re.compile(entry) if key == "response_matches" else None

    def holds(final: str, calls: Sequence[Call]) -> bool:
        if key == "response_contains":
            return bool(entry in final)
        if key == "response_not_contains":
            return bool(entry not in final)
        if pattern is not None:
            return pattern.search(final) is not None
        if key == "tools_used":
            return any(call.name == entry for call in calls)
        if key == "tools_not_used":
            return all(call.name != entry for call in calls)
        if key == "exact_tool_calls":
            return bool(len(calls) == entry)
        if key == "all_tools_succeeded":
            # true: no dispatch failed (so it holds for zero calls); false: one at least did.
            return all(c.success for c in calls) if entry else any(not c.success for c in calls)
        candidates = _calls_to(entry["tool"], calls, entry.get("call_index"))
        if key == "tool_arguments_contain":
            return any(_arguments_hold(entry["needle"], call.arguments) for call in candidates)
        return any(entry["needle"] in call.result for call in candidates)

    return holds


def case_checks(expects: dict[str, Any]) -> list[Check]:
    """The checks of `expects`, for the keys the generator uses; any other key is an error.

    Failing loudly on an unknown key keeps the peers honest: a key they silently ignored
    would be a check they never verified.
    """
    checks: list[Check] = []
    for key, value in expects.items():
        if key in LISTED:
            checks.extend(Check(f"{key}[{n}]", _rule(key, entry)) for n, entry in enumerate(value))
        elif key in SINGLE:
            checks.append(Check(key, _rule(key, value)))
        else:
            raise ValueError(f"the benchmark's checks do not cover expects key {key!r}")
    return checks


def echo(arguments: dict[str, Any]) -> str:
    """zeroclaw-eval's built-in echo: the message, or a marker for a call without one."""
    message = arguments.get("message")
    return message if isinstance(message, str) and message else "(empty)"


def _fixture(number: int, rng: random.Random, broken: bool) -> dict[str, Any]:
    """One case: its turns, each with 0-3 echo calls spread over one or more steps."""
    turns: list[dict[str, Any]] = []
    messages: list[str] = []
    for turn in range(rng.randint(1, 3)):
        calls: list[dict[str, Any]] = [
            {
                "id": f"call_{turn}_{k}",
                "name": "echo",
                "arguments": {"message": f"{rng.choice(WORDS)}-{number}-{turn}-{k}"},
            }
            for k in range(rng.randint(0, 3))
        ]
        messages.extend(call["arguments"]["message"] for call in calls)
        # All of a turn's calls in one step, or one step each: both shapes the agent loops see.
        groups = [calls] if calls and rng.random() < 0.5 else [[call] for call in calls]
        steps: list[dict[str, Any]] = [
            {"response": {"type": "tool_calls", "tool_calls": group}} for group in groups
        ]
        steps.append({"response": {"type": "text", "content": f"Turn {turn} of case {number} done."}})
        turns.append({"user_input": f"Case {number}, turn {turn}: echo what I ask.", "steps": steps})
    token = f"{rng.choice(WORDS)}{rng.randrange(10**6):06d}"
    final = turns[-1]["steps"][-1]["response"]
    final["content"] = f"Case {number} finished: {token}"
    expects: dict[str, Any] = {
        "response_contains": [token],
        "response_not_contains": ["Traceback"],
        "exact_tool_calls": len(messages),
        "all_tools_succeeded": True,
    }
    if messages:
        index = rng.randrange(len(messages))
        expects["tool_arguments_contain"] = [{"tool": "echo", "needle": messages[index], "call_index": index}]
        expects["tool_results_contain"] = [{"tool": "echo", "needle": rng.choice(messages)}]
    else:
        expects["response_matches"] = [FINISHED.pattern]
        expects["tools_not_used"] = ["echo"]
    if broken:
        # Break a tool argument where there is one to break, on every other broken case;
        # otherwise the reply: both a text check and a tool check must be seen to fail.
        if messages and number % 2:
            checked = expects["tool_arguments_contain"][0]
            for turn_spec in turns:
                for step in turn_spec["steps"]:
                    for call in step["response"].get("tool_calls", ()):
                        if call["arguments"]["message"] == checked["needle"]:
                            call["arguments"]["message"] = "something else"
        else:
            final["content"] = f"Case {number} finished: nothing to report"
    return {"model_name": f"bench-{number:05d}", "turns": turns, "expects": expects}


def write_suite(folder: Path, cases: int, seed: int, fail_rate: float) -> Suite:
    """Write `cases` fixtures into `folder`; round(cases * fail_rate) of them must fail."""
    rng = random.Random(seed)
    failing_numbers = set(random.Random(seed + 1).sample(range(cases), round(cases * fail_rate)))
    names: list[str] = []
    checks = 0
    for number in range(cases):
        fixture = _fixture(number, rng, number in failing_numbers)
        name = f"case_{number:05d}.json"
        (folder / name).write_text(json.dumps(fixture), encoding="utf-8")
        names.append(name)
        checks += len(case_checks(fixture["expects"]))
    return Suite(folder, names, checks, frozenset(names[n] for n in failing_numbers))


def load_suite(folder: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every fixture of a generated suite, by file name, in name order."""
    return [(path.name, json.loads(path.read_bytes())) for path in sorted(folder.glob("*.json"))]


def write_verdict(path: Path, cases: int, checks: int, failed: Sequence[str]) -> None:
    """What a contender reports back to the harness: counts and the failed case names."""
    verdict = {"cases": cases, "checks": checks, "failed": sorted(failed)}
    path.write_text(json.dumps(verdict), encoding="utf-8")
