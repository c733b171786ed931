"""`zeroclaw_eval.backends.service`: the host of an agent service between cases (the
service itself is driven in tests/cli/commands/test_run_agent_service.py)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import NoReturn

import pytest

from zeroclaw_eval.backends.service import AgentService
from zeroclaw_eval.errors import RunError


def test_a_model_request_with_no_case_running_fails_the_next_case(tmp_path: Path) -> None:
    # A service's call after its last answer (a background summary) reaches the harness
    # between cases: answered 400 (no client retries it), and never dropped silently.
    service = AgentService.parse(f"{sys.executable} -c pass", project_dir=tmp_path)
    host = service.host
    host.end(None, "case_0.json")  # type: ignore[arg-type]  # no case running: case_0 ended
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "summarise"}]}).encode()
    reply = host._answer("POST", "/v1/chat/completions", body)
    assert reply.status == 400
    with pytest.raises(RunError) as raised:
        asyncio.run(host.begin(service, None))  # type: ignore[arg-type]
    assert raised.value.message.startswith(
        "the agent service called the model while no case was running: POST /v1/chat/completions"
        ' after case_0.json ended (its last message is user: "summarise")'
    )
    assert host.strays == []  # said once


@pytest.mark.parametrize(("path", "fixed"), [("health", "'/health'"), ("turn", "'/turn'")])
def test_a_path_without_its_slash_is_refused_with_the_fix(tmp_path: Path, path: str, fixed: str) -> None:
    from zeroclaw_eval.errors import UsageError

    with pytest.raises(UsageError, match=f"did you mean {fixed}"):
        AgentService.parse(f"{sys.executable} -c pass", ready_path=path, project_dir=tmp_path)


def test_a_cancel_as_a_start_up_probe_ends_stops_the_start_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C cancels the run just as a probe of the service's port ends: here the probe
    # cancels it and is refused in one step, as a probe refused at once ends. The
    # asyncio.wait_for of 3.10 and 3.11 returned the probe's outcome then and dropped the
    # cancel: the start-up was polled on to its deadline (and a ready service sent the
    # turn) first.
    service = AgentService.parse(
        f"{sys.executable} -c 'import time; time.sleep(30)'", project_dir=tmp_path, startup_secs=1.0
    )
    host = service.host
    probes = 0

    async def start() -> None:
        starting = asyncio.ensure_future(host._start(service, asyncio.get_running_loop(), None))

        async def refused(*_: object) -> NoReturn:
            nonlocal probes
            probes += 1
            if probes == 1:
                starting.cancel()  # the signal's
            raise ConnectionRefusedError

        monkeypatch.setattr(asyncio, "open_connection", refused)
        try:
            with pytest.raises(asyncio.CancelledError):
                await starting
        finally:
            host.broken = True  # as the turn that starts it marks a start-up cut short
            await host.close()

    asyncio.run(start())
    assert probes == 1


def test_model_requests_between_cases_are_each_answered_400_and_the_first_three_named(tmp_path: Path) -> None:
    service = AgentService.parse(f"{sys.executable} -c pass", project_dir=tmp_path)
    host = service.host
    host.end(None, "case_3.json")  # type: ignore[arg-type]  # no case running: case_3 ended
    bodies = [
        json.dumps({"model": "m", "messages": [{"role": "user", "content": "title"}]}).encode(),
        json.dumps({"model": "m", "input": [{"role": "user", "content": "summary"}]}).encode(),
        b"{not json",
        json.dumps({"model": "m", "messages": [{"role": "user", "content": "fourth"}]}).encode(),
    ]
    replies = [host._answer("POST", "/v1/responses", body) for body in bodies]
    assert {reply.status for reply in replies} == {400}
    error = json.loads(replies[0].body)["error"]
    assert error["message"] == "no case is running: the service called the model between cases"
    assert error["type"] == "no_case"
    with pytest.raises(RunError) as raised:
        asyncio.run(host.begin(service, None))  # type: ignore[arg-type]
    message = raised.value.message
    assert message.startswith(
        "the agent service called the model while no case was running:"
        ' POST /v1/responses after case_3.json ended (its last message is user: "title");'
        ' POST /v1/responses after case_3.json ended (its last message is user: "summary");'
        " POST /v1/responses after case_3.json ended (a body that is not JSON);"
        " a service must not call the model once a turn is answered"
    )
    assert "fourth" not in message


def test_a_request_before_any_case_ran_names_no_case(tmp_path: Path) -> None:
    service = AgentService.parse(f"{sys.executable} -c pass", project_dir=tmp_path)
    host = service.host
    assert host._answer("POST", "/v1/chat/completions", b"[]").status == 400
    with pytest.raises(RunError) as raised:
        asyncio.run(host.begin(service, None))  # type: ignore[arg-type]
    assert raised.value.message.startswith(
        "the agent service called the model while no case was running:"
        " POST /v1/chat/completions (a request with no messages);"
    )


def test_a_service_that_cannot_be_started_is_a_run_error_saying_why(tmp_path: Path) -> None:
    script = tmp_path / "service.sh"
    script.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    script.chmod(0o755)
    service = AgentService.parse("service.sh", project_dir=tmp_path)
    script.chmod(0o644)  # no longer executable once the run has begun
    try:
        with pytest.raises(RunError) as raised:
            asyncio.run(service.host.begin(service, None))  # type: ignore[arg-type]
    finally:  # its model server was started first: a thread left running stops later forks
        asyncio.run(service.aclose())
    assert raised.value.message == f"cannot start the agent service {str(script)!r}: Permission denied"


@pytest.mark.parametrize(("protocol", "path"), [("json", "/turn"), ("chat", "/v1/chat/completions")])
def test_each_protocol_has_its_default_path_and_a_path_given_wins(
    tmp_path: Path, protocol: str, path: str
) -> None:
    command = f"{sys.executable} -c pass"
    assert AgentService.parse(command, protocol=protocol, project_dir=tmp_path).path == path
    given = AgentService.parse(command, protocol=protocol, path="/agent", project_dir=tmp_path)
    assert given.path == "/agent"


def test_a_protocol_the_harness_does_not_speak_is_refused_naming_those_it_does(tmp_path: Path) -> None:
    from zeroclaw_eval.errors import UsageError

    with pytest.raises(UsageError) as raised:
        AgentService.parse(f"{sys.executable} -c pass", protocol="grpc", project_dir=tmp_path)
    assert str(raised.value) == "--agent-service-protocol 'grpc': expected one of json, chat, a2a"


@pytest.mark.parametrize(
    ("setting", "given"),
    [("agent_service_path", {"path": "turn"}), ("agent_service_ready_path", {"ready_path": "turn"})],
)
def test_a_path_without_its_slash_names_the_setting(
    tmp_path: Path, setting: str, given: dict[str, str]
) -> None:
    from zeroclaw_eval.errors import UsageError

    with pytest.raises(UsageError) as raised:
        AgentService.parse(f"{sys.executable} -c pass", project_dir=tmp_path, **given)
    assert str(raised.value) == (
        f"[eval].{setting} 'turn': a path on the service starts with /; did you mean '/turn'?"
    )


def test_the_service_command_is_read_as_an_agent_commands_naming_the_option(tmp_path: Path) -> None:
    from zeroclaw_eval.errors import UsageError

    (tmp_path / "service.py").write_text("", encoding="utf-8")
    service = AgentService.parse(f"{sys.executable} service.py", project_dir=tmp_path, echo="text")
    assert service.command.resolved() == [sys.executable, str(tmp_path / "service.py")]
    assert service.command.echo == "text"
    with pytest.raises(UsageError, match=r"^--agent-service is empty"):
        AgentService.parse("  ", project_dir=tmp_path)
    with pytest.raises(UsageError, match=r"^\[eval\].agent_service is empty"):
        AgentService.parse("", project_dir=tmp_path, option="[eval].agent_service")


def test_an_a2a_agent_is_ready_by_its_card_and_takes_no_path(tmp_path: Path) -> None:
    from zeroclaw_eval.errors import UsageError

    service = AgentService.parse(f"{sys.executable} -c pass", protocol="a2a", project_dir=tmp_path)
    assert service.ready_path == "/.well-known/agent-card.json"
    with pytest.raises(UsageError, match="its card says where its endpoint is"):
        AgentService.parse(f"{sys.executable} -c pass", protocol="a2a", path="/rpc", project_dir=tmp_path)
