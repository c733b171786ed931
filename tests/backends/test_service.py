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
    # between cases: answered 409, and never dropped silently.
    service = AgentService.parse(f"{sys.executable} -c pass", project_dir=tmp_path)
    host = service.host
    host.end(None, "case_0.json")  # type: ignore[arg-type]  # no case running: case_0 ended
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "summarise"}]}).encode()
    reply = host._answer("POST", "/v1/chat/completions", body)
    assert reply.status == 409
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
