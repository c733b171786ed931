"""`zeroclaw_eval.backends.front`: the loopback server an agent command talks to."""

from __future__ import annotations

import asyncio
import socket
from urllib.parse import urlsplit

import pytest

from zeroclaw_eval.backends import front as http_front
from zeroclaw_eval.backends.front import HttpFront
from zeroclaw_eval.boundary.provider import AUTO, Message, ModelResponse, ToolChoice, ToolSpec
from zeroclaw_eval.boundary.record import RunRecord
from zeroclaw_eval.tools.toolbox import ToolBox


class Answers:
    async def complete(
        self, messages: list[Message], tools: list[ToolSpec], choice: ToolChoice = AUTO
    ) -> ModelResponse:
        return ModelResponse("hello")


def _models(address: tuple[str, int]) -> bytes:
    with socket.create_connection(address, timeout=10) as connection:
        connection.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return connection.recv(4096)


def test_connections_over_the_cap_are_answered_503_and_the_held_ones_still_served(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An agent that opens connections without closing them would otherwise start a
    # harness thread for each, for as long as the case runs.
    monkeypatch.setattr(http_front, "FRONT_CONNECTIONS", 2)
    loop = asyncio.new_event_loop()
    front = HttpFront(Answers(), ToolBox({}, RunRecord(), None), loop, "model-x")
    split = urlsplit(front.url)
    address = (split.hostname or "", split.port or 0)
    held = [socket.create_connection(address, timeout=10) for _ in range(2)]
    try:
        answer = _models(address)
        assert answer.startswith(b"HTTP/1.1 503 ")
        assert b"too many connections" in answer
        # A held connection is served as ever.
        held[0].sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
        assert held[0].recv(4096).startswith(b"HTTP/1.1 200 ")
    finally:
        for connection in held:
            connection.close()
        front.close()
        loop.close()
