"""`zeroclaw_eval.backends.live`: the live client (`LiveProvider`) over real HTTP on loopback.

Scripted answers and faults come from `ReplayServer`; where a test needs to see request
headers or make the server say something ReplayServer never says (an HTTP-date
Retry-After, a 401 that echoes the key back), a tiny one-off `http.server` does it.
Retries never really sleep: an injected `sleep` records each wait.
"""

from __future__ import annotations

import asyncio
import email.utils
import gzip
import json
import re
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import httpx
import pytest

from tests.support.builders import write_fixture
from tests.support.one_off import OneOff, Reply, json_reply
from zeroclaw_eval._support.redaction import REDACTED
from zeroclaw_eval.backends.live import MAX_ERROR_DETAIL, MAX_RETRY_WAIT, LiveProvider, retry_after
from zeroclaw_eval.boundary.provider import Message, ModelResponse, ToolSpec
from zeroclaw_eval.config.settings import LiveOptions, ProviderSettings
from zeroclaw_eval.errors import ProviderError
from zeroclaw_eval.report.codec import report_to_dict
from zeroclaw_eval.reporters import builtin_names, get_reporter
from zeroclaw_eval.runner import RunOptions, run_suite
from zeroclaw_eval.serve.routing import load_cases
from zeroclaw_eval.serve.server import ReplayServer
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS

API_KEY = "sk-test-4f9c2e7a1b"


KEY_ENV = "ZEROCLAW_TEST_PROVIDER_KEY"


ECHO_SPEC = BUILTIN_TOOLS["echo"].spec


ARGUMENTS = {"message": 'hello "quoted" 東京'}


ECHO_CASE: dict[str, Any] = {
    "model_name": "echo-case",
    "turns": [
        {
            "user_input": "Echo hello",
            "steps": [
                {
                    "response": {
                        "type": "tool_calls",
                        "input_tokens": 30,
                        "output_tokens": 15,
                        "tool_calls": [{"id": "call_1", "name": "echo", "arguments": ARGUMENTS}],
                    }
                },
                {
                    "response": {
                        "type": "text",
                        "content": "The echo tool said: hello",
                        "input_tokens": 52,
                        "output_tokens": 9,
                    }
                },
            ],
        }
    ],
    "expects": {"tools_used": ["echo"]},
}


USER: list[Message] = [{"role": "user", "content": "Echo hello"}]


AFTER_TOOL: list[Message] = [
    *USER,
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "echo", "arguments": json.dumps(ARGUMENTS)},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": ARGUMENTS["message"]},
]


class Waits:
    """A `sleep` that records how long it was asked to wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def settings(base_url: str, **overrides: Any) -> ProviderSettings:
    values: dict[str, Any] = {
        "base_url": base_url,
        "model": "echo_case",
        "api_key_env": KEY_ENV,
        "max_retries": 2,
        "request_timeout_secs": 5.0,
    }
    values.update(overrides)
    return ProviderSettings(**values)


def complete(
    provider_settings: ProviderSettings,
    messages: list[Message] = USER,
    tools: list[ToolSpec] | None = None,
    *,
    waits: Waits | None = None,
    key: str = API_KEY,
    backoff: float = 0.01,
) -> ModelResponse:
    """One `complete` call through a fresh httpx client."""

    async def go() -> ModelResponse:
        async with httpx.AsyncClient() as client:
            provider = LiveProvider(
                provider_settings, key, client, sleep=waits or Waits(), backoff_secs=backoff
            )
            return await provider.complete(messages, [ECHO_SPEC] if tools is None else tools)

    return asyncio.run(go())


def fail(provider_settings: ProviderSettings, *, waits: Waits | None = None, key: str = API_KEY) -> str:
    """The message of the ProviderError one `complete` call raises."""
    with pytest.raises(ProviderError) as caught:
        complete(provider_settings, waits=waits, key=key)
    return str(caught.value)


@pytest.fixture
def echo_server(tmp_path: Path, serve: Callable[..., ReplayServer]) -> Callable[..., ReplayServer]:
    """Start a ReplayServer over the echo fixture with the given fault specs."""
    cases = load_cases([write_fixture(tmp_path / "fixtures", "echo_case.json", ECHO_CASE)])
    return lambda *faults: serve(cases, *faults)


@pytest.fixture
def one_off() -> Iterator[Callable[[Callable[[int, dict[str, str], bytes], Reply]], OneOff]]:
    started: list[OneOff] = []

    def start(respond: Callable[[int, dict[str, str], bytes], Reply]) -> OneOff:
        server = OneOff(respond)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


TEXT_COMPLETION = {
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1},
}


def test_a_scripted_tool_call_comes_back_with_raw_json_argument_text_and_usage(
    echo_server: Callable[..., ReplayServer],
) -> None:
    server = echo_server()
    response = complete(settings(server.url))
    assert response.content is None
    assert len(response.tool_calls) == 1
    call = response.tool_calls[0]
    assert (call.id, call.name) == ("call_1", "echo")
    assert isinstance(call.arguments, str)
    assert json.loads(call.arguments) == ARGUMENTS
    assert (response.input_tokens, response.output_tokens) == (30, 15)


def test_after_the_tool_result_the_scripted_text_comes_back_with_its_usage(
    echo_server: Callable[..., ReplayServer],
) -> None:
    server = echo_server()
    response = complete(settings(server.url), AFTER_TOOL)
    assert response.content == "The echo tool said: hello"
    assert response.tool_calls == ()
    assert (response.input_tokens, response.output_tokens) == (52, 9)
    assert [entry["status"] for entry in server.log] == [200]


def test_a_response_without_usage_counts_zero_tokens(one_off: Callable[..., OneOff]) -> None:
    body = {"choices": [{"message": {"role": "assistant", "content": "hi"}}]}
    server = one_off(lambda n, h, b: json_reply(200, body))
    response = complete(settings(server.url))
    assert (response.content, response.input_tokens, response.output_tokens) == ("hi", 0, 0)


def test_tool_call_arguments_sent_as_an_object_become_json_text(one_off: Callable[..., OneOff]) -> None:
    call = {"id": "c9", "type": "function", "function": {"name": "echo", "arguments": {"message": "東京"}}}
    body = {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [call]}}]}
    server = one_off(lambda n, h, b: json_reply(200, body))
    response = complete(settings(server.url))
    assert json.loads(response.tool_calls[0].arguments) == {"message": "東京"}


def test_the_request_carries_model_messages_tools_and_the_key_in_the_authorization_header(
    one_off: Callable[..., OneOff],
) -> None:
    server = one_off(lambda n, h, b: json_reply(200, TEXT_COMPLETION))
    provider = settings(server.url + "/", headers={"X-Team": "evals"})
    complete(provider, AFTER_TOOL)
    [(path, headers, raw)] = server.requests
    assert path == "/v1/chat/completions"
    assert headers["authorization"] == f"Bearer {API_KEY}"
    assert headers["x-team"] == "evals"
    assert headers["content-type"].startswith("application/json")
    body = json.loads(raw)
    assert body["model"] == "echo_case"
    assert body["messages"] == AFTER_TOOL
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "echo",
                "description": ECHO_SPEC.description,
                "parameters": ECHO_SPEC.parameters,
            },
        }
    ]
    assert "temperature" not in body
    assert "max_tokens" not in body


def test_temperature_and_max_tokens_are_sent_when_set_even_a_zero_temperature(
    one_off: Callable[..., OneOff],
) -> None:
    server = one_off(lambda n, h, b: json_reply(200, TEXT_COMPLETION))
    complete(settings(server.url, temperature=0.0, max_tokens=256))
    body = json.loads(server.requests[0][2])
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == 256


def test_no_tools_on_offer_sends_no_tools_key_and_no_key_sends_no_authorization(
    one_off: Callable[..., OneOff],
) -> None:
    server = one_off(lambda n, h, b: json_reply(200, TEXT_COMPLETION))
    complete(settings(server.url, api_key_env=""), tools=[], key="")
    [(_, headers, raw)] = server.requests
    assert "tools" not in json.loads(raw)
    assert "authorization" not in headers


def test_a_429_is_retried_after_exactly_the_retry_after_seconds(
    echo_server: Callable[..., ReplayServer],
) -> None:
    server = echo_server("429:3@1")
    waits = Waits()
    response = complete(settings(server.url), waits=waits)
    assert response.tool_calls[0].name == "echo"
    assert waits.waits == [3.0]
    assert [entry["status"] for entry in server.log] == [429, 200]


def test_a_fractional_retry_after_is_honoured(echo_server: Callable[..., ReplayServer]) -> None:
    server = echo_server("429:0.25@1")
    waits = Waits()
    complete(settings(server.url), waits=waits)
    assert waits.waits == [0.25]


def test_a_very_long_retry_after_is_capped(echo_server: Callable[..., ReplayServer]) -> None:
    server = echo_server("429:600@1")
    waits = Waits()
    complete(settings(server.url), waits=waits)
    assert waits.waits == [MAX_RETRY_WAIT]


def test_a_retry_after_given_as_an_http_date_is_waited_until(one_off: Callable[..., OneOff]) -> None:
    def respond(number: int, headers: dict[str, str], body: bytes) -> Reply:
        if number == 1:
            when = email.utils.formatdate(time.time() + 20, usegmt=True)
            return json_reply(429, {"error": {"message": "slow down"}}, {"Retry-After": when})
        return json_reply(200, TEXT_COMPLETION)

    server = one_off(respond)
    waits = Waits()
    assert complete(settings(server.url), waits=waits).content == "done"
    assert len(waits.waits) == 1
    # An HTTP date has whole seconds: the wait is 20 s minus up to a second of rounding.
    assert 18.0 <= waits.waits[0] <= 20.0


def test_retry_after_reads_seconds_and_dates_and_ignores_garbage() -> None:
    def parsed(value: str) -> float | None:
        return retry_after(httpx.Response(429, headers={"Retry-After": value}))

    assert parsed("7") == 7.0
    assert parsed("-3") == 0.0
    assert parsed(email.utils.formatdate(time.time() - 3600, usegmt=True)) == 0.0
    future = parsed(email.utils.formatdate(time.time() + 90, usegmt=True))
    assert future is not None
    assert 88.0 <= future <= 90.0
    assert parsed("soon") is None
    assert retry_after(httpx.Response(429)) is None


def test_a_429_without_a_usable_retry_after_backs_off_exponentially(one_off: Callable[..., OneOff]) -> None:
    def respond(number: int, headers: dict[str, str], body: bytes) -> Reply:
        if number < 3:
            return json_reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "whenever"})
        return json_reply(200, TEXT_COMPLETION)

    server = one_off(respond)
    waits = Waits()
    assert complete(settings(server.url), waits=waits, backoff=0.01).content == "done"
    assert waits.waits == [0.01, 0.02]


def test_a_500_is_retried_with_backoff_then_succeeds(echo_server: Callable[..., ReplayServer]) -> None:
    server = echo_server("500@1,2")
    waits = Waits()
    response = complete(settings(server.url, max_retries=3), waits=waits, backoff=0.01)
    assert response.tool_calls[0].id == "call_1"
    assert waits.waits == [0.01, 0.02]
    assert [entry["status"] for entry in server.log] == [500, 500, 200]


def test_retries_exhausted_on_500_name_the_status_and_the_attempts(
    echo_server: Callable[..., ReplayServer],
) -> None:
    server = echo_server("500")
    waits = Waits()
    message = fail(settings(server.url, max_retries=2), waits=waits)
    assert "HTTP 500" in message
    assert "after 3 attempt(s)" in message
    assert "server error (injected fault)" in message
    assert len(waits.waits) == 2
    assert len(server.log) == 3


def test_retries_exhausted_on_429_name_the_status_and_the_attempts(
    echo_server: Callable[..., ReplayServer],
) -> None:
    server = echo_server("429:1")
    waits = Waits()
    message = fail(settings(server.url, max_retries=1), waits=waits)
    assert "HTTP 429" in message
    assert "after 2 attempt(s)" in message
    assert waits.waits == [1.0]


def test_max_retries_zero_makes_one_attempt(echo_server: Callable[..., ReplayServer]) -> None:
    server = echo_server("500@1")
    waits = Waits()
    message = fail(settings(server.url, max_retries=0), waits=waits)
    assert "HTTP 500" in message
    assert waits.waits == []
    assert len(server.log) == 1


@pytest.mark.parametrize("status", [401, 403])
def test_an_authentication_failure_names_the_key_variable_and_is_not_retried(
    one_off: Callable[..., OneOff], status: int
) -> None:
    server = one_off(lambda n, h, b: json_reply(status, {"error": {"message": "invalid key"}}))
    waits = Waits()
    message = fail(settings(server.url), waits=waits)
    assert "authentication failed" in message
    assert f"HTTP {status}" in message
    assert f"${KEY_ENV}" in message
    assert "invalid key" in message
    assert len(server.requests) == 1
    assert waits.waits == []


def test_a_404_says_to_check_base_url_and_model(echo_server: Callable[..., ReplayServer]) -> None:
    server = echo_server()
    wrong = server.url.replace("/v1", "/v2")
    waits = Waits()
    message = fail(settings(wrong), waits=waits)
    assert "not found (HTTP 404)" in message
    assert "check base_url and model" in message
    assert "'echo_case'" in message
    assert waits.waits == []


def test_a_malformed_body_is_a_malformed_response_error_and_is_not_retried(
    echo_server: Callable[..., ReplayServer],
) -> None:
    server = echo_server("malformed@1")
    waits = Waits()
    message = fail(settings(server.url), waits=waits)
    assert "malformed response" in message
    assert "not JSON" in message
    assert waits.waits == []
    assert len(server.log) == 1


@pytest.mark.parametrize("status", [200, 500])
def test_a_reply_over_the_size_bound_is_a_provider_error_never_read_whole(
    one_off: Callable[..., OneOff], monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    from zeroclaw_eval.backends import live

    monkeypatch.setattr(live, "MAX_RESPONSE_BYTES", 1000)
    body = json.dumps({**TEXT_COMPLETION, "padding": "x" * 5000}).encode()
    server = one_off(lambda n, h, b: (status, {"Content-Type": "application/json"}, body))
    message = fail(settings(server.url, max_retries=0))
    assert f"(HTTP {status}) is over 1,000 bytes: no chat completion is that large" in message


def test_a_reply_under_the_size_bound_reads_as_before_compressed_or_not(
    one_off: Callable[..., OneOff],
) -> None:
    server = one_off(lambda n, h, b: json_reply(200, TEXT_COMPLETION))
    assert complete(settings(server.url)).content == "done"
    packed = gzip.compress(json.dumps(TEXT_COMPLETION).encode())
    gzipped = one_off(
        lambda n, h, b: (200, {"Content-Type": "application/json", "Content-Encoding": "gzip"}, packed)
    )
    assert complete(settings(gzipped.url)).content == "done"


@pytest.mark.parametrize("status", [200, 400])
def test_a_body_nested_deeper_than_json_parses_is_a_provider_error(
    one_off: Callable[..., OneOff], status: int
) -> None:
    deep = b'{"error":' * 5_000 + b"1" + b"}" * 5_000
    server = one_off(lambda n, h, b: (status, {"Content-Type": "application/json"}, deep))
    message = fail(settings(server.url, max_retries=0))
    # A 200's body is the reply, a 400's the error it explains: neither may raise past here.
    assert ("malformed response" if status == 200 else "answered HTTP 400") in message


def test_json_of_the_wrong_shape_is_a_malformed_response_error(one_off: Callable[..., OneOff]) -> None:
    server = one_off(lambda n, h, b: json_reply(200, {"object": "list", "data": []}))
    message = fail(settings(server.url))
    assert "malformed response" in message
    assert "choices[0].message" in message


def test_a_closed_port_cannot_be_reached_after_the_retries() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    waits = Waits()
    message = fail(settings(f"http://127.0.0.1:{port}/v1", max_retries=2), waits=waits)
    assert "cannot reach" in message
    assert f"127.0.0.1:{port}" in message
    assert "after 3 attempt(s)" in message
    assert "ConnectError" in message
    assert len(waits.waits) == 2


def test_a_request_slower_than_the_request_timeout_is_retried(
    echo_server: Callable[..., ReplayServer],
) -> None:
    server = echo_server("delay:600@1")
    waits = Waits()
    started = time.perf_counter()
    response = complete(settings(server.url, request_timeout_secs=0.2, max_retries=1), waits=waits)
    elapsed = time.perf_counter() - started
    assert response.tool_calls[0].name == "echo"
    assert len(waits.waits) == 1
    assert elapsed < 0.55, "the first attempt should have been abandoned at the request timeout"


def test_every_attempt_timing_out_is_a_cannot_reach_error(echo_server: Callable[..., ReplayServer]) -> None:
    server = echo_server("delay:500")
    message = fail(settings(server.url, request_timeout_secs=0.1, max_retries=1))
    assert "cannot reach" in message
    assert "after 2 attempt(s)" in message
    assert "Timeout" in message


def _echo_key(status: int, *, as_text: bool = False) -> Callable[[int, dict[str, str], bytes], Reply]:
    """A server that repeats the Authorization header back in its error text."""

    def respond(number: int, headers: dict[str, str], body: bytes) -> Reply:
        said = f"Incorrect API key provided: {headers.get('authorization')}"
        if as_text:
            return status, {"Content-Type": "text/plain"}, said.encode()
        return json_reply(status, {"error": {"message": said}})

    return respond


@pytest.mark.parametrize(
    ("respond", "why"),
    [
        (_echo_key(401), "authentication failed"),
        (_echo_key(403), "authentication failed"),
        (_echo_key(404), "check base_url"),
        (_echo_key(400), "HTTP 400"),
        (_echo_key(429), "HTTP 429 after 2 attempt(s)"),
        (_echo_key(500), "HTTP 500 after 2 attempt(s)"),
        (_echo_key(502, as_text=True), "HTTP 502"),
    ],
    ids=["401", "403", "404", "400", "429", "500", "502-text"],
)
def test_the_key_never_appears_in_an_error_even_when_the_server_echoes_it(
    one_off: Callable[..., OneOff],
    respond: Callable[[int, dict[str, str], bytes], Reply],
    why: str,
) -> None:
    server = one_off(respond)
    message = fail(settings(server.url, max_retries=1))
    assert why in message
    assert API_KEY not in message
    assert f"Bearer {REDACTED}" in message, "the echoed text should be there, with the key scrubbed"


def test_the_key_never_appears_in_a_malformed_response_error(one_off: Callable[..., OneOff]) -> None:
    body = {"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": API_KEY}}
    server = one_off(lambda n, h, b: json_reply(200, body))
    message = fail(settings(server.url))
    assert "malformed response" in message
    assert API_KEY not in message
    assert REDACTED in message


# --- every shape of the key, and scrubbing before cutting --------------------------------------


def test_a_key_error_cut_at_the_limit_leaks_no_part_of_the_key(one_off: Callable[..., OneOff]) -> None:
    # The key starts 11 characters before the cut: scrubbed after cutting, its first 11
    # characters would survive, too short to match the key any more.
    said = "x" * (MAX_ERROR_DETAIL - 11) + API_KEY + " and more"
    server = one_off(lambda n, h, b: json_reply(400, {"error": {"message": said}}))
    message = fail(settings(server.url))
    assert REDACTED[:5] in message
    assert API_KEY[:8] not in message


def test_a_key_split_by_whitespace_is_scrubbed_before_the_whitespace_is_collapsed(
    one_off: Callable[..., OneOff],
) -> None:
    key = "sk-test-4f9c\t\t2e7a1b"  # a tab inside the value is a header httpx still sends
    server = one_off(_echo_key(401))
    message = fail(settings(server.url), key=key)
    assert f"Bearer {REDACTED}" in message
    assert "2e7a1b" not in message


def test_a_key_with_its_newline_that_no_header_can_carry_is_not_echoed_by_the_http_error(
    one_off: Callable[..., OneOff],
) -> None:
    # Once connected, the HTTP client refuses the header and quotes it, escaped, in its
    # error: the escaped shape of the key must be scrubbed as well as the raw one.
    server = one_off(lambda n, h, b: json_reply(200, TEXT_COMPLETION))
    message = fail(settings(server.url, max_retries=0), key=API_KEY + "\n")
    assert "Illegal header value" in message
    assert "4f9c2e7a1b" not in message


# A key that passes configuration but reads differently escaped or URL-encoded.
ODD_KEY = "sk-zeroclaw_user/+=\"'\\Zq9vXk2LmP"
ODD_TAIL = "Zq9vXk2LmP"


def _odd_shapes() -> str:
    return " | ".join(
        [
            ODD_KEY,
            repr(ODD_KEY),
            json.dumps(ODD_KEY),
            json.dumps(ODD_KEY).replace("/", "\\/"),
            quote(ODD_KEY, safe=""),
            re.sub("%[0-9A-F]{2}", lambda escape: escape.group().lower(), quote(ODD_KEY, safe="")),
            quote_plus(ODD_KEY),
        ]
    )


def _odd_provider(number: int, headers: dict[str, str], body: bytes) -> Reply:
    """Says the key in every shape: in a 401 to the case that asks to fail, else as the
    model's answer."""
    if b"fail" in body:
        return json_reply(401, {"error": {"message": f"bad key {_odd_shapes()}"}})
    completion = {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": f"key: {_odd_shapes()}"}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1},
    }
    return json_reply(200, completion)


def test_a_live_run_whose_provider_echoes_the_key_in_every_shape_leaks_it_in_no_report_format(
    tmp_path: Path, one_off: Callable[..., OneOff]
) -> None:
    server = one_off(_odd_provider)
    suite = tmp_path / "suite"
    for name, said in (("answers", "Say it"), ("fails", "Please fail")):
        case = {
            "model_name": name,
            "turns": [{"user_input": said}],
            "expects": {"response_contains": ["key"]},
        }
        write_fixture(suite, f"{name}.json", case)
    live = LiveOptions(settings(server.url, max_retries=0), ODD_KEY)
    report = run_suite(suite, RunOptions(mode="live", live=live, case_timeout_secs=10.0))
    assert [case.status for case in report.cases] == ["passed", "error"]
    rendered = {name: get_reporter(name)(report, color=False) for name in builtin_names()}
    rendered["json-dict"] = json.dumps(report_to_dict(report), ensure_ascii=False)
    assert all(REDACTED in text for text in rendered.values())
    leaking = [name for name, text in rendered.items() if ODD_TAIL in text]
    assert leaking == [], "a shape of the API key appears in these outputs"


def _raw_reply(body: str) -> Reply:
    return 200, {"Content-Type": "application/json"}, body.encode()


@pytest.mark.parametrize(
    ("usage", "shown"),
    [
        ('{"prompt_tokens": Infinity, "completion_tokens": 1}', "usage.prompt_tokens is no token count"),
        ('{"prompt_tokens": 1, "completion_tokens": NaN}', "usage.completion_tokens is no token count"),
        ('{"prompt_tokens": 1e400, "completion_tokens": 1}', ": inf"),
        ('{"prompt_tokens": -3, "completion_tokens": 1}', ": -3"),
        ('{"prompt_tokens": "12", "completion_tokens": 1}', ": '12'"),
        ('{"prompt_tokens": 2.5, "completion_tokens": 1}', ": 2.5"),
        ('{"prompt_tokens": true, "completion_tokens": 1}', ": True"),
        ('{"prompt_tokens": 9007199254740992, "completion_tokens": 1}', ": a larger number"),
        ('{"prompt_tokens": ' + "9" * 4300 + ', "completion_tokens": 1}', ": a larger number"),
    ],
)
def test_a_token_count_no_reply_holds_is_a_malformed_reply_naming_it(
    one_off: Callable[..., OneOff], usage: str, shown: str
) -> None:
    # Read as it was, Infinity crashed the run, 4,300 digits were recorded into a fixture
    # that admission then refused, and a negative count passed any budget.
    body = '{"choices": [{"message": {"role": "assistant", "content": "hi"}}], "usage": ' + usage + "}"
    server = one_off(lambda n, h, b: _raw_reply(body))
    message = fail(settings(server.url))
    assert "malformed response from" in message
    assert shown in message
    assert "(a whole number from 0 to 9007199254740991)" in message


def test_a_null_usage_or_count_is_zero_tokens(one_off: Callable[..., OneOff]) -> None:
    body = (
        '{"choices": [{"message": {"role": "assistant", "content": "hi"}}], "usage": {"prompt_tokens": null}}'
    )
    server = one_off(lambda n, h, b: _raw_reply(body))
    response = complete(settings(server.url))
    assert (response.input_tokens, response.output_tokens) == (0, 0)


def test_a_lone_surrogate_in_a_reply_enters_the_run_as_the_replacement_character(
    one_off: Callable[..., OneOff],
) -> None:
    # json.dumps writes each lone surrogate as its escape, as a provider could: in the
    # content, in a call's id and in its arguments (JSON text themselves, escaped again).
    arguments = json.dumps({"message": "a\ud800"})
    call = {"id": "c\udc01", "type": "function", "function": {"name": "echo", "arguments": arguments}}
    message = {"role": "assistant", "content": "x\ud800y", "tool_calls": [call]}
    server = one_off(lambda n, h, b: json_reply(200, {"choices": [{"message": message}]}))
    response = complete(settings(server.url))
    assert response.content == "x\ufffdy"
    (got,) = response.tool_calls
    assert got.id == "c\ufffd"
    assert json.loads(got.arguments) == {"message": "a\ufffd"}


def test_a_conversation_holding_a_lone_surrogate_is_sent_as_its_escape(
    one_off: Callable[..., OneOff],
) -> None:
    # httpx's `json=` cannot encode it: the run ended in a UnicodeEncodeError traceback.
    server = one_off(lambda n, h, b: json_reply(200, TEXT_COMPLETION))
    messages: list[Message] = [{"role": "user", "content": "a tool said \ud800"}]
    assert complete(settings(server.url), messages).content == "done"
    ((_, headers, sent),) = server.requests
    assert headers["content-type"] == "application/json"
    assert b"a tool said \\ud800" in sent
    assert json.loads(sent)["messages"][0]["content"] == "a tool said \ud800"
