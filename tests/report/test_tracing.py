"""One trace for a run's results and its agents' own spans (`report.tracing`): each
agent is handed its case's span as a W3C `traceparent` (in-process: the context; a
command: `TRACEPARENT`), and the `otlp` report writes that very span."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from tests.support.builders import PASSING, write_fixture
from tests.support.invoke import run_cli
from zeroclaw_eval.agent.loop import Agent, AgentContext, reference_agent
from zeroclaw_eval.report.codec import report_to_dict
from zeroclaw_eval.reporters import get_reporter
from zeroclaw_eval.runner import RunOptions, run_suite

TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-01$")
AGENT = Path(__file__).resolve().parents[1] / "support" / "agent_command.py"


def _case_spans(otlp: str) -> dict[str, tuple[str, str]]:
    """Each case span's (trace id, span id), by the case's path."""
    spans: dict[str, tuple[str, str]] = {}
    for line in otlp.split("\n")[:-1]:
        span: dict[str, Any] = json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
        names = {a["key"]: a["value"].get("stringValue") for a in span["attributes"]}
        if "test.case.name" in names:
            spans[str(names["test.case.name"])] = (span["traceId"], span["spanId"])
    return spans


def test_an_in_process_agent_is_handed_its_cases_span_in_the_runs_trace(tmp_path: Path) -> None:
    handed: list[str | None] = []

    def agent(context: AgentContext) -> Agent:
        handed.append(context.traceparent)
        return reference_agent(context)

    for name in ("a.json", "b.json"):
        write_fixture(tmp_path / "suite", name, PASSING)
    report = run_suite(tmp_path / "suite", RunOptions(agent_factory=agent))
    assert report.trace_id is not None
    assert report_to_dict(report)["trace_id"] == report.trace_id
    parents = [TRACEPARENT.match(value or "") for value in handed]
    assert all(parents), handed
    spans = _case_spans(get_reporter("otlp")(report))
    for case, parent in zip(report.cases, parents, strict=True):
        assert parent is not None
        assert spans[case.path] == (parent[1], parent[2])  # the span the agent was handed
    assert len({parent[2] for parent in parents if parent}) == 2  # a span of its own each
    # Another run is another trace.
    again = run_suite(tmp_path / "suite", RunOptions(agent_factory=agent))
    assert again.trace_id != report.trace_id


def test_an_agent_command_gets_its_cases_span_in_traceparent(tmp_path: Path) -> None:
    wrapper = tmp_path / "traced_agent.py"
    wrapper.write_text(
        "import os, runpy, sys\n"
        "with open(os.environ['TRACE_OUT'], 'a') as out:\n"
        "    out.write(os.environ.get('TRACEPARENT', '-') + '\\n')\n"
        f"sys.argv = [{str(AGENT)!r}]\n"
        f"runpy.run_path({str(AGENT)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    write_fixture(tmp_path / "evals" / "regression", "echo.json", PASSING)
    out = tmp_path / "traceparents.txt"
    command = f"{sys.executable} {wrapper}"
    result = run_cli(
        "eval",
        "run",
        "--agent-cmd",
        command,
        "--report",
        "otlp=run.otlp.jsonl",
        cwd=tmp_path,
        env={"TRACE_OUT": str(out)},
    )
    assert result.code == 0, result.stdout + result.stderr
    (handed,) = out.read_text(encoding="utf-8").split()
    parent = TRACEPARENT.match(handed)
    assert parent is not None, handed
    spans = _case_spans((tmp_path / "run.otlp.jsonl").read_text(encoding="utf-8"))
    assert spans["evals/regression/echo.json"] == (parent[1], parent[2])
