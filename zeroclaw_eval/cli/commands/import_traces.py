"""`zeroclaw eval import`: production traces in, proven regression fixtures out
(`importing`).

Exit codes: 0 every selected trace was written as a fixture; 1 a trace was refused
(unfaithful, or its file exists), or none was selected; 2 unusable flags or files.
"""

from __future__ import annotations

from pathlib import Path

import click

from zeroclaw_eval.cli.options import CONTEXT, exit_on_error
from zeroclaw_eval.cli.say import say
from zeroclaw_eval.errors import ExitCode


def _line(text: str) -> str:
    """One line per trace: a trace id or a message of a trace's own that holds a line
    break must not pass for a line of this command's (`say` shows every other control
    character as an escape)."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


@click.command("import", context_settings=CONTEXT)
@click.argument(
    "sources",
    nargs=-1,
    required=True,
    metavar="SOURCE...",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
)
@click.option(
    "--out",
    "out",
    required=True,
    metavar="DIR",
    type=click.Path(path_type=Path, file_okay=False),
    help="Write the fixtures into this folder (made if missing; no file in it is overwritten).",
)
@click.option(
    "--select",
    "selects",
    multiple=True,
    metavar="KEY=VALUE",
    help="Import only the traces that match: trace=ID, service=NAME, since=TIME, until=TIME"
    " (ISO 8601, UTC unless it says). Repeatable: each key must match, any of its values.",
)
@click.option(
    "--redact",
    "patterns",
    multiple=True,
    metavar="RE2",
    help="Replace what this RE2 pattern matches with [REDACTED] in every text of the trace"
    " (repeatable), besides secrets, credentials and emails, which are always replaced.",
)
@click.option(
    "--live-tools",
    is_flag=True,
    help="Script no tool doubles: a replay runs the agent's real tools (by default each"
    " recorded result is a double, so a replay never reaches a real system).",
)
def import_command(
    sources: tuple[Path, ...],
    out: Path,
    selects: tuple[str, ...],
    patterns: tuple[str, ...],
    live_tools: bool,
) -> None:
    """Turn recorded agent runs (traces) into regression fixtures.

    Each SOURCE is a trace file: OTLP JSON (an OTLP/HTTP JSON body, or the JSON
    lines an OTLP file exporter writes) with the OpenTelemetry GenAI conventions
    or OpenInference's; a Langfuse trace export (with its observations); or a
    LangSmith run export (with its child runs). Each trace of an agent run becomes
    one fixture in DIR: its user inputs as turns, the model's replies as scripted
    steps, the tools it offered, and the checks the recorded run proves: the
    tools used, a strict trajectory of the calls with their arguments (and
    outcome, where the trace proves it), what each tool answered, and the final
    answer. Each recorded tool result is scripted as a double, so a replay never
    runs a real tool (--live-tools: it does). Each fixture is admitted, graded
    against the recorded run (it passes) and against an empty run (it fails)
    before it is written, with its provenance (format, file, trace and span
    ids). Replay it against your agent with `zeroclaw eval run`.

    Every text is scrubbed first: the values of environment variables named like
    secrets (*_API_KEY, *_TOKEN, ...), credential-shaped text, emails (made
    zeroclaw_user@example.com) and each --redact pattern. A trace that cannot
    replay as recorded (a model call with no reply, a tool call with no result,
    spans cut off, an attribute cut by a length limit) is refused, naming the
    trace, the span and the attribute.

    \b
    Examples:
      zeroclaw eval import traces.jsonl --out evals/imported
      zeroclaw eval import otlp.json --out evals/imported --select trace=4bf92f3577b34da6a3ce929d0e0e4736
      zeroclaw eval import langfuse-trace.json --out evals/imported --redact 'ORDER-[0-9]+'
    \b
    Exit codes: 0 every selected trace written; 1 a trace refused, or none
    selected; 2 unusable flags or files.
    """
    from zeroclaw_eval.collect.suite import display_path
    from zeroclaw_eval.importing.importer import import_traces
    from zeroclaw_eval.importing.scrub import Scrubber, environment_secrets
    from zeroclaw_eval.importing.sources import Selection

    with exit_on_error():
        selection = Selection.parse(selects)
        scrubber = Scrubber.make(patterns, environment_secrets())
        sources_named = [(path, str(path)) for path in sources]
        outcome = import_traces(sources_named, out, selection, scrubber, live_tools=live_tools)
    for written in outcome.written:
        calls = f"{written.calls} tool call{'s' * (written.calls != 1)}"
        doubles = f"; doubles: {', '.join(written.doubled)}" if written.doubled else ""
        say(
            _line(
                f"Wrote {display_path(written.path)}: trace {written.trace.trace_id}, {written.steps} steps,"
                f" {calls}; checks: {', '.join(written.checks)}{doubles}"
            )
        )
    if any(written.doubled for written in outcome.written):
        say(
            "The recorded tool results are scripted as doubles: a replay answers each call as"
            " recorded and runs no real tool. An agent command or service runs its own tools,"
            " which doubles cannot stand in for (unless served over MCP, [eval].mcp): import"
            " with --live-tools to replay against its real tools."
        )
    for trace_id, by in outcome.halves:
        say(_line(f"trace {trace_id} holds only the request of a call trace {by} answers, imported with it"))
    for trace_id, by in outcome.continued:
        say(_line(f"trace {trace_id} is the start of trace {by}'s run, imported with it"))
    for refused in outcome.refused:
        say(_line(f"refused: {refused}"))
    if outcome.passed_over:
        say(
            f"passed over {outcome.passed_over} trace(s) with no model call or tool span of a format import"
            " reads (not agent runs)"
        )
    if not outcome.selected:
        say("no trace was selected: check --select, and that the file holds agent traces")
    passed = outcome.selected > 0 and not outcome.refused
    raise SystemExit(ExitCode.gate(passed))
