"""`zeroclaw eval serve`: fixtures' scripted steps as an OpenAI-compatible endpoint."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from zeroclaw_eval.cli.options import CONTEXT, config_option, exit_on_error, resolve_suite, suite_option
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.wire.limits import CONNECTION_TIMEOUT, MAX_BODY, MAX_CONNECTIONS, MAX_TIMEOUT


@click.command("serve", context_settings=CONTEXT)
@suite_option("Serve every fixture of this folder, chosen by the request's model or first user message.")
@click.option(
    "--fixture",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Serve this one fixture, whatever model the request names.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port to listen on (0: any free port).",
)
@click.option(
    "--fault",
    "faults",
    multiple=True,
    metavar="KIND[:ARG][@WHICH,...]",
    help="Inject a fault: KIND is 429[:RETRY_AFTER_SECS], 500, delay[:MS] or malformed; WHICH is a"
    " request number (counted from 1) or a fixture's file stem; without @, every request. Repeatable.",
)
@click.option(
    "--max-body-bytes",
    type=click.IntRange(1, MAX_BODY),
    default=MAX_BODY,
    show_default=True,
    help="Largest request body accepted; a larger one is refused with 413, unread.",
)
@click.option(
    "--timeout",
    "timeout_secs",
    type=click.FloatRange(0, MAX_TIMEOUT, min_open=True),
    default=CONNECTION_TIMEOUT,
    show_default=True,
    help="Seconds a connection may stay silent (mid-request, between requests, or not reading"
    " its answer) before it is dropped.",
)
@click.option(
    "--max-connections",
    type=click.IntRange(1),
    default=MAX_CONNECTIONS,
    show_default=True,
    help="Connections served at once; one more is answered 503 with Retry-After and closed.",
)
@config_option
def serve_command(
    suite: Path | None,
    fixture: Path | None,
    host: str,
    port: int,
    faults: tuple[str, ...],
    max_body_bytes: int,
    timeout_secs: float,
    max_connections: int,
    config: Path | None,
) -> None:
    """Serve fixtures' scripted steps as an OpenAI-, Anthropic-, Gemini- and Bedrock-compatible API.

    Point any agent's base URL at the printed address to test it against scripted
    traces, in any language: Chat Completions, Responses (OPENAI_BASE_URL, with /v1),
    Anthropic Messages (ANTHROPIC_BASE_URL, without /v1), Gemini's generateContent
    (GOOGLE_GEMINI_BASE_URL, without /v1) and Bedrock's Converse
    (AWS_ENDPOINT_URL_BEDROCK_RUNTIME, without /v1), plain or streamed. Each
    request is checked against the script (a divergence, a scripted tool not offered, or
    a step asked for twice gets HTTP 400 saying where) and logged (GET
    /_zeroclaw/requests); POST /_zeroclaw/reset starts a new run.

    \b
    Examples:
      zeroclaw eval serve --suite evals/regression --port 0
      zeroclaw eval serve --fixture evals/regression/echo_single_dispatch_round_trip.json --fault 429:1@1
    """
    from zeroclaw_eval.collect.suite import discover
    from zeroclaw_eval.config.load import load_config
    from zeroclaw_eval.serve.faults import parse_fault
    from zeroclaw_eval.serve.routing import load_cases
    from zeroclaw_eval.serve.server import ReplayServer

    with exit_on_error():
        parsed_faults = [parse_fault(spec) for spec in faults]
        if fixture is not None and suite is not None:
            raise UsageError("give --suite or --fixture, not both")
        loaded = load_config(config)
        limit = loaded.settings.max_fixture_bytes
        if fixture is not None:
            cases = load_cases([fixture], max_bytes=limit)
        else:
            folder = resolve_suite(suite, loaded)
            cases = load_cases(discover(folder), max_bytes=limit)
            if not cases:
                raise UsageError(f"no fixtures to serve in {folder}")
        server = ReplayServer(
            cases,
            parsed_faults,
            host,
            port,
            single=fixture is not None,
            max_body=max_body_bytes,
            timeout_secs=timeout_secs,
            max_connections=max_connections,
            user_input_match=loaded.settings.user_input_match,
            tool_echo=loaded.settings.tool_echo,
            per_turn=loaded.settings.history == "turn",
        )
        try:
            server.bind()
        except OSError as error:
            raise UsageError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    click.echo(f"Serving {len(cases)} fixture(s) on {server.url} (Ctrl-C to stop)")
    # The Anthropic SDKs add /v1 to their base URL themselves.
    click.echo(f"Anthropic clients: ANTHROPIC_BASE_URL={server.url.removesuffix('/v1')}")
    # So do google-genai and Google ADK (/v1beta or /v1).
    click.echo(f"Gemini clients: GOOGLE_GEMINI_BASE_URL={server.url.removesuffix('/v1')}")
    click.echo(f"Bedrock clients: AWS_ENDPOINT_URL_BEDROCK_RUNTIME={server.url.removesuffix('/v1')}")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
