"""`zeroclaw eval mcp`: the MCP double on stdio (`serve.mcp`), for an agent whose MCP
configuration launches servers as commands."""

from __future__ import annotations

from pathlib import Path

import click

from zeroclaw_eval.cli.options import CONTEXT, config_option, exit_on_error


@click.command("mcp", context_settings=CONTEXT)
@click.argument("fixture", required=False, type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--url",
    metavar="URL",
    help="Forward every tool request to the run's MCP server at URL. [default: $ZEROCLAW_EVAL_MCP_URL]",
)
@config_option
def mcp_command(fixture: Path | None, url: str | None, config: Path | None) -> None:
    """Serve tools over MCP on stdin and stdout, for an agent that launches its MCP servers.

    Under `zeroclaw eval run --mcp` (URL given, or ZEROCLAW_EVAL_MCP_URL set) it forwards
    each tools/list and tools/call to the run's MCP server, which answers with the
    running case's tools and records every call, as it does for an agent that speaks
    streamable HTTP. MCP clients start stdio servers with only a few environment
    variables, so pass the URL on in the agent's MCP configuration.

    With a FIXTURE and no URL, it serves that fixture's tools alone, as `zeroclaw eval
    serve` serves its model replies: the built-in and project tools it lists and its
    tool_doubles, in a temporary workspace, nothing graded.

    \b
    Examples (an MCP server entry of the agent's configuration):
      {"command": "zeroclaw-eval", "args": ["eval", "mcp", "--url", "${ZEROCLAW_EVAL_MCP_URL}"]}
      zeroclaw eval mcp evals/regression/echo_single_dispatch_round_trip.json
    \b
    Exit codes: 0 stdin closed; 2 no URL and no fixture, a rejected fixture, or no mcp SDK.
    """
    from zeroclaw_eval.config.load import load_config
    from zeroclaw_eval.runner.project import project_tools
    from zeroclaw_eval.serve.mcp import serve_mcp
    from zeroclaw_eval.serve.routing import load_cases

    with exit_on_error():
        if fixture is None:
            serve_mcp(url, None, ())
            return
        loaded = load_config(config)
        (case,) = load_cases([fixture], max_bytes=loaded.settings.max_fixture_bytes)
        serve_mcp(url, case, project_tools(loaded), loaded.settings.builtin_tools)
