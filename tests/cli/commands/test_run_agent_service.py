"""`zeroclaw eval run --agent-service`: an agent that runs as a long-lived HTTP service,
started once per run, sent each turn, graded from what crossed the model boundary.

The service is `tests/support/agent_service.py` (standard library only), over both turn
protocols, and in broken variants that must fail at the right check or step; a service
that dies or hangs is that case's error and the next case gets a new one."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.builders import text_step as text, tool_call, tools_step, write_fixture
from tests.support.invoke import Runner, full_json_report

SERVICE = Path(__file__).resolve().parents[2] / "support" / "agent_service.py"


def call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    return tools_step(tool_call(name, arguments, call_id))


def notes(name: str, word: str) -> dict[str, Any]:
    """Two turns, each a tool round of the service's own tools then text."""
    return {
        "model_name": name,
        "tools": ["echo", "write_note"],
        "turns": [
            {
                "user_input": f"Echo {word}",
                "steps": [call("echo", {"message": word}, "call_1"), text(f"The echo tool said: {word}")],
            },
            {
                "user_input": f"Save a note saying {word}",
                "steps": [call("write_note", {"text": word}, "call_2"), text("Saved your note.")],
            },
        ],
        "expects": {
            "tools_used": ["echo", "write_note"],
            "tool_arguments_contain": [{"tool": "echo", "needle": word, "call_index": 0}],
            "tool_results_contain": [{"tool": "echo", "needle": word}],
            "response_matches": ["^Saved your note\\.$"],
            "all_tools_succeeded": True,
            "workspace": {"file_contains": {"note.txt": [word]}},
        },
    }


def notes_project(root: Path) -> Path:
    """`root` as a project whose suite holds three two-turn cases (`notes`)."""
    suite = root / "evals" / "regression"
    for index, word in enumerate(("alpha", "bravo", "charlie")):
        write_fixture(suite, f"case_{index}.json", notes(f"case-{index}", word))
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return notes_project(tmp_path)


def service(*flags: str) -> str:
    return " ".join([sys.executable, str(SERVICE), *flags])


def run(cli: Runner, project: Path, *flags: str, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    return full_json_report(cli, project, "--agent-service", service(*flags), *extra)


def starts(project: Path) -> int:
    log = project / "service-starts.log"
    return len(log.read_text(encoding="utf-8").split()) if log.exists() else 0


@pytest.mark.parametrize("protocol", ["json", "chat"])
def test_a_service_passes_its_suite_started_once_for_the_run(
    cli: Runner, project: Path, protocol: str
) -> None:
    extra = ("--agent-service-protocol", protocol, "--jobs", "3")  # --jobs: still one case at a time
    report = run(cli, project, extra=extra)
    assert [case["status"] for case in report["cases"]] == ["passed"] * 3, report["cases"]
    assert starts(project) == 1
    calls = report["cases"][1]["record"]["calls"]
    assert [(c["name"], c["arguments"], c["result"]) for c in calls] == [
        ("echo", {"message": "bravo"}, "bravo"),
        ("write_note", {"text": "bravo"}, "saved"),
    ]


def test_the_service_is_ready_by_its_ready_path(cli: Runner, project: Path) -> None:
    (project / "zeroclaw.toml").write_text(
        f'[eval]\nagent_service = "{service()}"\nagent_service_ready_path = "/health"\n', encoding="utf-8"
    )
    result = cli("eval", "run", "--format", "json", "--details", "all", cwd=project)
    assert result.code == 0, result.stdout + result.stderr
    assert result.json()["counts"]["passed"] == 3


@pytest.mark.parametrize(
    ("breaks", "check"),
    [
        ("wrong", "response_matches[0]"),
        ("garble", "tool_results_contain[0]"),
    ],
)
def test_a_broken_service_fails_at_the_check_it_breaks(
    cli: Runner, project: Path, breaks: str, check: str
) -> None:
    report = run(cli, project, "--break", breaks)
    for case in report["cases"]:
        assert case["status"] == "failed", case
        assert check in [grade["check_id"] for grade in case["grades"] if not grade["passed"]]


def test_a_service_that_forgets_results_is_a_run_error_at_the_step(cli: Runner, project: Path) -> None:
    case = run(cli, project, "--break", "forget")["cases"][0]
    assert case["status"] == "error"
    assert case["error"]["field"]["pointer"].startswith("/turns/0/steps/1")


def test_a_crashed_service_is_its_cases_error_and_the_next_case_gets_a_new_one(
    cli: Runner, project: Path
) -> None:
    report = run(cli, project, "--break", "crash-on:bravo")
    assert [case["status"] for case in report["cases"]] == ["passed", "error", "passed"]
    error = report["cases"][1]["error"]
    assert "the agent service stopped answering" in error["message"]
    assert "the service broke on purpose" in error["traceback"]  # its stderr's last lines
    assert starts(project) == 2


def test_a_hung_service_times_its_case_out_and_is_restarted(cli: Runner, project: Path) -> None:
    (project / "zeroclaw.toml").write_text("[eval]\ncase_timeout_secs = 2\n", encoding="utf-8")
    report = run(cli, project, "--break", "hang-on:bravo")
    assert [case["status"] for case in report["cases"]] == ["passed", "error", "passed"]
    assert "timed out after 2s" in report["cases"][1]["error"]["message"]
    assert starts(project) == 2


def test_a_service_never_ready_is_a_run_error_saying_so(cli: Runner, project: Path) -> None:
    (project / "zeroclaw.toml").write_text("[eval]\nagent_service_startup_secs = 0.5\n", encoding="utf-8")
    case = run(cli, project, "--break", "slow-start", extra=("-k", "case_0"))["cases"][0]
    assert case["status"] == "error"
    assert "was not ready within 0.5s (agent_service_startup_secs)" in case["error"]["message"]


def test_the_service_and_what_it_started_end_with_the_run(cli: Runner, project: Path) -> None:
    report = run(cli, project, "--break", "spawn")
    assert report["counts"]["passed"] == 3
    child = int((project / "service-child.pid").read_text(encoding="utf-8"))
    for _ in range(50):  # reaped by the harness's kill of the group; give the kernel a moment
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    pytest.fail(f"the service's child {child} outlived the run")


@pytest.mark.parametrize(
    ("flags", "config", "words"),
    [
        (("--agent-service", ""), "", "--agent-service is empty"),
        (("--agent-service", "x", "--agent-cmd", "y"), "", "--agent-cmd and --agent-service both"),
        (("--agent-service-protocol", "chat"), "", "give the service too"),
        ((), '[eval]\nagent_service = "x"\nagent_cmd = "y"\n', "keep the one that runs your agent"),
        ((), '[eval]\nagent_service = "nowhere-to-be-found"\n', "cannot find the program"),
        ((), '[eval]\nagent_service = "x"\nagent_service_path = "turn"\n', "did you mean '/turn'?"),
        ((), '[eval]\nagent_service = "   "\n', "[eval].agent_service is empty"),
    ],
)
def test_a_service_that_cannot_work_is_refused_before_any_case_runs(
    cli: Runner, project: Path, flags: tuple[str, ...], config: str, words: str
) -> None:
    if config:
        (project / "zeroclaw.toml").write_text(config, encoding="utf-8")
    result = cli("eval", "run", *flags, cwd=project)
    assert result.code == 2, result.stdout + result.stderr
    assert words in result.stderr


def test_a_service_that_never_starts_fails_every_case_without_waiting_again(
    cli: Runner, project: Path
) -> None:
    (project / "zeroclaw.toml").write_text(
        '[eval]\nagent_service_startup_secs = 1\nagent_service_ready_path = "/nope"\n', encoding="utf-8"
    )
    started = time.monotonic()
    report = run(cli, project)
    assert time.monotonic() - started < 8  # one start-up wait, not three
    messages = [case["error"]["message"] for case in report["cases"]]
    assert "GET /nope answered 404, not 2xx" in messages[0]
    assert all("not started again" in message for message in messages[1:])


def test_a_service_that_daemonizes_is_refused(cli: Runner, project: Path) -> None:
    report = run(cli, project, "--break", "daemon")
    try:
        messages = [case["error"]["message"] for case in report["cases"] if case["error"]]
        assert any("put itself in the background (daemonized)" in message for message in messages)
    finally:
        pid_file = project / "service-daemon.pid"
        if pid_file.exists():
            os.kill(int(pid_file.read_text(encoding="utf-8")), 9)


@pytest.mark.parametrize("delay", ["0", "0.2"])
def test_a_background_model_call_after_an_answer_fails_the_case_that_made_it(
    cli: Runner, project: Path, delay: str
) -> None:
    # After each answer the service asks the model to "summarise", `delay` seconds later:
    # the case stays open agent_service_quiet_secs (0.5 s) after its last answer, so the
    # call is that case's, which the script has no step for. The first turn's call comes
    # during the case (its second turn), the last turn's after it: either way that case.
    report = run(cli, project, f"--break=postcall:{delay}")
    for case in report["cases"]:
        assert case["status"] == "error", case
        assert '"summarise"' in case["error"]["message"], case["error"]


def test_a_background_call_retried_by_its_client_fails_only_the_case_that_made_it(
    cli: Runner, project: Path
) -> None:
    # The official clients retry a 408, 409, 429 or 5xx: were the call refused with one,
    # its retries would reach the next case (and fail it, blamed on its script). Each
    # case fails for the summaries of its own turns, and for no other case's.
    report = run(cli, project, "--break=postcall-retried:0.2")
    words = ("alpha", "bravo", "charlie")
    for case, word in zip(report["cases"], words, strict=True):
        assert case["status"] == "error", case
        message = case["error"]["message"]
        assert f'"summarise: Echo {word}"' in message or f'"summarise: Save a note saying {word}"' in message
        assert not any(other in message for other in words if other != word), message
        # Once after each turn; none of another case's retries among them.
        assert "more time(s)" not in message or "asked the model 2 more time(s)" in message, message
