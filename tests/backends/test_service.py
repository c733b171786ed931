"""`zeroclaw_eval.backends.service`: the host of an agent service between cases (the
service itself is driven in tests/cli/commands/test_run_agent_service.py)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

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
    with pytest.raises(
        RunError, match=r"called the model while no case was running: POST /v1/chat/completions"
    ):
        asyncio.run(host.begin(service, None))  # type: ignore[arg-type]
    assert host.strays == []  # said once


@pytest.mark.parametrize(("path", "fixed"), [("health", "'/health'"), ("turn", "'/turn'")])
def test_a_path_without_its_slash_is_refused_with_the_fix(tmp_path: Path, path: str, fixed: str) -> None:
    from zeroclaw_eval.errors import UsageError

    with pytest.raises(UsageError, match=f"did you mean {fixed}"):
        AgentService.parse(f"{sys.executable} -c pass", ready_path=path, project_dir=tmp_path)
