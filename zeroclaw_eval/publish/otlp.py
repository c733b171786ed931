"""`--otlp-endpoint URL`: a run's report sent to an OpenTelemetry collector over OTLP/HTTP
(JSON): each request the `otlp` format writes (`reporters.otlp`, one a line) is POSTed
to the endpoint's `/v1/traces`.

Fail-open: the export is a copy of the result for a dashboard, and the gate's verdict is
the run's. An endpoint that cannot be reached, answers with an error, or takes longer
than `BUDGET_SECS` in all ends the export with a warning on stderr; the exit code stays
the gate's. Headers the collector needs (an API key) come from
`OTEL_EXPORTER_OTLP_HEADERS` (`key=value,key2=value2`, values URL-encoded), as every
OpenTelemetry exporter reads them; their values are never printed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit

from zeroclaw_eval.errors import UsageError

#: Seconds one request may wait at each step (connect, write, read).
REQUEST_SECS = 10.0
#: Seconds the whole export may take: a slow collector never holds the CI job longer.
BUDGET_SECS = 30.0
HEADERS_VARIABLE = "OTEL_EXPORTER_OTLP_HEADERS"


def traces_url(endpoint: str) -> str:
    """The URL requests go to: `endpoint` as given when it ends in `/v1/traces` (a signal's
    own endpoint), else with `/v1/traces` added (a collector's base, as
    `OTEL_EXPORTER_OTLP_ENDPOINT` is). `UsageError` for a URL that is not http(s)."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc or not endpoint.isprintable():
        raise UsageError(
            f"--otlp-endpoint {endpoint!r}: expected an http:// or https:// URL, e.g."
            " http://localhost:4318 (a collector's OTLP/HTTP port)"
        )
    if parts.path.rstrip("/").endswith("/v1/traces"):
        return endpoint
    return endpoint.rstrip("/") + "/v1/traces"


def _headers() -> dict[str, str]:
    """`OTEL_EXPORTER_OTLP_HEADERS`, read as the OpenTelemetry specification says; an
    entry without `=` is left out (its value could be a secret: it is not quoted)."""
    headers = {"Content-Type": "application/json"}
    for entry in os.environ.get(HEADERS_VARIABLE, "").split(","):
        key, equals, value = entry.partition("=")
        if equals and key.strip():
            headers[unquote(key.strip())] = unquote(value.strip())
    return headers


def export(requests: Iterable[str], endpoint: str) -> str | None:
    """Send each of `requests` (OTLP/JSON texts) to `endpoint`; a warning saying why they
    were not all sent, or None."""
    import httpx

    url = traces_url(endpoint)
    started = time.monotonic()
    sent = 0
    try:
        with httpx.Client(timeout=REQUEST_SECS, headers=_headers(), follow_redirects=False) as client:
            for line in requests:
                if time.monotonic() - started > BUDGET_SECS:
                    took = f"the OTLP export to {url} took over {BUDGET_SECS:g} s"
                    return f"{took}; {sent} request(s) sent, the rest dropped"
                answer = client.post(url, content=line.encode("utf-8", "backslashreplace"))
                if not answer.is_success:
                    status = f"the OTLP endpoint {url} answered HTTP {answer.status_code}"
                    return f"{status} after {sent} request(s); the rest dropped"
                sent += 1
    except httpx.HTTPError as exc:
        return f"could not send the report to the OTLP endpoint {url}: {type(exc).__name__}: {exc}"
    return None
