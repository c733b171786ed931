"""`zeroclaw_eval.serve.faults`: the --fault language, and the faults on the wire."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import openai
import pytest

from tests.support.scripts import (
    CALL_1,
    RESULT_1,
    USER_1,
    post,
)
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.serve.faults import Fault, parse_fault
from zeroclaw_eval.serve.server import ReplayServer

FLAT_ECHO: Any = {
    "type": "function",
    "name": "echo",
    "description": "Echo.",
    "parameters": {"type": "object"},
}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("429:1@1", Fault("429", 1.0, frozenset({1}))),
        ("500@2,3", Fault("500", 0.0, frozenset({2, 3}))),
        ("delay:200", Fault("delay", 200.0, None)),
        ("delay", Fault("delay", 200.0, None)),
        ("malformed@1", Fault("malformed", 0.0, frozenset({1}))),
        ("429:0.5", Fault("429", 0.5, None)),
    ],
)
def test_parse_fault_reads_kind_argument_and_request_numbers(spec: str, expected: Fault) -> None:
    assert parse_fault(spec) == expected


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "418",
        "teapot@1",
        "429:soon",
        "500@0",
        "500@",
        "500@1,,2",
        "delay:-5",
        "delay:inf",  # time.sleep(inf) is an OverflowError in the server's thread
        "delay:nan",
        "delay:3600001",
        "429:1e400",
        "429:86401",
    ],
)
def test_parse_fault_rejects_bad_specs_with_a_usage_error(spec: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_fault(spec)
    assert repr(spec) in str(caught.value)
    assert "KIND[:ARG][@N|FIXTURE,...]" in str(caught.value)


def test_a_fault_can_name_the_fixtures_it_is_for() -> None:
    fault = parse_fault("delay:300@slow_case,3")
    assert fault == Fault("delay", 300.0, frozenset({3}), frozenset({"slow_case"}))
    assert fault.applies_to(7, "slow_case")
    assert fault.applies_to(3, "other")
    assert not fault.applies_to(7, "other")
    assert not fault.applies_to(7, None)


def test_a_fault_without_request_numbers_applies_to_every_request() -> None:
    every = parse_fault("500")
    some = parse_fault("500@2,4")
    assert all(every.applies_to(n) for n in range(1, 6))
    assert [n for n in range(1, 6) if some.applies_to(n)] == [2, 4]


def test_an_injected_429_carries_retry_after_and_counts_as_a_request(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns], "429:2@1")
    limited = post(server, "two_turns", [USER_1])
    assert limited.status_code == 429
    assert limited.headers["Retry-After"] == "2"
    assert limited.json()["error"]["type"] == "rate_limit"
    assert post(server, "two_turns", [USER_1]).status_code == 200
    assert [(e["number"], e["status"], e.get("fault")) for e in server.log] == [
        (1, 429, "429"),
        (2, 200, None),
    ]


def test_faults_apply_by_request_number_and_a_get_is_not_counted(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns], "500@2,3")
    statuses = [post(server, "two_turns", [USER_1]).status_code]
    httpx.get(server.url + "/models", timeout=5)
    # A step a fault answered was not served: the client may ask for it again.
    statuses += [post(server, "two_turns", [USER_1, CALL_1, RESULT_1]).status_code for _ in range(3)]
    assert statuses == [200, 500, 500, 200]


def test_a_malformed_fault_sends_a_body_that_is_not_json(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns], "malformed@1")
    reply = post(server, "two_turns", [USER_1])
    assert reply.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(reply.content)
    assert post(server, "two_turns", [USER_1]).json()["choices"][0]["message"]["tool_calls"]


def test_a_delay_fault_delays_only_the_requests_it_names(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns], "delay:300@1")
    started = time.perf_counter()
    assert post(server, "two_turns", [USER_1]).status_code == 200
    first = time.perf_counter() - started
    started = time.perf_counter()
    assert post(server, "two_turns", [USER_1, CALL_1, RESULT_1]).status_code == 200
    second = time.perf_counter() - started
    assert first >= 0.3
    assert second < first


def test_a_malformed_fault_on_a_stream_cuts_it_off_and_the_client_raises(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns], "malformed@1")
    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=0)
    user: Any = [{"role": "user", "content": "Echo hello"}]
    with (
        client.responses.stream(model="two_turns", input=user, tools=[FLAT_ECHO]) as stream,
        pytest.raises(RuntimeError, match=r"response\.completed"),
    ):
        stream.get_final_response()
    raw = post(server, "two_turns", [USER_1], stream=True)  # not served: it may be asked again
    assert raw.headers["content-type"] == "text/event-stream"
    assert raw.text.endswith("data: [DONE]\n\n")
