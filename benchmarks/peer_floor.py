"""The floor of the benchmarks: the least a replay gate could do in Python.

    python benchmarks/peer_floor.py SUITE VERDICT.json [--report FILE]

Loads every fixture with `json`, walks its turns and steps with a plain loop (each
scripted echo call answered in place), and verifies every check of `expects` with
benchmarks/peer_cases.py. No admission, no agent, no recorded boundaries: what remains
is the cost of reading the cases and grading them (the bare floor).

With `--report FILE` it also does the one piece of observable work a gate cannot skip:
it streams a JSON record per case, of the shape and about the size of zeroclaw-eval's
JSON report (for a case that did not pass each check's verdict with what it expected and
found, the replayed turns, steps and calls and the fixture text; for a passing one the
compact record: its checks, tool calls and tokens), written with orjson one record at a
time. That is the floor benchmarks/targets.py measures zeroclaw-eval against.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, BinaryIO

from peer_cases import Call, case_checks, echo, write_verdict


def record(
    name: str, fixture: dict[str, Any], raw: bytes, graded: list[tuple[str, bool]], calls: list[Call]
) -> Any:
    """A case's report record, shaped as zeroclaw-eval's: what a reader of the report gets."""
    turns, steps, final = [], [], ""
    for index, turn in enumerate(fixture["turns"]):
        for step in turn["steps"]:
            response = step["response"]
            final = response.get("content") or final
            steps.append(
                {
                    "turn": index,
                    "content": response.get("content"),
                    "tool_calls": [
                        {"id": c["id"], "name": c["name"], "arguments": json.dumps(c["arguments"])}
                        for c in response.get("tool_calls", ())
                    ],
                    "input_tokens": response.get("input_tokens", 0),
                    "output_tokens": response.get("output_tokens", 0),
                    "sent_roles": ["system", "user"],
                    "offered_tools": ["echo"],
                    "system_prompt": None,
                }
            )
        turns.append({"index": index, "user_input": turn["user_input"], "response": final})
    passed = all(ok for _, ok in graded)
    if passed:
        # A passing case as zeroclaw-eval's report keeps it by default: a compact record.
        return {
            "name": name,
            "path": f"suite/{name}",
            "model_name": fixture["model_name"],
            "id": None,
            "status": "passed",
            "change": None,
            "score": 1.0,
            "duration_ms": 0.0,
            "category_totals": {"response": {"passed": 0, "total": 0}, "tool": {"passed": 0, "total": 0}},
            "checks": [
                {
                    "check_id": check_id,
                    "category": "response" if check_id.startswith("response") else "tool",
                    "pointer": f"/expects/{check_id}",
                }
                for check_id, _ in graded
            ],
            "tool_calls": [c.name for c in calls],
            "input_tokens": sum(step["input_tokens"] for step in steps),
            "output_tokens": sum(step["output_tokens"] for step in steps),
            "repeats": None,
        }
    return {
        "name": name,
        "path": f"suite/{name}",
        "model_name": fixture["model_name"],
        "id": None,
        "status": "passed" if passed else "failed",
        "change": None,
        "score": sum(ok for _, ok in graded) / len(graded),
        "duration_ms": 0.0,
        "category_totals": {"response": {"passed": 0, "total": 0}, "tool": {"passed": 0, "total": 0}},
        "partial": False,
        "error": None,
        "problems": [],
        "grades": [
            {
                "check_id": check_id,
                "category": "response" if check_id.startswith("response") else "tool",
                "passed": ok,
                "detail": f"expected {check_id} to hold; the final response was {final!r}",
                "field": {
                    "pointer": f"/expects/{check_id}",
                    "line": None,
                    "col": None,
                    "end_line": None,
                    "end_col": None,
                },
                "expected": check_id,
                "actual": final,
            }
            for check_id, ok in graded
        ],
        "record": {
            "turns": turns,
            "steps": steps,
            "calls": [
                {
                    "turn": 0,
                    "call_id": "",
                    "name": c.name,
                    "arguments": c.arguments,
                    "result": c.result,
                    "success": c.success,
                }
                for c in calls
            ],
            "duration_ms": 0.0,
        },
        "source": None if passed else raw.decode("utf-8"),
        "repeats": None,
    }


def main() -> None:
    suite, verdict = Path(sys.argv[1]), Path(sys.argv[2])
    report: BinaryIO | None = None
    dumps: Any = None
    if sys.argv[3:4] == ["--report"]:
        import orjson

        report, dumps = open(sys.argv[4], "wb"), orjson.dumps  # noqa: SIM115
        report.write(b'{"cases": [\n')
    failed: list[str] = []
    cases = checks = 0
    # One fixture at a time, as a streaming gate would: nothing is kept but the verdict.
    for path in sorted(suite.glob("*.json")):
        raw = path.read_bytes()
        name, fixture = path.name, json.loads(raw)
        calls: list[Call] = []
        final = ""
        for turn in fixture["turns"]:
            for step in turn["steps"]:
                response = step["response"]
                if response["type"] == "text":
                    final = response["content"]
                for call in response.get("tool_calls", ()):
                    calls.append(Call(call["name"], call["arguments"], echo(call["arguments"]), True))
        graded = [(check.check_id, check.holds(final, calls)) for check in case_checks(fixture["expects"])]
        cases += 1
        checks += len(graded)
        if not all(ok for _, ok in graded):
            failed.append(name)
        if report is not None:
            if cases > 1:
                report.write(b",\n")
            # OPT_INDENT_2, each line indented as deep as a case of zeroclaw-eval's report
            # (two levels), so that the bytes written are the same work.
            written = dumps(record(name, fixture, raw, graded, calls), option=1)
            report.write(b"    " + written.replace(b"\n", b"\n    "))
        print(f"{'✓' if all(ok for _, ok in graded) else '✗'} {name}")
    if report is not None:
        report.write(b"\n]}\n")
        report.close()
    write_verdict(verdict, cases, checks, failed)


if __name__ == "__main__":
    main()
