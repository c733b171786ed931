"""`zeroclaw eval serve` in process: the script check, routing, faults, the request log,
and the official `openai` client talking to it unchanged, over real HTTP on loopback."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from tests.builders import text_step as text_step_with_tokens, write_fixture
from zeroclaw_eval.errors import Divergence, UsageError
from zeroclaw_eval.fixtures.case import Case
from zeroclaw_eval.run.conversation import next_step
from zeroclaw_eval.run.provider import ModelResponse, ToolCallRequest
from zeroclaw_eval.run.tools import BUILTIN_TOOLS
from zeroclaw_eval.serve.bodies import completion
from zeroclaw_eval.serve.faults import Fault, parse_fault
from zeroclaw_eval.serve.routing import load_cases
from zeroclaw_eval.serve.server import ReplayServer


def tool_step(call_id: str, message: str, tokens: tuple[int, int] = (20, 10)) -> dict[str, Any]:
    return {
        "response": {
            "type": "tool_calls",
            "input_tokens": tokens[0],
            "output_tokens": tokens[1],
            "tool_calls": [{"id": call_id, "name": "echo", "arguments": {"message": message}}],
        }
    }


text_step = partial(text_step_with_tokens, tokens=(30, 5))


def fixture(model_name: str, *turns: tuple[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "model_name": model_name,
        "turns": [{"user_input": text, "steps": steps} for text, steps in turns],
        "expects": {"min_tool_calls": 1},
    }


# Two turns: a tool round then text, then a text-only turn.
TWO_TURNS = fixture(
    "two-turns",
    ("Echo hello", [tool_step("call_1", "hello"), text_step("The echo tool said: hello")]),
    ("Now say bye", [text_step("bye")]),
)
OTHER = fixture("other-name", ("What is the weather?", [text_step("Sunny.")]))

USER_1 = {"role": "user", "content": "Echo hello"}
CALL_1 = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "echo", "arguments": '{"message":"hello"}'}}
    ],
}
RESULT_1 = {"role": "tool", "tool_call_id": "call_1", "content": "hello"}
ANSWER_1 = {"role": "assistant", "content": "The echo tool said: hello"}
USER_2 = {"role": "user", "content": "Now say bye"}
TWO_TURNS_DONE = [USER_1, CALL_1, RESULT_1, ANSWER_1, USER_2, {"role": "assistant", "content": "bye"}]


def load(folder: Path, **fixtures: dict[str, Any]) -> list[Case]:
    """Write fixtures named `stem.json` and admit them for serving."""
    return load_cases([write_fixture(folder, f"{stem}.json", data) for stem, data in fixtures.items()])


@pytest.fixture
def two_turns(tmp_path: Path) -> Case:
    return load(tmp_path, two_turns=TWO_TURNS)[0]


def stop_soon(server: ReplayServer) -> None:
    """Stop `server` without waiting out serve_forever's half-second shutdown poll."""
    threading.Thread(target=server.stop, daemon=True).start()


@pytest.fixture
def serve() -> Iterator[Callable[..., ReplayServer]]:
    """Start ReplayServers; each is stopped when the test ends."""
    started: list[ReplayServer] = []

    def start(cases: list[Case], *faults: str, single: bool = False) -> ReplayServer:
        server = ReplayServer(cases, [parse_fault(f) for f in faults], single=single).start()
        started.append(server)
        return server

    yield start
    for server in started:
        stop_soon(server)


def post(server: ReplayServer, model: str, messages: list[Any]) -> httpx.Response:
    return httpx.post(
        server.url + "/chat/completions", json={"model": model, "messages": messages}, timeout=5
    )


# --- next_step: following the script -----------------------------------------------------------


def test_next_step_follows_the_script_across_tool_rounds_and_turns(two_turns: Case) -> None:
    trace = two_turns.trace
    first = next_step(trace, [USER_1])
    assert first.content is None
    assert first.tool_calls == (ToolCallRequest("call_1", "echo", '{"message":"hello"}'),)
    assert (first.input_tokens, first.output_tokens) == (20, 10)

    second = next_step(trace, [USER_1, CALL_1, RESULT_1])
    assert second == ModelResponse("The echo tool said: hello", (), 30, 5)

    third = next_step(trace, [USER_1, CALL_1, RESULT_1, ANSWER_1, USER_2])
    assert third.content == "bye"


def test_next_step_skips_system_and_developer_messages(two_turns: Case) -> None:
    messages = [{"role": "system", "content": "be brief"}, USER_1, {"role": "developer", "content": "x"}]
    assert next_step(two_turns.trace, messages).tool_calls[0].id == "call_1"


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        pytest.param(
            [{"role": "user", "content": "Echo goodbye"}],
            'messages[0]: turn 1 expects the user input "Echo hello"',
            id="wrong-user-input",
        ),
        pytest.param(
            [USER_1, CALL_1, RESULT_1, ANSWER_1, {"role": "assistant", "content": "more"}],
            "messages[4]: an assistant message the script does not have",
            id="assistant-message-the-script-lacks",
        ),
        pytest.param(
            [{"role": "assistant", "content": "I start"}, USER_1],
            "messages[0]: an assistant message the script does not have",
            id="assistant-before-any-user",
        ),
        pytest.param([USER_1, CALL_1], "the results of call_1 were not fed back", id="tool-results-missing"),
        pytest.param(
            [USER_1, CALL_1, USER_2],
            "messages[2]: a user message came before the results of call_1",
            id="user-before-tool-results",
        ),
        pytest.param(
            [USER_1, CALL_1, {"role": "tool", "tool_call_id": "call_9", "content": "x"}],
            "messages[2]: a tool result for 'call_9', which no pending call has",
            id="unknown-tool-call-id",
        ),
        pytest.param(
            [USER_1, CALL_1, RESULT_1, {"role": "tool", "tool_call_id": "call_1", "content": "again"}],
            "messages[3]: a tool result for 'call_1', which no pending call has",
            id="tool-result-fed-back-twice",
        ),
        pytest.param(
            [USER_1, CALL_1, RESULT_1, ANSWER_1],
            "turn 1 scripts only 2 step(s); the agent asked for another",
            id="request-beyond-the-scripted-steps",
        ),
        pytest.param(
            [*TWO_TURNS_DONE, {"role": "user", "content": "third"}],
            "messages[6]: the fixture scripts only 2 turn(s)",
            id="turn-beyond-the-script",
        ),
        pytest.param(
            [USER_1, {"role": "function", "name": "echo", "content": "x"}],
            "messages[1]: unexpected role 'function'",
            id="unexpected-role",
        ),
        pytest.param(
            [USER_1, {"role": "assistant", "content": "Sure, hello."}],
            "messages[1]: the script asked for the tool calls [('call_1', 'echo')], the agent sent back []",
            id="text-where-the-script-called-tools",
        ),
        pytest.param(
            [
                USER_1,
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "list_dir"}}],
                },
            ],
            "the script asked for the tool calls [('call_1', 'echo')], the agent sent back"
            " [('call_1', 'list_dir')]",
            id="different-tool-calls",
        ),
        pytest.param(
            [{"role": "system", "content": "x"}], "the conversation has no user message", id="no-user"
        ),
    ],
)
def test_each_divergence_gets_a_clear_message(two_turns: Case, messages: list[Any], expected: str) -> None:
    with pytest.raises(Divergence) as caught:
        next_step(two_turns.trace, messages)
    assert expected in str(caught.value)


def test_tool_calls_where_the_script_answered_with_text_diverge(two_turns: Case) -> None:
    messages: list[Any] = [USER_1, CALL_1, RESULT_1, {**CALL_1, "content": "text"}]
    with pytest.raises(
        Divergence, match=r"messages\[3\]: the script answered with text here, not tool calls"
    ):
        next_step(two_turns.trace, messages)


def test_completion_is_an_openai_chat_completion_body() -> None:
    response = ModelResponse(None, (ToolCallRequest("c1", "echo", '{"message":"x"}'),), 7, 3)
    body = completion(response, "m", 4)
    assert body["object"] == "chat.completion"
    assert body["model"] == "m"
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": '{"message":"x"}'}}
        ],
    }
    assert body["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    text = completion(ModelResponse("hi"), "m", 5)
    assert text["choices"][0]["finish_reason"] == "stop"
    assert "tool_calls" not in text["choices"][0]["message"]


# --- over HTTP: routing -------------------------------------------------------------------------


def test_a_request_picks_its_fixture_by_file_stem_or_model_name(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    server = serve(load(tmp_path, two_turns=TWO_TURNS, weather=OTHER))
    by_stem = post(server, "weather", [{"role": "user", "content": "What is the weather?"}])
    by_name = post(server, "two-turns", [USER_1])
    assert by_stem.status_code == 200
    assert by_stem.json()["choices"][0]["message"]["content"] == "Sunny."
    assert by_name.status_code == 200
    assert by_name.json()["choices"][0]["message"]["tool_calls"][0]["id"] == "call_1"
    assert [entry["fixture"] for entry in server.log] == ["weather.json", "two_turns.json"]


def test_a_model_that_names_no_fixture_is_routed_by_the_first_user_message(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    server = serve(load(tmp_path, two_turns=TWO_TURNS, weather=OTHER))
    reply = post(server, "gpt-4o-mini", [{"role": "user", "content": "What is the weather?"}])
    assert reply.status_code == 200
    assert reply.json()["choices"][0]["message"]["content"] == "Sunny."
    assert reply.json()["model"] == "gpt-4o-mini"
    assert server.log[0]["fixture"] == "weather.json"


def test_a_request_matching_no_fixture_is_a_400_listing_what_is_served(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    server = serve(load(tmp_path, two_turns=TWO_TURNS, weather=OTHER))
    reply = post(server, "gpt-4o-mini", [{"role": "user", "content": "Something else"}])
    assert reply.status_code == 400
    message = reply.json()["error"]["message"]
    assert "no fixture is named 'gpt-4o-mini' or starts with this user message" in message
    assert "serving: two_turns, weather" in message
    assert reply.json()["error"]["type"] == "divergence"


def test_fixtures_sharing_a_first_message_are_told_apart_by_the_conversation(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    go_on = fixture("same", ("Hi", [text_step("Hello!")]), ("go on", [text_step("Going on.")]))
    stop = fixture("same", ("Hi", [text_step("Hello!")]), ("stop", [text_step("Stopping.")]))
    server = serve(load(tmp_path, go_on=go_on, stop=stop))
    hi = {"role": "user", "content": "Hi"}
    # Both scripts answer the first turn alike, so either may answer it.
    assert post(server, "same", [hi]).json()["choices"][0]["message"]["content"] == "Hello!"
    conversation = [hi, {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "stop"}]
    reply = post(server, "same", conversation)
    assert reply.status_code == 200
    assert reply.json()["choices"][0]["message"]["content"] == "Stopping."
    assert server.log[-1]["fixture"] == "stop.json"


def test_a_conversation_that_fits_several_fixtures_with_different_answers_is_ambiguous(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    server = serve(
        load(
            tmp_path,
            left=fixture("same", ("Hi", [text_step("Left.")])),
            right=fixture("same", ("Hi", [text_step("Right.")])),
        )
    )
    reply = post(server, "same", [{"role": "user", "content": "Hi"}])
    assert reply.status_code == 400
    message = reply.json()["error"]["message"]
    assert "fits several fixtures (left.json, right.json)" in message
    assert "name one in the request's model" in message
    # Named by file stem, each is unambiguous.
    named = post(server, "right", [{"role": "user", "content": "Hi"}])
    assert named.json()["choices"][0]["message"]["content"] == "Right."


def test_a_conversation_that_fits_none_of_the_candidates_says_so(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    server = serve(
        load(
            tmp_path,
            left=fixture("same", ("Hi", [text_step("Left.")])),
            right=fixture("same", ("Hi", [text_step("Right.")])),
        )
    )
    reply = post(server, "same", [{"role": "user", "content": "Bye"}])
    assert reply.status_code == 400
    assert "the conversation follows none of left.json, right.json" in reply.json()["error"]["message"]


def test_single_mode_serves_its_fixture_whatever_the_model(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    server = serve(load(tmp_path, weather=OTHER), single=True)
    reply = post(server, "anything-at-all", [{"role": "user", "content": "What is the weather?"}])
    assert reply.json()["choices"][0]["message"]["content"] == "Sunny."


def test_a_divergence_is_a_400_saying_where(two_turns: Case, serve: Callable[..., ReplayServer]) -> None:
    server = serve([two_turns])
    reply = post(server, "two_turns", [USER_1, CALL_1])
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert error["type"] == "divergence"
    assert error["message"].startswith("diverged from the script of two_turns")
    assert error["message"].endswith("the results of call_1 were not fed back")
    assert server.log[0]["status"] == 400
    assert "not fed back" in server.log[0]["divergence"]


def test_a_divergence_names_the_fixture_it_was_checked_against(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    # The agent names a real model; the server picked two_turns.json by the first user
    # message, so that is the script the agent diverged from and the one to name.
    server = serve([two_turns])
    reply = post(server, "gpt-4o-mini", [USER_1, CALL_1])
    assert reply.status_code == 400
    assert "two_turns.json" in reply.json()["error"]["message"]


def test_a_body_that_is_not_json_is_a_400(two_turns: Case, serve: Callable[..., ReplayServer]) -> None:
    server = serve([two_turns])
    reply = httpx.post(server.url + "/chat/completions", content=b"{not json", timeout=5)
    assert reply.status_code == 400
    assert "not a JSON object" in reply.json()["error"]["message"]


def test_unknown_routes_are_404(two_turns: Case, serve: Callable[..., ReplayServer]) -> None:
    server = serve([two_turns])
    assert httpx.get(server.url + "/nothing", timeout=5).status_code == 404
    assert httpx.post(server.url + "/completions", json={}, timeout=5).status_code == 404


# --- over HTTP: models and the request log ---------------------------------------------------


def test_get_models_lists_the_fixture_stems(tmp_path: Path, serve: Callable[..., ReplayServer]) -> None:
    server = serve(load(tmp_path, weather=OTHER, two_turns=TWO_TURNS))
    listed = httpx.get(server.url + "/models", timeout=5).json()
    assert listed["object"] == "list"
    assert [model["id"] for model in listed["data"]] == ["two_turns", "weather"]


def test_the_request_log_holds_every_request_and_the_tool_results_fed_back(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    assert post(server, "two_turns", [USER_1]).status_code == 200
    assert post(server, "two_turns", [USER_1, CALL_1, RESULT_1]).status_code == 200
    assert post(server, "two_turns", [USER_1, CALL_1]).status_code == 400
    base = server.url.removesuffix("/v1")
    log = httpx.get(base + "/_zeroclaw/requests", timeout=5).json()
    assert [(e["number"], e["status"], e["fixture"], e["model"]) for e in log] == [
        (1, 200, "two_turns.json", "two_turns"),
        (2, 200, "two_turns.json", "two_turns"),
        (3, 400, "two_turns.json", "two_turns"),
    ]
    assert log[1]["messages"] == [USER_1, CALL_1, RESULT_1]
    fed_back = [m for m in log[1]["messages"] if m["role"] == "tool"]
    assert fed_back == [{"role": "tool", "tool_call_id": "call_1", "content": "hello"}]
    assert "not fed back" in log[2]["divergence"]


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "example.com", "::"])
def test_a_host_that_is_not_loopback_is_refused(two_turns: Case, host: str) -> None:
    with pytest.raises(UsageError, match="loopback only"):
        ReplayServer([two_turns], host=host)


def test_a_hostname_that_merely_starts_with_127_is_refused(two_turns: Case) -> None:
    # "127.example.com" is a DNS name, not an address in 127.0.0.0/8: it may resolve to
    # any interface, so it must not pass the loopback check by its prefix.
    with pytest.raises(UsageError, match="loopback only"):
        ReplayServer([two_turns], host="127.example.com")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_loopback_hosts_are_served(two_turns: Case, host: str) -> None:
    server = ReplayServer([two_turns], host=host).start()
    try:
        assert post(server, "two_turns", [USER_1]).status_code == 200
    finally:
        stop_soon(server)


def test_a_kept_alive_connection_answers_without_stalling(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    # Each answer is a few milliseconds of work. Headers and body sent as separate small
    # writes without TCP_NODELAY meet the client's delayed ACK: ~40 ms per request.
    server = serve([two_turns])
    body = {"model": "two_turns", "messages": [USER_1]}
    with httpx.Client(timeout=5) as client:
        client.post(server.url + "/chat/completions", json=body)  # open the connection
        started = time.perf_counter()
        for _ in range(10):
            assert client.post(server.url + "/chat/completions", json=body).status_code == 200
        elapsed = time.perf_counter() - started
    assert elapsed < 0.25, f"10 requests on one connection took {elapsed * 1000:.0f} ms"


# --- faults -----------------------------------------------------------------------------------


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


@pytest.mark.parametrize("spec", ["", "418", "teapot@1", "429:soon", "500@0", "500@", "500@1,,2", "delay:-5"])
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
    statuses += [post(server, "two_turns", [USER_1]).status_code for _ in range(3)]
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
    assert post(server, "two_turns", [USER_1]).status_code == 200
    second = time.perf_counter() - started
    assert first >= 0.3
    assert second < first


# --- the official openai client ---------------------------------------------------------------


ECHO_TOOL: Any = BUILTIN_TOOLS["echo"].spec.as_openai()


def test_the_openai_client_gets_the_scripted_tool_call_then_the_scripted_text(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "Echo hello"}]
    first = client.chat.completions.create(model="two_turns", messages=messages, tools=[ECHO_TOOL])
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls is not None
    [call] = choice.message.tool_calls
    assert call.type == "function"
    assert call.id == "call_1"
    assert call.function.name == "echo"
    assert json.loads(call.function.arguments) == {"message": "hello"}
    assert first.usage is not None
    assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (20, 10)

    # Feed back the assistant message exactly as the client returned it, then the result.
    messages.append(choice.message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": call.id, "content": "hello"})
    second = client.chat.completions.create(model="two_turns", messages=messages, tools=[ECHO_TOOL])
    assert second.choices[0].message.content == "The echo tool said: hello"
    assert second.choices[0].finish_reason == "stop"
    assert server.log[1]["messages"][-1] == {"role": "tool", "tool_call_id": "call_1", "content": "hello"}


def test_the_openai_client_lists_the_models(tmp_path: Path, serve: Callable[..., ReplayServer]) -> None:
    server = serve(load(tmp_path, two_turns=TWO_TURNS, weather=OTHER))
    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=0)
    assert [model.id for model in client.models.list()] == ["two_turns", "weather"]


def test_a_divergence_reaches_the_openai_client_as_a_bad_request_error(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns])
    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=0)
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="two_turns", messages=[{"role": "user", "content": "Echo bye"}])
    assert caught.value.status_code == 400
    assert 'turn 1 expects the user input "Echo hello"' in str(caught.value)


def test_injected_faults_reach_the_openai_client_as_its_own_errors(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns], "429:1@1", "500@2")
    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=0)
    user: list[Any] = [{"role": "user", "content": "Echo hello"}]
    with pytest.raises(openai.RateLimitError):
        client.chat.completions.create(model="two_turns", messages=user)
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="two_turns", messages=user)
    assert client.chat.completions.create(model="two_turns", messages=user).choices[0].message.tool_calls


def test_the_openai_client_retries_through_a_429_honouring_retry_after(
    two_turns: Case, serve: Callable[..., ReplayServer]
) -> None:
    server = serve([two_turns], "429:0.1@1")
    client = openai.OpenAI(base_url=server.url, api_key="x", max_retries=1)
    reply = client.chat.completions.create(
        model="two_turns", messages=[{"role": "user", "content": "Echo hello"}]
    )
    assert reply.choices[0].message.tool_calls is not None
    assert [e["status"] for e in server.log] == [429, 200]


@pytest.mark.parametrize(
    "body",
    [
        {
            "model": "two_turns",
            "messages": [USER_1, {"role": "assistant", "tool_calls": [{"id": "a", "function": "zz"}]}],
        },
        {"model": "two_turns", "messages": [USER_1, {"role": "assistant", "tool_calls": "zz"}]},
        {"model": "two_turns", "messages": "not a list"},
        {"model": "two_turns", "messages": [1, 2, 3]},
    ],
)
def test_a_malformed_request_gets_a_400_not_a_dropped_connection(
    two_turns: Case, serve: Callable[..., ReplayServer], body: dict[str, Any]
) -> None:
    server = serve([two_turns])
    response = httpx.post(server.url + "/chat/completions", json=body, timeout=5)
    assert response.status_code == 400
    assert response.json()["error"]["message"]


def test_a_bad_content_length_gets_a_400(two_turns: Case, serve: Callable[..., ReplayServer]) -> None:
    import http.client
    from urllib.parse import urlparse

    server = serve([two_turns])
    where = urlparse(server.url)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=5)
    connection.putrequest("POST", "/v1/chat/completions")
    connection.putheader("Content-Length", "abc")
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 400
    assert b"Content-Length" in response.read()
    connection.close()
