"""The body limit of the loopback HTTP endpoints (`serve`, the `--agent-cmd` front): a
module of constants, so the CLI can show it without importing the endpoint."""

from __future__ import annotations

#: The largest request body read (bytes); a larger one is refused with 413. A long
#: conversation with big tool results stays far below it.
MAX_BODY = 16 * 1024 * 1024


#: Seconds a connection may stay silent (reading a request or between requests) before it
#: is dropped, and that one write to a client that stopped reading may wait.
CONNECTION_TIMEOUT = 60.0
#: The longest `--timeout` taken: a day. A socket timeout must fit the system's time
#: type, and an infinite one would fail each connection as it is accepted.
MAX_TIMEOUT = 86_400.0
#: Connections served at once; one over it is answered 503 (with Retry-After) and closed.
MAX_CONNECTIONS = 128
