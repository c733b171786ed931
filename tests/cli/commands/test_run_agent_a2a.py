"""`zeroclaw eval run --agent-a2a`: an agent that is an A2A server (`a2a-sdk`), started
once per run, sent each turn as an A2A message in the case's own context, graded from
what crossed the model boundary as any agent service is.

The agent is `tests/support/a2a_agent.py`, on the official SDK's server, plain and
streaming, over A2A 1.0 and 0.3, and in broken variants that must fail where they
should."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.commands.test_run_agent_service import notes, notes_project
from tests.support.builders import write_fixture
from tests.support.invoke import Runner, full_json_report

pytest.importorskip("a2a.server.routes")

AGENT = Path(__file__).resolve().parents[2] / "support" / "a2a_agent.py"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The agent-service tests' project: three two-turn cases, each writing a note."""
    return notes_project(tmp_path)


def agent(*flags: str) -> str:
    return " ".join([sys.executable, str(AGENT), *flags])


def run(cli: Runner, project: Path, *flags: str) -> dict[str, Any]:
    return full_json_report(cli, project, "--agent-a2a", agent(*flags))


@pytest.mark.parametrize(
    "flags",
    [(), ("--stream",), ("--stream", "--version", "0.3")],
    ids=["1.0", "1.0-streaming", "0.3-streaming"],
)
def test_an_a2a_agent_passes_its_suite_one_context_per_case(
    cli: Runner, project: Path, flags: tuple[str, ...]
) -> None:
    report = run(cli, project, *flags)
    for case in report["cases"]:
        assert case["status"] == "passed", case["error"] or case["grades"]
        # Both turns' calls, run by the agent's own tools, in the case workspace.
        assert [call["name"] for call in case["record"]["calls"]] == ["echo", "write_note"]
    assert report["counts"]["passed"] == 3


@pytest.mark.parametrize(
    ("breaks", "check"),
    [("garble", "tool_results_contain[0]"), ("wrong", "response_matches[0]")],
)
def test_a_broken_a2a_agent_fails_at_the_check_it_breaks(
    cli: Runner, project: Path, breaks: str, check: str
) -> None:
    for case in run(cli, project, "--stream", "--break", breaks)["cases"]:
        assert case["status"] == "failed", case
        assert check in [grade["check_id"] for grade in case["grades"] if not grade["passed"]]


def test_an_agent_that_loses_the_context_is_a_run_error_at_the_second_turn(
    cli: Runner, project: Path
) -> None:
    # Each message starts a new conversation: the second turn's request lacks the first.
    for case in run(cli, project, "--break", "forget-context")["cases"]:
        assert case["status"] == "error", case
        assert case["error"]["field"]["pointer"] == "/turns/1/steps/0", case["error"]


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (("--stream", "--break", "fail"), "the A2A agent ended its task failed: 'the order system is down'"),
        (("--break", "working"), "with its task still working"),
        (("--version", "0.3", "--break", "rpc-error"), "answered message/send with JSON-RPC error"),
    ],
    ids=["failed-streaming", "still-working", "json-rpc-error-0.3"],
)
def test_a_task_that_is_no_answer_is_the_turns_run_error(
    cli: Runner, project: Path, flags: tuple[str, ...], words: str
) -> None:
    for case in run(cli, project, *flags)["cases"]:
        assert case["status"] == "error", case
        assert words in case["error"]["message"], case["error"]
        assert case["error"]["field"]["pointer"] == "/turns/0", case["error"]


def test_an_answer_sent_as_a_message_is_the_turns_answer(cli: Runner, project: Path) -> None:
    report = run(cli, project, "--break", "message")
    assert [case["status"] for case in report["cases"]] == ["passed"] * 3


def test_an_agent_whose_card_offers_no_json_rpc_fails_every_case_once(cli: Runner, tmp_path: Path) -> None:
    suite = tmp_path / "evals" / "regression"
    write_fixture(suite, "case_0.json", notes("case-0", "alpha"))
    write_fixture(suite, "case_1.json", notes("case-1", "bravo"))
    server = tmp_path / "card_only.py"
    server.write_text(
        "import json, os\n"
        "from http.server import BaseHTTPRequestHandler, HTTPServer\n"
        "class H(BaseHTTPRequestHandler):\n"
        "    def do_GET(self):\n"
        "        body = json.dumps({'name': 'x', 'supportedInterfaces': [{'url': 'http://h/',"
        " 'protocolBinding': 'GRPC', 'protocolVersion': '1.0'}]}).encode()\n"
        "        self.send_response(200); self.send_header('Content-Length', str(len(body)))\n"
        "        self.end_headers(); self.wfile.write(body)\n"
        "HTTPServer(('127.0.0.1', int(os.environ['PORT'])), H).serve_forever()\n",
        encoding="utf-8",
    )
    report = full_json_report(cli, tmp_path, "--agent-a2a", f"{sys.executable} {server}")
    messages = [case["error"]["message"] for case in report["cases"]]
    assert messages[0].startswith("turn 1: the A2A agent cannot be talked to: its agent card")
    assert "offers no JSON-RPC interface" in messages[0]
    assert messages[1].endswith("(as for an earlier case: not started again)")


def test_agent_a2a_and_agent_service_together_are_a_usage_error(cli: Runner, project: Path) -> None:
    result = cli("eval", "run", "--agent-a2a", agent(), "--agent-service", agent(), cwd=project)
    assert result.code == 2
    assert "--agent-a2a is --agent-service CMD --agent-service-protocol a2a" in result.stderr
