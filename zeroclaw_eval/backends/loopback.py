"""Talking to an agent service on loopback: a free port for it to listen on, and one
request to it, bounded (`request`)."""

from __future__ import annotations

import socket

#: The most of a service's answer read (bytes): an answer, not a stream of them.
ANSWER_LIMIT = 16 * 1024 * 1024


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def request(
    port: int, method: str, path: str, payload: bytes = b"", headers: dict[str, str] | None = None
) -> tuple[int, str]:
    """One request to the service on loopback; (status, body). The turn's deadline bounds
    it as a whole; the body (an event stream too) is read up to `ANSWER_LIMIT`. httpx is
    imported here: a run without a service never loads it."""
    import httpx

    sent = {"Content-Type": "application/json", **(headers or {})} if payload else dict(headers or {})
    # trust_env=False: a proxy configured for the machine must not carry loopback away.
    async with httpx.AsyncClient(timeout=None, trust_env=False) as client:
        url = f"http://127.0.0.1:{port}{path}"
        async with client.stream(method, url, content=payload or None, headers=sent) as response:
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > ANSWER_LIMIT:
                    raise OSError(
                        f"its answer is over {ANSWER_LIMIT // (1 << 20)} MiB, the most an answer may be"
                    )
            return response.status_code, body.decode("utf-8", errors="replace")
