"""`zeroclaw eval new`: write a new fixture (`fixtures.scaffold`) that admission admits,
that passes in replay, and that `zeroclaw eval mutate` passes (`mutate.strengthen`).

Exit codes: 0 written; 2 the flags cannot make a case, the file exists already, or the
configuration is unusable.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from zeroclaw_eval.cli.options import CONTEXT, config_option, exit_on_error, resolve_suite
from zeroclaw_eval.cli.say import say
from zeroclaw_eval.errors import UsageError

if TYPE_CHECKING:
    from zeroclaw_eval.cases.case import Case
    from zeroclaw_eval.runner import RunOptions


def _must_replay_to_a_pass(case: Case, options: RunOptions) -> None:
    """Replay the scaffold as `zeroclaw eval run` would; `UsageError` saying why unless it
    passes (a file_read of a file the workspace lacks, arguments the tool refuses)."""
    import asyncio  # here, not at the top: `zeroclaw --help` must not import it

    from zeroclaw_eval.runner import run_case

    report = asyncio.run(run_case(case, options))
    if report.passed:
        return
    reasons = [f"run error: {report.error.message}"] if report.error else []
    reasons += [f"{grade.check_id}: {grade.detail}" for grade in report.failed_grades]
    calls = report.record.calls if report.record else []
    reasons += [f"{call.name} failed: {call.result}" for call in calls if not call.success]
    shown = "\n".join(f"  {reason}" for reason in dict.fromkeys(reasons))
    raise UsageError(
        f"these flags make a case that does not pass in replay, so it was not written:\n{shown}\n"
        "(a tool that reads a file needs it in setup.workspace_files: write the case with other"
        " arguments, or add the file after scaffolding)"
    )


def _strengthened(
    fixture: dict[str, Any], path: Path, options: RunOptions
) -> tuple[dict[str, Any], str | None]:
    """The scaffold with the checks that kill the mutants it would let survive, so that
    `zeroclaw eval mutate` passes it as written (`mutate.strengthen`); and, should every
    mutant of some operator still survive, a note saying what is left to do."""
    import asyncio  # here, not at the top: `zeroclaw --help` must not import it

    from zeroclaw_eval.collect.suite import display_path
    from zeroclaw_eval.mutate.strengthen import strengthen

    fixture, mutation = asyncio.run(strengthen(fixture, path, options))
    unseen = mutation.unseen_operators
    if not unseen:
        return fixture, None
    # Still admitted, passing and able to fail: written, with what mutate will say of it.
    return fixture, (
        f"note: no check kills a mutant of {', '.join(unseen)} in this case, so zeroclaw eval"
        f" mutate fails it; run `zeroclaw eval mutate {display_path(path)}` to see the survivors"
    )


def _file_name(name: str) -> str:
    """NAME as a fixture file name: `NAME.json` (NAME may end in .json already)."""
    from zeroclaw_eval.reporters.safety import visible

    stem = name[: -len(".json")] if name.endswith(".json") else name
    # A character a terminal obeys rather than shows (a newline, an escape) makes a name
    # no listing or log shows as it is: always a slip of the shell, never a name meant.
    shown_as_is = visible(stem, multiline=False) == stem
    if not stem or "/" in stem or "\\" in stem or stem.startswith(".") or not shown_as_is:
        raise UsageError(
            f"NAME {name!r} must be a plain file name such as echo_hello;"
            " to write elsewhere, use --output PATH"
        )
    return f"{stem}.json"


def _write_new(path: Path, text: str) -> None:
    """Create `path` with `text`; refuse, never overwrite, when it exists."""
    from zeroclaw_eval._support.files import create_new
    from zeroclaw_eval.collect.suite import display_path

    try:
        create_new(path, text.encode("utf-8"))
    except FileExistsError:
        raise UsageError(
            f"{display_path(path)} exists already; pick another NAME or --output, or remove it first"
        ) from None


@click.command("new", context_settings=CONTEXT)
@click.argument("name", metavar="NAME")
@click.option("--input", "user_input", metavar="TEXT", help="What the user says. [default: Say hello]")
@click.option("--tool", metavar="TOOL", help="Script one call to TOOL before the answer.")
@click.option(
    "--args",
    "arguments",
    metavar="JSON",
    help="""The call's arguments, a JSON object: '{"message": "hi"}'.""",
)
@click.option("--answer", metavar="TEXT", help="The model's final answer. [default: Hello!]")
@click.option(
    "--needle",
    "needles",
    multiple=True,
    metavar="TEXT",
    help="A substring the final response must contain (repeatable; each must be in the answer)."
    " [default: the whole answer of a case without --tool]",
)
@click.option(
    "--suite",
    type=click.Path(path_type=Path, file_okay=False),
    help="Write NAME.json into this folder. [default: [eval].suite_dir, else evals/regression]",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="PATH",
    help="Write the fixture to PATH instead.",
)
@config_option
def new_command(
    name: str,
    user_input: str | None,
    tool: str | None,
    arguments: str | None,
    answer: str | None,
    needles: tuple[str, ...],
    suite: Path | None,
    output: Path | None,
    config: Path | None,
) -> None:
    """Write a new fixture NAME.json that passes admission and can fail.

    With no flags the case is one turn of text: the user says "Say hello", the
    model answers "Hello!", and the response must contain it. With --tool, the
    model first calls the tool (with --args), then answers; the case checks the
    dispatch: the tool was called once, with the first string of its arguments,
    and succeeded. Either way the case passes in replay and fails against an empty
    run, so `zeroclaw eval vacuity` accepts it; and it gets the checks that make
    `zeroclaw eval mutate` pass it (what the tool answered, the files it wrote,
    the answer, the LLM calls made), each proven to pass the replay and fail a
    regression of it. Edit it from there.

    NAME is the case's model_name and, without --output, its file name in the
    suite. An existing file is never overwritten.

    \b
    Examples:
      zeroclaw eval new greet_user
      zeroclaw eval new echo_hi --input "Echo hi" --tool echo --args '{"message": "hi"}' --answer "hi"
      zeroclaw eval new capital --input "Capital of France?" --answer "It is Paris." --needle Paris
      zeroclaw eval new scratch -o /tmp/scratch.json
    \b
    Exit codes: 0 written; 2 the flags cannot make a case, the file exists, or a
    usage or configuration error.
    """
    from zeroclaw_eval._support.json.text import pretty_json
    from zeroclaw_eval.cases.admission import admit_bytes
    from zeroclaw_eval.cases.case import RejectedFixture
    from zeroclaw_eval.cases.scaffold import ScaffoldSpec, scaffold_fixture
    from zeroclaw_eval.collect.suite import display_path
    from zeroclaw_eval.config.load import load_config

    with exit_on_error():
        if output is not None and suite is not None:
            raise UsageError("--suite and --output both say where to write; give one")
        file_name = _file_name(name)
        loaded = load_config(config)
        path = output if output is not None else resolve_suite(suite, loaded) / file_name
        from zeroclaw_eval.runner.project import fixture_tools, is_builtin_tool, run_options

        double = tool is not None and not is_builtin_tool(tool)
        spec = ScaffoldSpec(file_name[: -len(".json")], user_input, tool, arguments, answer, needles, double)
        fixture = scaffold_fixture(spec)
        text = pretty_json(fixture) + "\n"
        # The flags are free text: admission says whether they made a case (an unknown
        # tool, an empty needle), exactly as `zeroclaw eval run` would.
        admitted = admit_bytes(text.encode("utf-8"), path, fixture_tools(loaded))
        if isinstance(admitted, RejectedFixture):
            problems = "\n".join(f"  {p.what()}" for p in admitted.problems)
            raise UsageError(f"these flags make a fixture that admission rejects:\n{problems}")
        options = run_options(loaded)
        _must_replay_to_a_pass(admitted, options)
        strengthened, note = _strengthened(fixture, path, options)
        _write_new(path, pretty_json(strengthened) + "\n")
    say(f"Wrote {display_path(path)}")
    if note is not None:
        say(note)
