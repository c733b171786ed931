"""The request log of `zeroclaw eval serve`: what each request of the current run was,
bounded in entries and in bytes, and always serialisable.

Each entry is kept as its JSON text, encoded once when it is recorded: the size the log
holds is counted exactly, in bytes, and `GET /_zeroclaw/requests` only joins the texts,
once per change of the log: every reader until the next change is sent the same bytes,
so readers that are slow to take them do not each hold a copy of up to `MAX_LOG_BYTES`.
A lone surrogate a client sent (`"\\ud800"` in its JSON) is written back as the same
JSON escape rather than breaking the encoding, so one odd request cannot break the log.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

#: Entries kept: a long-running server keeps the newest, not every request ever.
MAX_LOG = 1000
#: Bytes of JSON the log keeps (the newest entries that fit): a few large requests must not
#: make the server hold gigabytes, whatever `MAX_LOG` allows.
MAX_LOG_BYTES = 64 * 1024 * 1024
#: The fields an entry over the whole byte limit keeps (the request text is left out).
_SMALL_FIELDS = ("run", "number", "api", "model", "fixture", "turn", "step", "stream", "status", "fault")


def encode(value: Any) -> bytes:
    """`value` as UTF-8 JSON; a lone surrogate becomes its `\\udXXX` escape, which in a
    JSON string stands for the same code unit (only strings can hold one)."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8", errors="backslashreplace")


class RequestLog:
    """The newest entries that fit in `max_entries` and `max_bytes` (oldest dropped first).

    Not thread-safe by itself: the server calls it under its lock, and does the encoding
    (`prepare`) and the writing to a socket outside it.
    """

    def __init__(self, max_entries: int = MAX_LOG, max_bytes: int = MAX_LOG_BYTES) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._texts: deque[bytes] = deque()
        self._bytes = 0
        #: Bumped by each change; the joined log of a version, once asked for.
        self.version = 0
        self._joined: tuple[int, bytes] | None = None

    def prepare(self, entry: dict[str, Any]) -> bytes:
        """The text `entry` is kept as; an entry larger than the whole log keeps only its
        small fields, and says how much was left out."""
        text = encode(entry)
        if len(text) <= self.max_bytes:
            return text
        small = {key: entry[key] for key in _SMALL_FIELDS if key in entry}
        small["omitted"] = f"{len(text)} bytes of request text, over the log's limit of {self.max_bytes}"
        return encode(small)

    def append(self, text: bytes) -> None:
        """Keep `text` (from `prepare`), dropping the oldest entries until the log fits."""
        self._texts.append(text)
        self._bytes += len(text)
        self.version += 1
        while len(self._texts) > 1 and (len(self._texts) > self.max_entries or self._bytes > self.max_bytes):
            self._bytes -= len(self._texts.popleft())

    def snapshot(self) -> list[bytes]:
        """The entries' texts, oldest first (a copy: cheap, the texts are shared)."""
        return list(self._texts)

    def clear(self) -> None:
        """Forget every entry."""
        self._texts.clear()
        self._bytes = 0
        self.version += 1

    def cached(self) -> bytes | None:
        """The joined log of the current version, if it was made."""
        return self._joined[1] if self._joined is not None and self._joined[0] == self.version else None

    def keep_joined(self, version: int, body: bytes) -> None:
        """Keep `body`, the joined log of `version`, for the readers that follow."""
        if version == self.version:
            self._joined = (version, body)

    @property
    def size(self) -> int:
        """Bytes of JSON held."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._texts)

    def __getitem__(self, index: int) -> Any:
        return json.loads(self._texts[index])


def joined(texts: list[bytes]) -> bytes:
    """The JSON array of the entries' `texts`."""
    return b"[" + b",".join(texts) + b"]"
