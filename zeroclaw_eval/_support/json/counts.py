"""How large a count may be wherever one is read or written (tokens, tool calls, a call
index, a report's tallies): the one bound, stated here so the fixture's admission, the
wires' readers of a provider's usage and the saved reports' reader all keep it."""

from __future__ import annotations

#: The largest count: 2**53 - 1, the largest integer every JSON reader holds exactly
#: (RFC 8259, section 6), so sums of counts stay printable and readable too.
MAX_COUNT = 2**53 - 1
