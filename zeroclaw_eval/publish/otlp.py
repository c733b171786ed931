"""`--otlp-endpoint URL`: a run's report sent to an OpenTelemetry collector over OTLP/HTTP
(JSON): each request the `otlp` format writes (`reporters.otlp`, one a line) is POSTed
to the endpoint's `/v1/traces`.

Fail-open: the export is a copy of the result for a dashboard, and the gate's verdict is
the run's. An endpoint that cannot be reached, answers with an error, or has not taken
every request within `BUDGET_SECS` (however slowly it answers: the export runs in a
thread the command waits for that long, then leaves) ends the export with a warning on
stderr; the exit code stays the gate's. Headers the collector needs (an API key) come
from `OTEL_EXPORTER_OTLP_HEADERS` (`key=value,key2=value2`, values URL-encoded), as every
OpenTelemetry exporter reads them. No message quotes a header's value or what the URL
holds besides its scheme, host, port and path: a key given in its user part or query
string is never printed.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit, urlunsplit

from zeroclaw_eval._support.redaction import scrub
from zeroclaw_eval.errors import UsageError

#: Seconds one request may wait at each step (connect, write, read).
REQUEST_SECS = 10.0
#: Seconds the whole export may take: a slow collector never holds the CI job longer.
BUDGET_SECS = 30.0
HEADERS_VARIABLE = "OTEL_EXPORTER_OTLP_HEADERS"
#: A header name (an HTTP token) and a value HTTP can carry (visible ASCII and spaces).
_NAME, _VALUE = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"), re.compile(r"^[\x20-\x7e]*$")


def traces_url(endpoint: str) -> str:
    """The URL requests go to: `endpoint` as given when its path ends in `/v1/traces` (a
    signal's own endpoint), else with `/v1/traces` added to its path (a collector's base,
    as `OTEL_EXPORTER_OTLP_ENDPOINT` is). `UsageError` for a URL that is not http(s)."""
    import httpx

    refused = UsageError(
        f"--otlp-endpoint {shown(endpoint)!r}: expected an http:// or https:// URL, e.g."
        " http://localhost:4318 (a collector's OTLP/HTTP port)"
    )
    try:
        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.hostname or not endpoint.isprintable():
            raise refused
        path = (
            parts.path
            if parts.path.rstrip("/").endswith("/v1/traces")
            else parts.path.rstrip("/") + "/v1/traces"
        )
        url = urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))
        httpx.URL(url)  # a port that is no number, a host no IDNA encodes: refused now, not after the run
    except UsageError:
        raise
    except Exception:
        raise refused from None
    return url


def shown(url: str) -> str:
    """`url` as a message may quote it: scheme, host, port and path (a key in its user
    part or query string left out)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(an unreadable URL)"
    return urlunsplit((parts.scheme, host + port, parts.path, "", ""))


def headers() -> tuple[dict[str, str], list[str]]:
    """`OTEL_EXPORTER_OTLP_HEADERS`, read as the OpenTelemetry specification says, and the
    entries left out (by name, never value): one without `=`, or a name or value HTTP
    cannot carry (a line break in it would split the request)."""
    found = {"Content-Type": "application/json"}
    skipped = []
    for number, entry in enumerate(os.environ.get(HEADERS_VARIABLE, "").split(","), 1):
        if not entry.strip():
            continue
        key, equals, value = entry.partition("=")
        name, text = unquote(key.strip()), unquote(value.strip())
        if not equals or not _NAME.match(name) or not _VALUE.match(text):
            skipped.append(name if _NAME.match(name) else f"entry {number}")
            continue
        found[name] = text
    return found, skipped


def export(requests: Iterable[str], endpoint: str) -> str | None:
    """Send each of `requests` (OTLP/JSON texts) to `endpoint`; a warning saying why they
    were not all sent, or None."""
    url = traces_url(endpoint)
    sent, skipped = headers()
    secrets = [value for name, value in sent.items() if name != "Content-Type" and value]
    outcome: list[str | None] = []
    worker = threading.Thread(target=lambda: outcome.append(_send(requests, url, sent, secrets)), daemon=True)
    worker.start()
    worker.join(BUDGET_SECS)
    notes = [f"{HEADERS_VARIABLE} entries left out (not name=value HTTP can carry): {', '.join(skipped)}"]
    said = [] if not skipped else notes
    if worker.is_alive():  # a collector trickling its answers: left to the daemon thread
        said.append(f"the OTLP export to {shown(url)} took over {BUDGET_SECS:g} s; the rest dropped")
    elif outcome and outcome[0]:
        said.append(outcome[0])
    return "; ".join(said) or None


def _send(requests: Iterable[str], url: str, sent: dict[str, str], secrets: list[str]) -> str | None:
    """POST each request; why not all were taken, or None."""
    import httpx

    done = 0
    try:
        with httpx.Client(timeout=REQUEST_SECS, headers=sent, follow_redirects=False) as client:
            for line in requests:
                answer = client.post(url, content=line.encode("utf-8", "backslashreplace"))
                if not answer.is_success:
                    status = f"the OTLP endpoint {shown(url)} answered HTTP {answer.status_code}"
                    return f"{status} after {done} request(s); the rest dropped"
                done += 1
    except Exception as exc:
        said = scrub(f"{type(exc).__name__}: {exc}", [*secrets, url])
        return f"could not send the report to the OTLP endpoint {shown(url)}: {said}"
    return None
