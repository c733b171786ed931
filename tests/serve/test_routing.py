"""`zeroclaw_eval.serve.routing`: which fixture a request belongs to."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.builders import tool_call, tools_step
from tests.support.scripts import (
    OTHER,
    TWO_TURNS,
    USER_1,
    fixture,
    load,
    post,
    text_step,
)
from zeroclaw_eval.errors import Divergence
from zeroclaw_eval.serve.routing import Router
from zeroclaw_eval.serve.server import ReplayServer


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


@pytest.fixture
def left_and_right(tmp_path: Path, serve: Callable[..., ReplayServer]) -> ReplayServer:
    """Two fixtures with one model name and one first message, and different answers."""
    return serve(
        load(
            tmp_path,
            left=fixture("same", ("Hi", [text_step("Left.")])),
            right=fixture("same", ("Hi", [text_step("Right.")])),
        )
    )


def test_a_conversation_that_fits_several_fixtures_with_different_answers_is_ambiguous(
    left_and_right: ReplayServer,
) -> None:
    server = left_and_right
    reply = post(server, "same", [{"role": "user", "content": "Hi"}])
    assert reply.status_code == 400
    message = reply.json()["error"]["message"]
    assert "fits several fixtures (left.json, right.json)" in message
    assert "name one in the request's model" in message
    # Named by file stem, each is unambiguous.
    named = post(server, "right", [{"role": "user", "content": "Hi"}])
    assert named.json()["choices"][0]["message"]["content"] == "Right."


def test_a_conversation_that_fits_none_of_the_candidates_says_so(left_and_right: ReplayServer) -> None:
    server = left_and_right
    reply = post(server, "same", [{"role": "user", "content": "Bye"}])
    assert reply.status_code == 400
    assert "the conversation follows none of left.json, right.json" in reply.json()["error"]["message"]


def test_single_mode_serves_its_fixture_whatever_the_model(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    server = serve(load(tmp_path, weather=OTHER), single=True)
    reply = post(server, "anything-at-all", [{"role": "user", "content": "What is the weather?"}])
    assert reply.json()["choices"][0]["message"]["content"] == "Sunny."


def test_the_first_user_message_routes_when_sent_as_text_parts(tmp_path: Path) -> None:
    router = Router(load(tmp_path, two_turns=TWO_TURNS, weather=OTHER))
    parts = [{"type": "text", "text": "What is the "}, {"type": "text", "text": "weather?"}]
    served = router.answer("gpt-4o-mini", [{"role": "user", "content": parts}])
    assert served.case.name == "weather.json"
    assert served.step.content == "Sunny."


def test_fixtures_naming_the_served_agents_own_tools_are_admitted(tmp_path: Path) -> None:
    # The agent behind serve runs its own tools, which the harness cannot know of.
    own = fixture("orders", ("Find order 7", [tools_step(tool_call("search_orders", {"id": 7}, "c1"))]))
    own["tools"] = ["search_orders"]
    own["turns"][0]["steps"].append(text_step("Found it."))
    served = Router(load(tmp_path, orders=own)).answer(
        "orders", [{"role": "user", "content": "Find order 7"}]
    )
    assert served.case.trace.tools == ["search_orders"]
    assert served.step.tool_calls[0].name == "search_orders"


WRAPPED_WEATHER = [{"role": "user", "content": "New task:\nWhat is the weather?"}]


def test_a_wrapped_first_message_routes_where_the_suite_says_contains(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    cases = load(tmp_path, two_turns=TWO_TURNS, weather=OTHER)
    refused = post(serve(cases), "gpt-4o-mini", WRAPPED_WEATHER)
    assert refused.status_code == 400
    reply = post(serve(cases, user_input_match="contains"), "gpt-4o-mini", WRAPPED_WEATHER)
    assert reply.status_code == 200, reply.text
    assert reply.json()["choices"][0]["message"]["content"] == "Sunny."


def test_a_fixtures_own_user_input_match_wins_over_the_suites(tmp_path: Path) -> None:
    # weather says contains itself; two_turns follows the suite (exact).
    cases = load(tmp_path, two_turns=TWO_TURNS, weather={**OTHER, "user_input_match": "contains"})
    router = Router(cases)
    assert router.answer("gpt-4o-mini", WRAPPED_WEATHER).case.name == "weather.json"
    with pytest.raises(Divergence, match="turn 1's user input is"):
        router.answer("two_turns", [{"role": "user", "content": "New task:\nEcho hello"}])
    loose = Router(load(tmp_path / "exact", weather={**OTHER, "user_input_match": "exact"}), match="contains")
    with pytest.raises(Divergence):
        loose.answer("gpt-4o-mini", WRAPPED_WEATHER)


def test_serve_reads_a_text_echo_and_a_turn_sent_alone_as_the_suite_says(
    tmp_path: Path, serve: Callable[..., ReplayServer]
) -> None:
    cases = load(tmp_path, two_turns=TWO_TURNS)
    echoed = (
        "Calling tools:\n[{'id': 'call_1', 'function': {'name': 'echo', 'arguments': {'message': 'hello'}}}]"
    )
    as_text = [
        USER_1,
        {"role": "assistant", "content": echoed},
        {"role": "user", "content": "Observation:\nhello"},
    ]
    assert post(serve(cases), "two_turns", as_text).status_code == 400
    reply = post(serve(cases, tool_echo="text"), "two_turns", as_text)
    assert reply.json()["choices"][0]["message"]["content"] == "The echo tool said: hello"
    alone = [{"role": "user", "content": "Now say bye"}]
    assert post(serve(cases), "two_turns", alone).status_code == 400
    reply = post(serve(cases, per_turn=True), "two_turns", alone)
    assert reply.json()["choices"][0]["message"]["content"] == "bye"
