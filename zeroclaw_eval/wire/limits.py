"""What one client may hold of a loopback endpoint (`serve`, the front of an agent
command): a module of constants, so the CLI can show them without importing the server.

A client cannot hold an endpoint: each connection has a socket timeout (a client silent
that long, mid-request or between requests, is dropped), connections over a cap are
answered 503 at once, and a body over the limit gets 413 unread.
"""

from __future__ import annotations

#: The largest request body read (bytes); a larger one is refused with 413. A long
#: conversation with big tool results stays far below it.
MAX_BODY = 16 * 1024 * 1024
#: The most JSON values (objects, arrays, and the items they hold) a request body may
#: parse to; more is refused with 413 before it is parsed. A body of small objects
#: (`[{},{},…]`) at the byte limit would parse to some 5 million objects, over 500 MiB;
#: this bounds the parsed graph to about 100 MiB, while a long conversation (a few
#: thousand messages, tool results of any size as text) stays far below it.
MAX_VALUES = 1_000_000
#: Request bodies parsed at once by one process (the others wait their turn): with
#: `MAX_VALUES`, what parsing can hold at any moment is bounded whatever the number of
#: connections.
PARSING_AT_ONCE = 2
#: Seconds a connection may stay silent (reading a request or between requests) before it
#: is dropped, and that one write to a client that stopped reading may wait.
CONNECTION_TIMEOUT = 60.0
#: The longest `--timeout` taken: a day. A socket timeout must fit the system's time
#: type, and an infinite one would fail each connection as it is accepted.
MAX_TIMEOUT = 86_400.0
#: Connections `serve` answers at once; one over it is answered 503 (with Retry-After)
#: and closed.
MAX_CONNECTIONS = 128
#: Connections one agent command may hold open at once. An agent asks the model one
#: request at a time, or a few at once: this many means it opens connections and never
#: closes them (a client made per request, a retry loop), and each would hold a thread of
#: the harness until the case ends.
FRONT_CONNECTIONS = 64
