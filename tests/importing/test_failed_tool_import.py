"""A production run whose refund failed, imported: the case claims only what the trace
proves of each call's outcome, scripts the recorded results as doubles, and replays
without reaching the payment API.

The support agent (`refund_agent.py`) runs as production does, as a command that runs
its own tools, recorded by a real instrumentation with and without tool spans. Its
trace is imported and replayed against the same agent in the gate's process, whose
tools the gate runs: the doubles answer, the real refund never runs, and the agent's
regression still fails.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.importing.test_real_instrumentations import _needs
from tests.support.invoke import invoke, run_cli

AGENT = Path(__file__).with_name("refund_agent.py")

PRODUCTION = {
    "model_name": "refund",
    "tools": ["lookup_order", "refund"],
    "turns": [
        {
            "user_input": "Please refund order A-1001.",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [
                            {"id": "call_1", "name": "lookup_order", "arguments": {"order_id": "A-1001"}}
                        ],
                    }
                },
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [
                            {
                                "id": "call_2",
                                "name": "refund",
                                "arguments": {"order_id": "A-1001", "amount": 42.5},
                            }
                        ],
                    }
                },
                {
                    "response": {
                        "type": "text",
                        "content": "Sorry, the refund could not be processed right now.",
                    }
                },
            ],
        }
    ],
    "expects": {"tools_used": ["refund"]},
}


def _production_trace(tmp_path: Path, trace: str, tool_spans: bool) -> Path:
    """Run the production case through the agent as a command; the trace it wrote."""
    production = tmp_path / "production"
    production.mkdir()
    (production / "refund.json").write_text(json.dumps(PRODUCTION))
    written = tmp_path / "traces.jsonl"
    env = {
        "REFUND_TRACE": trace,
        "REFUND_TOOL_SPANS": "1" if tool_spans else "0",
        "REFUND_TRACE_FILE": str(written),
        "REFUND_LEDGER": str(tmp_path / "production-ledger.txt"),
    }
    ran = run_cli(
        "eval", "run", "--suite", str(production), "--agent-cmd", f"{sys.executable} {AGENT}", env=env
    )
    assert ran.code == 0, ran.stdout + ran.stderr
    # Production did post the refund, and it failed as an unreachable API fails.
    assert (tmp_path / "production-ledger.txt").read_text() == "A-1001 42.5\n"
    return written


def _project(tmp_path: Path) -> Path:
    """A project whose gate runs the agent in its process, with the agent's own tools."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(AGENT, project / "refund_agent.py")
    (project / "zeroclaw.toml").write_text(
        "[eval]\n"
        'suite_dir = "evals/imported"\n'
        'agent = "refund_agent:make_agent"\n'
        'tools = "refund_agent:tools"\n'
    )
    return project


def _replay(project: Path, ledger: Path, **env: str) -> Any:
    return run_cli("eval", "run", cwd=project, env={"REFUND_LEDGER": str(ledger), **env})


@pytest.mark.parametrize(
    ("trace", "tool_spans"),
    [("openai-v2", True), ("openai-v2", False), ("openinference", True), ("openinference", False)],
    ids=[
        "genai-with-tool-spans",
        "genai-model-spans-only",
        "openinference-with-tool-spans",
        "openinference-llm-only",
    ],
)
def test_a_failed_refund_is_never_certified_and_never_replayed_for_real(
    tmp_path: Path, trace: str, tool_spans: bool
) -> None:
    instrumentation = (
        "opentelemetry.instrumentation.openai_v2"
        if trace == "openai-v2"
        else "openinference.instrumentation.openai"
    )
    _needs(instrumentation, "opentelemetry.sdk")
    recorded = _production_trace(tmp_path, trace, tool_spans)
    project = _project(tmp_path)
    imported = invoke("eval", "import", str(recorded), "--out", "evals/imported", cwd=project)
    assert imported.code == 0, imported.stderr
    assert "doubles: lookup_order, refund" in imported.stderr
    (path,) = (project / "evals" / "imported").glob("*.json")
    fixture = json.loads(path.read_text())
    expects = fixture["expects"]

    # Nothing claims the refund went well: where the tool span proves it failed, the
    # trajectory says so; where nothing proves either, it says nothing.
    assert "all_tools_succeeded" not in expects
    calls = expects["trajectory"]["calls"]
    assert [call["tool"] for call in calls] == ["lookup_order", "refund"]
    if tool_spans:
        assert [call.get("status") for call in calls] == ["ok", "error"]
    else:
        assert [call.get("status") for call in calls] == [None, None]

    # The recorded results are the doubles, the failure as production saw it.
    refund = fixture["tool_doubles"]["refund"]
    assert len(refund) == 1
    assert refund[0]["when"] == {"order_id": "A-1001", "amount": 42.5}
    assert refund[0]["result"].startswith("URLError: <urlopen error")
    assert refund[0].get("success", True) is (not tool_spans)
    assert fixture["tool_doubles"]["lookup_order"] == [
        {
            "when": {"order_id": "A-1001"},
            "result": '{"order_id": "A-1001", "status": "delivered", "total": 42.5}',
        }
    ]

    # Replayed in the gate's process: the doubles answer, the payment API is never reached.
    ledger = tmp_path / "replay-ledger.txt"
    passing = _replay(project, ledger)
    assert passing.code == 0, passing.stdout + passing.stderr
    assert not ledger.exists()
    # The agent's regression still fails.
    broken = _replay(project, ledger, REFUND_BROKEN="1")
    assert broken.code == 1, broken.stdout + broken.stderr
    assert "refund" in broken.stdout
    assert not ledger.exists()


def test_live_tools_writes_no_doubles_and_the_replay_runs_the_real_tools(tmp_path: Path) -> None:
    _needs("opentelemetry.instrumentation.openai_v2", "opentelemetry.sdk")
    recorded = _production_trace(tmp_path, "openai-v2", True)
    project = _project(tmp_path)
    imported = invoke("eval", "import", str(recorded), "--out", "evals/imported", "--live-tools", cwd=project)
    assert imported.code == 0, imported.stderr
    assert "doubles" not in imported.stderr
    (path,) = (project / "evals" / "imported").glob("*.json")
    assert "tool_doubles" not in json.loads(path.read_text())
    ledger = tmp_path / "replay-ledger.txt"
    passing = _replay(project, ledger)
    # The real refund ran, and failed again as it did in production.
    assert passing.code == 0, passing.stdout + passing.stderr
    assert ledger.read_text() == "A-1001 42.5\n"


def test_an_agent_command_cannot_replay_doubles_and_is_told_what_to_do(tmp_path: Path) -> None:
    _needs("opentelemetry.instrumentation.openai_v2", "opentelemetry.sdk")
    recorded = _production_trace(tmp_path, "openai-v2", True)
    out = tmp_path / "imported"
    assert invoke("eval", "import", str(recorded), "--out", str(out)).code == 0
    ledger = tmp_path / "replay-ledger.txt"
    ran = run_cli(
        "eval",
        "run",
        "--suite",
        str(out),
        "--agent-cmd",
        f"{sys.executable} {AGENT}",
        env={"REFUND_LEDGER": str(ledger)},
    )
    assert ran.code == 1
    assert "--live-tools" in ran.stdout
    assert not ledger.exists()
