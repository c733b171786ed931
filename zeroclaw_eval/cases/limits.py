"""The bounds admission puts on a fixture, so that whatever it admits can be run, graded
and written into every report: its size on disk, stated here with the reason for its
value. (How large a count may be and how deep its free JSON may nest are bounds every
reader and writer keeps: `_support.json.counts.MAX_COUNT`, `_support.json.depth.MAX_DEPTH`.)
"""

from __future__ import annotations

#: The largest count (tokens, tool calls, a call index) a fixture holds: the bound every
#: reader of counts keeps, stated in `_support.json.counts`.
from zeroclaw_eval._support.json.counts import MAX_COUNT as MAX_COUNT

#: The largest fixture file admitted unless `[eval].max_fixture_bytes` says otherwise:
#: far above any hand-written case, far below what would exhaust a CI runner's memory.
DEFAULT_MAX_FIXTURE_BYTES = 16 * 1024 * 1024
#: The setting that raises (or lowers) the size bound, as a rejection names it.
SIZE_SETTING = "[eval].max_fixture_bytes"
#: What a fixture over its size bound is called, and what to do, as a rejection says it.
FIXTURE_LIMIT = ("a fixture", f"split the case, or raise {SIZE_SETTING} in the configuration")
