"""A run that ends on a structured-output tool (pydantic-ai's `final_result`) imports with
that call as its last step: no tool runs it, so it is no dispatch, and the case replays
to a pass against the agent that made it and fails against its regression."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.invoke import invoke, run_cli

pytest.importorskip("pydantic_ai")

AGENT = Path(__file__).with_name("structured_agent.py")
PRODUCTION = {
    "model_name": "structured",
    "tools": ["get_weather"],
    "turns": [
        {
            "user_input": "What is the weather in Paris?",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [
                            {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}
                        ],
                    }
                },
                {
                    "response": {
                        "type": "tool_calls",
                        "tool_calls": [
                            {
                                "id": "call_2",
                                "name": "final_result",
                                "arguments": {"city": "Paris", "summary": "sunny, 21C"},
                            }
                        ],
                    }
                },
            ],
        }
    ],
    "expects": {"tools_used": ["get_weather"]},
}


def test_a_run_that_ends_on_its_structured_answer_imports_and_replays(tmp_path: Path) -> None:
    shutil.copy(AGENT, tmp_path / "structured_agent.py")
    (tmp_path / "zeroclaw.toml").write_text(
        '[eval]\nsuite_dir = "evals"\nagent = "structured_agent:make_agent"\n'
        'tools = "structured_agent:tools"\n'
    )
    (tmp_path / "production").mkdir()
    (tmp_path / "production" / "run.json").write_text(json.dumps(PRODUCTION))
    trace = tmp_path / "traces.jsonl"
    ran = run_cli(
        "eval", "run", "--suite", "production", cwd=tmp_path, env={"STRUCTURED_TRACE_FILE": str(trace)}
    )
    assert ran.code == 0, ran.stdout + ran.stderr
    imported = invoke("eval", "import", str(trace), "--out", "evals", cwd=tmp_path)
    assert imported.code == 0, imported.stderr
    (path,) = (tmp_path / "evals").glob("*.json")
    fixture = json.loads(path.read_text())
    last = fixture["turns"][0]["steps"][-1]["response"]
    assert [call["name"] for call in last["tool_calls"]] == ["final_result"]
    assert fixture["tools"] == ["get_weather"]  # the output tool is no tool of the project's
    assert fixture["expects"]["trajectory"]["calls"] == [
        {"tool": "get_weather", "args": {"city": "Paris"}, "status": "ok"}
    ]
    assert run_cli("eval", "run", cwd=tmp_path).code == 0
    broken = run_cli("eval", "run", cwd=tmp_path, env={"STRUCTURED_BROKEN": "1"})
    assert broken.code == 1, broken.stdout
