"""The live half of the CLI: turning `[eval]` and `[providers.models.NAME]` into live
options, and the `zeroclaw eval serve` command."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from zeroclaw_eval.cli_common import CONTEXT, config_option, fail, suite_option
from zeroclaw_eval.errors import EvalError, UsageError

if TYPE_CHECKING:  # imported when a command runs, to keep `zeroclaw --help` quick
    from zeroclaw_eval.config import LoadedConfig
    from zeroclaw_eval.runner import LiveOptions

HOW_TO = """\
live mode needs a provider. In zeroclaw.toml (or [tool.zeroclaw.*] in pyproject.toml):

    [eval]
    live_provider = "NAME"

    [providers.models.NAME]
    base_url = "https://api.example.com/v1"   # an OpenAI-compatible endpoint
    model = "MODEL"
    api_key_env = "NAME_API_KEY"              # the environment variable holding the key

then export NAME_API_KEY and run again"""


def live_options(loaded: LoadedConfig) -> LiveOptions:
    """The live-mode options the configuration describes; a usage error saying what to
    set when something is missing."""
    from zeroclaw_eval.runner import LiveOptions
    from zeroclaw_eval.tools import BUILTIN_TOOLS

    settings = loaded.settings
    name = settings.live_provider
    if not name:
        raise UsageError(f"[eval].live_provider is empty, so live mode is off.\n{HOW_TO}")
    provider = loaded.providers.get(name)
    if provider is None:
        defined = ", ".join(sorted(loaded.providers)) or "none"
        raise UsageError(
            f"[eval].live_provider = {name!r}, but there is no [providers.models.{name}] table"
            f" (defined: {defined}).\n{HOW_TO}"
        )
    unknown = sorted(set(settings.live_allowed_tools) - set(BUILTIN_TOOLS))
    if unknown:
        raise UsageError(
            f"[eval].live_allowed_tools names unknown tools: {', '.join(unknown)};"
            f" the built-in tools are: {', '.join(sorted(BUILTIN_TOOLS))}"
        )
    key = ""
    if provider.api_key_env:
        key = os.environ.get(provider.api_key_env, "")
        if not key:
            raise UsageError(
                f"the environment variable {provider.api_key_env} is not set"
                f" (api_key_env of [providers.models.{name}]); export the provider's key in it"
            )
    return LiveOptions(provider, key, frozenset(settings.live_allowed_tools))


@click.command("serve", context_settings=CONTEXT)
@suite_option("Serve every fixture of this folder, chosen by the request's model or first user message.")
@click.option(
    "--fixture",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Serve this one fixture, whatever model the request names.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback address to listen on.")
@click.option("--port", default=8765, show_default=True, help="Port to listen on (0: any free port).")
@click.option(
    "--fault",
    "faults",
    multiple=True,
    metavar="KIND[:ARG][@WHICH,...]",
    help="Inject a fault: KIND is 429[:RETRY_AFTER_SECS], 500, delay[:MS] or malformed; WHICH is a"
    " request number (counted from 1) or a fixture's file stem; without @, every request. Repeatable.",
)
@config_option
def serve_command(
    suite: Path | None,
    fixture: Path | None,
    host: str,
    port: int,
    faults: tuple[str, ...],
    config: Path | None,
) -> None:
    """Serve fixtures' scripted steps as an OpenAI-compatible chat-completions API.

    Point any agent's base URL at the printed address to test it against scripted
    traces, in any language. Each request is checked against the script (a divergence
    gets HTTP 400 saying where) and logged (GET /_zeroclaw/requests).

    \b
    Examples:
      zeroclaw eval serve --suite evals/regression --port 0
      zeroclaw eval serve --fixture evals/regression/x.json --fault 429:1@1 --fault delay:200
    """
    from zeroclaw_eval.config import load_config
    from zeroclaw_eval.runner import discover
    from zeroclaw_eval.serve import ReplayServer, load_cases, parse_fault

    try:
        parsed_faults = [parse_fault(spec) for spec in faults]
        if fixture is not None and suite is not None:
            raise UsageError("give --suite or --fixture, not both")
        if fixture is not None:
            cases = load_cases([fixture])
        else:
            loaded = load_config(config)
            folder = suite if suite is not None else loaded.resolve(loaded.settings.suite_dir)
            cases = load_cases(discover(folder))
            if not cases:
                raise UsageError(f"no fixtures to serve in {folder}")
        server = ReplayServer(cases, parsed_faults, host, port, single=fixture is not None).bind()
    except EvalError as error:
        fail(error)
    except OSError as error:
        fail(UsageError(f"cannot listen on {host}:{port}: {error.strerror or error}"))
    click.echo(f"Serving {len(cases)} fixture(s) on {server.url} (Ctrl-C to stop)")
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
