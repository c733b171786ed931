"""The floor of the peer benchmark: the least a replay gate could do in Python.

    python benchmarks/peer_floor.py SUITE VERDICT.json

Loads every fixture with `json`, walks its turns and steps with a plain loop (each
scripted echo call answered in place), and verifies every check of `expects` with
benchmarks/peer_cases.py. No admission, no agent, no recorded boundaries, no report:
what remains is the cost of reading the cases and grading them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from peer_cases import Call, case_checks, echo, write_verdict


def main() -> None:
    suite, verdict = Path(sys.argv[1]), Path(sys.argv[2])
    failed: list[str] = []
    cases = checks = 0
    # One fixture at a time, as a streaming gate would: nothing is kept but the verdict.
    for path in sorted(suite.glob("*.json")):
        name, fixture = path.name, json.loads(path.read_bytes())
        calls: list[Call] = []
        final = ""
        for turn in fixture["turns"]:
            for step in turn["steps"]:
                response = step["response"]
                if response["type"] == "text":
                    final = response["content"]
                for call in response.get("tool_calls", ()):
                    calls.append(Call(call["name"], call["arguments"], echo(call["arguments"]), True))
        graded = [check.holds(final, calls) for check in case_checks(fixture["expects"])]
        cases += 1
        checks += len(graded)
        if not all(graded):
            failed.append(name)
        print(f"{'✓' if all(graded) else '✗'} {name}")
    write_verdict(verdict, cases, checks, failed)


if __name__ == "__main__":
    main()
