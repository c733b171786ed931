"""The trace a run's results and its agents' own spans share (W3C Trace Context).

Each run has a trace id; each case's span in it is derived from the trace id and the
case's path, as is the suite's, so the runner (which hands the agent a `traceparent`
naming its case's span, before the case runs) and the `otlp` reporter (which writes that
span, after) name the same span without passing ids between processes or through the
report: the report keeps the trace id alone. An agent that starts its spans under the
`traceparent` it is given puts its model calls and tool runs in the trace beside the
case's checks.
"""

from __future__ import annotations

import hashlib
import secrets

#: The name the suite's own span is derived from (no case path is empty).
SUITE = ""


def new_trace_id() -> str:
    """A fresh trace id: 32 hex digits, never all zeros."""
    return secrets.token_hex(16)


def span_id(trace_id: str, name: str) -> str:
    """The span id of `name` (a case's path as reports show it; `SUITE`) in trace
    `trace_id`: 16 hex digits, the same wherever it is worked out."""
    derived = hashlib.sha256(f"{trace_id}\0{name}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return derived if derived.strip("0") else "1" + derived[1:]  # all zeros is no span id


def traceparent(trace_id: str, name: str) -> str:
    """The W3C `traceparent` naming the span of `name` in `trace_id`, sampled."""
    return f"00-{trace_id}-{span_id(trace_id, name)}-01"
