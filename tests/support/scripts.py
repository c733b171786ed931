"""A two-turn script and the messages of a conversation that follows it, shared by the
conversation matcher's tests and the replay server's."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import httpx

from tests.support.builders import (
    scripted_fixture,
    text_step as text_step_with_tokens,
    tool_call,
    tools_step,
    write_fixture,
)
from zeroclaw_eval.cases.case import Case
from zeroclaw_eval.serve.routing import load_cases
from zeroclaw_eval.serve.server import ReplayServer

text_step = partial(text_step_with_tokens, tokens=(30, 5))


def fixture(model_name: str, *turns: tuple[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """A served script: `turns` of (user input, steps), and a check (serve grades nothing)."""
    return scripted_fixture(list(turns), {"min_tool_calls": 1}, model_name=model_name)


# Two turns: a tool round then text, then a text-only turn.
TWO_TURNS = fixture(
    "two-turns",
    (
        "Echo hello",
        [
            tools_step(tool_call("echo", {"message": "hello"}, "call_1"), tokens=(20, 10)),
            text_step("The echo tool said: hello"),
        ],
    ),
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


#: The echo tool as a Chat Completions request offers it (the scripts call echo).
ECHO_TOOL = {"type": "function", "function": {"name": "echo", "description": "Echo.", "parameters": {}}}


def post(
    server: ReplayServer, model: str, messages: list[Any], tools: list[Any] | None = None, **extra: Any
) -> httpx.Response:
    """A Chat Completions request to `server`, offering echo unless `tools` says otherwise."""
    body = {"model": model, "messages": messages, "tools": [ECHO_TOOL] if tools is None else tools, **extra}
    return httpx.post(server.url + "/chat/completions", json=body, timeout=5)
