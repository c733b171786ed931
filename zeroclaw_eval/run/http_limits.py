"""The body limit of the loopback HTTP endpoints (`serve`, the `--agent-cmd` front): a
module of constants, so the CLI can show it without importing the endpoint."""

from __future__ import annotations

#: The largest request body read (bytes); a larger one is refused with 413. A long
#: conversation with big tool results stays far below it.
MAX_BODY = 16 * 1024 * 1024
