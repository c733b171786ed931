"""What one client may hold of `zeroclaw eval serve`: the defaults of its connection
bounds (a module of constants, so the CLI can show them without importing the server)."""

from __future__ import annotations

#: Seconds a connection may stay silent (reading a request or between requests) before it
#: is dropped, and that one write to a client that stopped reading may wait.
CONNECTION_TIMEOUT = 60.0
#: The longest `--timeout` taken: a day. A socket timeout must fit the system's time
#: type, and an infinite one would fail each connection as it is accepted.
MAX_TIMEOUT = 86_400.0
#: Connections served at once; one over it is answered 503 (with Retry-After) and closed.
MAX_CONNECTIONS = 128
