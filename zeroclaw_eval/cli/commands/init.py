"""`zeroclaw eval init`: set the gate up in a team's project (`config.init_files` says
what each file holds).

Exit codes: 0 written (or, with --dry-run, shown); 2 a usage error, or a file that exists
already (nothing is written then).
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from zeroclaw_eval.cli.options import CONTEXT, exit_on_error
from zeroclaw_eval.cli.say import say
from zeroclaw_eval.errors import UsageError

if TYPE_CHECKING:
    from zeroclaw_eval.config.init_files import InitAnswers


@dataclass(frozen=True)
class _Planned:
    """One file `init` writes: created (or, with --force, replaced), or appended to."""

    path: Path
    text: str
    append: bool = False


def _chosen(agent_cmd: str | None, agent: str | None, agent_service: str | None) -> tuple[str, str]:
    """How the gate reaches the agent: (kind, value), from the flag given, else asked."""
    given = [
        (kind, value)
        for kind, value in (("command", agent_cmd), ("python", agent), ("service", agent_service))
        if value is not None
    ]
    if len(given) > 1:
        raise UsageError("--agent-cmd, --agent and --agent-service each name the agent; give one")
    if given:
        kind, value = given[0]
        if not value.strip():
            raise UsageError("the agent is empty: give the command, or MODULE:FACTORY")
        if kind == "python" and ":" not in value:
            raise UsageError(f"--agent {value!r}: expected MODULE:FACTORY, such as my_agent:make_agent")
        return kind, value
    if not sys.stdin.isatty():
        raise UsageError(
            "say how the gate reaches your agent: --agent-cmd 'python agent.py' (a command that"
            " speaks a JSON line per turn), --agent my_agent:make_agent (a Python factory) or"
            " --agent-service 'python app.py' (an HTTP service)"
        )
    kind = click.prompt(
        "How does the gate reach your agent? command (a process per case), python (a factory"
        " in this project) or service (an HTTP service)",
        type=click.Choice(["command", "python", "service"]),
        default="command",
    )
    asked = {"command": "The command", "python": "MODULE:FACTORY", "service": "The command that starts it"}
    return kind, str(click.prompt(asked[kind])).strip()


def _default_install(project: Path) -> tuple[str, ...]:
    """What installs the project in CI, as far as its files say."""
    if (project / "pyproject.toml").is_file() or (project / "setup.py").is_file():
        return ("-e", ".")
    if (project / "requirements.txt").is_file():
        return ("-r", "requirements.txt")
    return ()


def _plan(project: Path, answers: InitAnswers, pyproject: bool) -> tuple[list[_Planned], list[str]]:
    """The files to write, and what is left as it is (sessions the noxfile has)."""
    from zeroclaw_eval._support.json.text import pretty_json
    from zeroclaw_eval.cases.scaffold import ScaffoldSpec, scaffold_fixture
    from zeroclaw_eval.config import init_files as files

    planned: list[_Planned] = []
    kept: list[str] = []
    if pyproject:
        table = project / "pyproject.toml"
        text = _read(table)
        tool = _toml(table, text).get("tool") if text else None
        if isinstance(tool, dict) and "zeroclaw" in tool:
            raise UsageError(f"{table} has a [tool.zeroclaw] table already: edit it, or remove it first")
        planned.append(_Planned(table, _after(text, files.pyproject_table(answers)), append=True))
    else:
        planned.append(_Planned(project / "zeroclaw.toml", files.zeroclaw_toml(answers)))
    case = scaffold_fixture(ScaffoldSpec(files.EXAMPLE_CASE.removesuffix(".json")))
    planned.append(_Planned(project / answers.suite_dir / files.EXAMPLE_CASE, pretty_json(case) + "\n"))
    noxfile = project / "noxfile.py"
    existing = _read(noxfile)
    try:
        missing = files.sessions_missing(existing)
    except SyntaxError as exc:
        raise UsageError(
            f"{noxfile} does not parse (line {exc.lineno}: {exc.msg}): fix it first, then run init again"
        ) from None
    kept += [f"{noxfile}: {name} (defined already)" for name in files.SESSIONS if name not in missing]
    if missing:
        sessions = files.eval_sessions(answers, missing, with_import="import nox" not in existing)
        planned.append(_Planned(noxfile, _after(existing, sessions), append=bool(existing)))
    planned.append(_Planned(project / ".github" / "workflows" / "zeroclaw.yml", files.workflow(answers)))
    return planned, kept


def _read(path: Path) -> str:
    """The text of a file `init` adds to ("" when there is none); `UsageError` for one it
    cannot read as UTF-8."""
    if not path.is_file():
        return ""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} cannot be read as UTF-8 text ({exc}): init adds to no such file") from None


def _toml(path: Path, text: str) -> dict[str, object]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    try:
        document: dict[str, object] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML ({exc}): fix it first, then run init again") from None
    return document


def _after(existing: str, added: str) -> str:
    """`added`, to append to a file whose text is `existing`: on a line of its own."""
    return "\n" + added if existing and not existing.endswith("\n") else added


def _unsafe(planned: list[_Planned], project: Path) -> None:
    """`UsageError` before anything is written, for a file `init` could not write where it
    says, or would write elsewhere: through a symbolic link (to a file, or a folder on the
    way), or under a file where a folder must be."""
    for item in planned:
        for path in (item.path, *item.path.parents):
            if path == project:
                break
            if path.is_symlink():
                raise UsageError(
                    f"{path} is a symbolic link: init writes through none (it could write outside"
                    " the project); remove it, or write that file yourself"
                )
            if path != item.path and os.path.lexists(path) and not path.is_dir():
                raise UsageError(
                    f"{path} is a file, where init would make a folder: move it, then run init again"
                )


@click.command("init", context_settings=CONTEXT)
@click.argument("project", default=".", type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option(
    "--agent-cmd", metavar="CMD", help="Your agent is this command: a process per case, a JSON line per turn."
)
@click.option(
    "--agent", "agent_factory", metavar="MODULE:FACTORY", help="Your agent is made by this Python factory."
)
@click.option("--agent-service", metavar="CMD", help="Your agent is an HTTP service this command starts.")
@click.option(
    "--suite", default="evals/regression", show_default=True, help="The folder of the regression cases."
)
@click.option(
    "--install",
    metavar="ARGS",
    help="What `pip install` installs your project with in CI, split like a shell's words."
    " [default: -e . with a pyproject.toml or setup.py, else -r requirements.txt when there is one]",
)
@click.option(
    "--zeroclaw-eval",
    "requirement",
    metavar="REQ",
    help="What installs zeroclaw-eval in CI: a requirement or a path. [default: zeroclaw-eval==THIS VERSION]",
)
@click.option(
    "--action",
    metavar="OWNER/REPO@REF",
    help="Run the gate in the workflow with this Action (after your install step), not the nox sessions.",
)
@click.option(
    "--pyproject", is_flag=True, help="Write the settings as [tool.zeroclaw.eval] in pyproject.toml."
)
@click.option(
    "--force", is_flag=True, help="Replace the files that exist (the noxfile is only ever appended to)."
)
@click.option("--dry-run", is_flag=True, help="Print what would be written; write nothing.")
def init_command(
    project: Path,
    agent_cmd: str | None,
    agent_factory: str | None,
    agent_service: str | None,
    suite: str,
    install: str | None,
    requirement: str | None,
    action: str | None,
    pyproject: bool,
    force: bool,
    dry_run: bool,
) -> None:
    """Set the gate up in PROJECT (default: here): its settings, a first case, the nox
    sessions that run it and a GitHub workflow.

    Writes zeroclaw.toml (or [tool.zeroclaw.eval] in pyproject.toml with --pyproject)
    naming your agent and the suite; SUITE/say_hello.json, a case of one turn that any
    agent passing the model's answer on passes; eval_regression, eval_vacuity and
    (opt-in) eval_live in noxfile.py, created or appended to (a session it defines
    already is kept); and .github/workflows/zeroclaw.yml, which runs the two gate
    sessions on every pull request. Nothing that exists is replaced without --force.

    \b
    Examples:
      zeroclaw eval init --agent-cmd "python agent.py"
      zeroclaw eval init --agent my_agent:make_agent --pyproject
      zeroclaw eval init --agent-service "uvicorn app:app --port $PORT" --dry-run
    \b
    Then: nox -s eval_regression (or zeroclaw eval run), and commit what was written.
    Exit codes: 0 written; 2 a usage error or a file that exists (nothing written).
    """
    from zeroclaw_eval._version import __version__
    from zeroclaw_eval.config import init_files as files

    with exit_on_error():
        kind, agent = _chosen(agent_cmd, agent_factory, agent_service)
        if Path(suite).is_absolute() or ".." in Path(suite).parts:
            raise UsageError(f"--suite {suite!r}: give a folder inside the project, such as evals/regression")
        try:
            steps = tuple(shlex.split(install)) if install is not None else _default_install(project)
        except ValueError as exc:
            raise UsageError(f"--install {install!r}: {exc}") from None
        if action is not None and not files.ACTION.fullmatch(action):
            raise UsageError(
                f"--action {action!r}: expected OWNER/REPO@REF, such as my-org/zeroclaw-eval@v0.1.0"
            )
        answers = files.InitAnswers(
            kind,
            agent,
            Path(suite).as_posix(),
            steps,
            requirement or f"zeroclaw-eval=={__version__}",
            action or "",
        )
        planned, kept = _plan(project, answers, pyproject)
        _unsafe(planned, project)
        existing = [item.path for item in planned if not item.append and os.path.lexists(item.path)]
        if existing and not force and not dry_run:
            shown = "\n".join(f"  {path}" for path in existing)
            raise UsageError(f"these exist already, so nothing was written (--force replaces them):\n{shown}")
        for item in planned:
            if dry_run:
                verb = "append to" if item.append else "replace" if item.path.exists() else "write"
                click.echo(f"--- would {verb} {item.path}\n{item.text}")
                continue
            item.path.parent.mkdir(parents=True, exist_ok=True)
            if item.append:
                with item.path.open("a", encoding="utf-8") as out:
                    out.write(item.text)
            else:
                item.path.write_text(item.text, encoding="utf-8")
    verb = "would keep" if dry_run else "kept"
    for line in kept:
        say(f"{verb} {line}")
    if not dry_run:
        for item in planned:
            say(f"{'appended to' if item.append else 'wrote'} {item.path}")
        say("next: nox -s eval_regression eval_vacuity (or zeroclaw eval run), then commit these files")
