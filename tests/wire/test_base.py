"""`zeroclaw_eval.wire.base`: what every wire shares: a reply's token counts read alike
(`Usage`, `usage_tokens`), a chat conversation as turns for the wires built of parts
(`client_turns`), and the bodies and server-sent events replies are made of."""

from __future__ import annotations

import json
from typing import Any

import pytest

from zeroclaw_eval._support.json.counts import MAX_COUNT
from zeroclaw_eval.errors import ReplyValueError
from zeroclaw_eval.wire.base import (
    Said,
    Usage,
    client_turns,
    event_json,
    events_reply,
    json_body,
    sse,
    usage_tokens,
)


@pytest.mark.parametrize(
    ("usage", "count"),
    [
        ({"n": 7}, 7),
        ({"n": 0}, 0),
        ({"n": MAX_COUNT}, MAX_COUNT),
        ({"n": None}, 0),
        ({}, 0),
        (None, 0),
        ([7], 0),
    ],
)
def test_a_token_count_is_a_whole_number_and_none_said_is_zero(usage: Any, count: int) -> None:
    assert usage_tokens(usage, "n") == count


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (-1, "-1"),
        (MAX_COUNT + 1, "a larger number"),
        pytest.param(10**5000, "a larger number", id="5001-digits"),
        (-(10**50), repr(-(10**50))[:40]),
        (1.0, "1.0"),
        (True, "True"),
        ("7", "'7'"),
        ("x" * 100, repr("x" * 100)[:40]),
    ],
)
def test_a_count_no_reply_holds_is_refused_naming_the_field(value: Any, shown: str) -> None:
    with pytest.raises(ReplyValueError) as raised:
        usage_tokens({"input_tokens": value}, "input_tokens")
    assert str(raised.value) == (
        f"usage.input_tokens is no token count (a whole number from 0 to {MAX_COUNT}): {shown}"
    )


def test_usage_adds_the_counts_beside_and_reads_nested_ones() -> None:
    usage = Usage(
        "in",
        "out",
        cached=("details", "cached"),
        reasoning=("thinking",),
        more_input=("read", "write"),
        more_output=("thinking",),
    )
    counted = usage.counts(
        {"in": 10, "out": 3, "read": 100, "write": 20, "thinking": 5, "details": {"cached": 4}}
    )
    assert counted == (130, 8, 4, 5, True)
    assert usage.counts({"in": 1, "out": 1, "details": "x"}) == (1, 1, None, None, True)
    assert usage.counts({"in": 1, "out": 1, "details": {"cached": None}}) == (1, 1, None, None, True)
    assert usage.counts("x") == (0, 0, None, None, False)
    assert Usage("in", "out").counts({"in": 2, "out": 1}) == (2, 1, None, None, True)


def test_a_count_under_a_value_that_is_no_object_is_unknown() -> None:
    usage = Usage("in", "out", cached=("details", "cache", "read"))
    assert usage.counts({"details": "x"}) == (0, 0, None, None, True)
    assert usage.counts({"details": {"cache": 3}}) == (0, 0, None, None, True)
    assert usage.counts({"details": {"cache": {"read": 3}}}) == (0, 0, 3, None, True)


def test_a_made_up_nested_count_is_refused() -> None:
    with pytest.raises(ReplyValueError, match=r"usage\.cached is no token count"):
        Usage("in", "out", cached=("details", "cached")).counts({"details": {"cached": -5}})


def test_a_conversation_becomes_turns_each_steps_results_together_named_by_their_call() -> None:
    messages: list[Any] = [
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": None},
        {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "list_dir", "arguments": "[1]"}},
                {"id": None, "function": None},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": None, "is_error": True},
        {"role": "tool", "tool_call_id": "c9", "content": "late", "is_error": "true"},
        {"role": "user", "content": None},
        {"role": "tool", "content": "x"},
    ]
    system, turns = client_turns(messages)
    assert system == ["Be brief.", ""]
    assert turns == [
        Said("user", "Weather?"),
        Said(
            "assistant", None, [("c1", "get_weather", {"city": "Oslo"}), ("c2", "list_dir", {}), ("", "", {})]
        ),
        Said(
            "results",
            results=[
                ("c1", "get_weather", "sunny", False),
                ("c2", "list_dir", "", True),
                ("c9", "", "late", False),
            ],
        ),
        Said("user", ""),
        Said("results", results=[("", "", "x", False)]),
    ]


def test_a_call_without_arguments_is_an_empty_object() -> None:
    call = {"id": "c1", "function": {"name": "list_dir", "arguments": ""}}
    _, turns = client_turns([{"role": "assistant", "content": "On it.", "tool_calls": [call]}])
    assert turns == [Said("assistant", "On it.", [("c1", "list_dir", {})])]


def test_a_body_keeps_non_ascii_and_writes_a_lone_surrogate_as_its_escape() -> None:
    assert json_body({"text": "é"}) == '{"text": "é"}'.encode()
    assert json_body({"text": "\ud800é"}) == b'{"text": "\\ud800\\u00e9"}'


def test_an_event_is_named_by_its_type_and_its_data_is_ascii() -> None:
    event = {"type": "message_stop", "text": "é\u2028"}
    assert event_json(event) == b'{"type": "message_stop", "text": "\\u00e9\\u2028"}'
    assert sse(event) == b'event: message_stop\ndata: {"type": "message_stop", "text": "\\u00e9\\u2028"}\n\n'
    reply = events_reply([{"type": "ping"}, {"type": "message_stop"}])
    assert (reply.status, reply.content_type, reply.headers) == (200, "text/event-stream", {})
    assert (
        reply.body
        == b'event: ping\ndata: {"type": "ping"}\n\nevent: message_stop\ndata: {"type": "message_stop"}\n\n'
    )
    assert json.loads(reply.body.split(b"\n")[1].removeprefix(b"data: ")) == {"type": "ping"}
