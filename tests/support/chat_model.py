"""A loopback OpenAI Chat Completions endpoint whose every answer a test decides (its text
and its usage), for live runs that need a model more than a script: answers drawn by
chance, usage with cached and reasoning tokens."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: What one answer is, to a request (its JSON body): its text, and its `usage` object
#: (None: the reply has none).
Answer = Callable[[dict[str, Any]], tuple[str, dict[str, Any] | None]]


@contextmanager
def chat_model(answer: Answer) -> Iterator[str]:
    """Serve `answer` to every chat completion request; yields the base URL (`…/v1`)."""
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with lock:  # a seeded answer stays the same whatever the threads' order
                text, usage = answer(request)
            reply: dict[str, Any] = {"choices": [{"message": {"role": "assistant", "content": text}}]}
            if usage is not None:
                reply["usage"] = usage
            body = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
