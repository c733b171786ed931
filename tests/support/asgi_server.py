"""An ASGI app (an MCP server's streamable-HTTP app, say) served by uvicorn on a loopback
port in a thread, for the tests that need a real server of their own."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any


class LoopbackApp:
    """`app` served on 127.0.0.1 at an ephemeral port until `close`; `url` is its root
    plus `path`."""

    def __init__(self, app: Any, path: str = "/mcp") -> None:
        import uvicorn

        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{listener.getsockname()[1]}{path}"
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="critical"))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [listener]}, daemon=True)
        self._thread.start()
        while not self._server.started:
            time.sleep(0.01)

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
