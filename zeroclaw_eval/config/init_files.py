"""What `zeroclaw eval init` writes into a team's project: the configuration naming how
the gate reaches the agent, one example case, the gate's nox sessions and a GitHub
workflow that runs them. Each is text made here from the answers given; the command
(`cli.commands.init`) decides what is written where, and never overwrites.

The sessions install the project as its own install step says (`-e .` by default) and
zeroclaw-eval beside it, then run the gate: `eval_regression` (every case passes, JUnit
and HTML reports in reports/), `eval_vacuity` (every case can fail) and, opt-in,
`eval_live` (evals/live against a real provider, skipped until there is one). The
workflow sets up Python, installs nox and runs the two default sessions, uploading the
reports; with an Action reference it uses the Action instead, after the project's own
install step.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from dataclasses import dataclass

#: How the gate may reach the agent, by the `[eval]` key that names it.
AGENT_KEYS = {"command": "agent_cmd", "python": "agent", "service": "agent_service"}
#: The sessions `eval_sessions` defines, in order.
SESSIONS = ("eval_regression", "eval_vacuity", "eval_live")
#: The example case's file name.
EXAMPLE_CASE = "say_hello.json"
#: An Action reference: OWNER/REPO (and a path in it) at a ref, nothing a YAML line could
#: be made to carry besides.
ACTION = re.compile(r"[\w.-]+/[\w./-]+@[\w./-]+")


@dataclass(frozen=True)
class InitAnswers:
    """What the project told `init`."""

    #: `command`, `python` or `service` (`AGENT_KEYS`).
    agent_kind: str
    #: The command line, or `module:factory` for a Python agent.
    agent: str
    suite_dir: str = "evals/regression"
    #: The project's own install step, as `pip install` arguments.
    install: tuple[str, ...] = ("-e", ".")
    #: What installs zeroclaw-eval (a requirement or a path).
    zeroclaw_eval: str = "zeroclaw-eval"
    #: An Action reference (`OWNER/REPO@REF`) for the workflow; empty: nox sessions.
    action: str = ""


def toml_string(value: str) -> str:
    """`value` as a TOML basic string: JSON's escapes are TOML's, and DEL, which JSON
    leaves as it is and TOML refuses, is escaped too."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def yaml_string(value: str) -> str:
    """`value` as a YAML double-quoted scalar (JSON's strings are YAML's): a `: ` or a
    `#` in it stays text."""
    return json.dumps(value)


def eval_table(answers: InitAnswers) -> str:
    """The `[eval]` settings: the suite and the agent."""
    key = AGENT_KEYS[answers.agent_kind]
    lines = [f"suite_dir = {toml_string(answers.suite_dir)}", f"{key} = {toml_string(answers.agent)}"]
    if answers.agent_kind != "python":
        lines.append("case_timeout_secs = 60  # a process of its own starts slower than a function")
    return "\n".join(lines) + "\n"


def zeroclaw_toml(answers: InitAnswers) -> str:
    return (
        "# zeroclaw-eval: where the cases are and how the gate reaches the agent (written by\n"
        "# `zeroclaw eval init`; every key: `zeroclaw eval run --help` and the configuration\n"
        "# reference).\n[eval]\n" + eval_table(answers)
    )


def pyproject_table(answers: InitAnswers) -> str:
    """The same settings as a `[tool.zeroclaw.eval]` table, appended to pyproject.toml."""
    return "\n# zeroclaw-eval (written by `zeroclaw eval init`)\n[tool.zeroclaw.eval]\n" + eval_table(answers)


def _python_list(items: tuple[str, ...]) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


def eval_sessions(answers: InitAnswers, missing: tuple[str, ...], *, with_import: bool) -> str:
    """The text of the gate's sessions among `missing`, for a noxfile; `import nox` first
    when the noxfile has none."""
    install = _python_list((*answers.install, answers.zeroclaw_eval))
    suite = json.dumps(answers.suite_dir)
    bodies = {
        "eval_regression": f'''@nox.session
def eval_regression(session: nox.Session) -> None:
    """The merge gate: every case of the suite passes (JUnit and HTML reports in reports/)."""
    session.install(*ZEROCLAW_EVAL_INSTALL)
    session.run(
        "zeroclaw", "eval", "run", "--suite", {suite},
        "--report", "junit=reports/eval-regression.xml",
        "--report", "html=reports/eval-regression.html",
        *session.posargs,
    )
''',
        "eval_vacuity": f'''@nox.session
def eval_vacuity(session: nox.Session) -> None:
    """The gate's other half: every case of the suite fails against an empty run."""
    session.install(*ZEROCLAW_EVAL_INSTALL)
    session.run("zeroclaw", "eval", "vacuity", "--suite", {suite}, *session.posargs)
''',
        "eval_live": '''@nox.session(default=False)
def eval_live(session: nox.Session) -> None:
    """Opt-in: evals/live against a real provider (real tokens); skipped until it exists."""
    if not any(Path("evals/live").glob("*.json")):
        session.skip(
            "no cases in evals/live: add some, and a provider ([eval].live_provider and"
            " [providers.models.NAME]; see the live-mode guide)"
        )
    session.install(*ZEROCLAW_EVAL_INSTALL)
    session.run("zeroclaw", "eval", "run", "--mode", "live", "--suite", "evals/live", *session.posargs)
''',
    }
    head = "import nox\n" if with_import else ""
    if "eval_live" in missing:
        head += "from pathlib import Path\n"
    head += (
        "\n\n# zeroclaw-eval's gate (written by `zeroclaw eval init`). What installs the project\n"
        "# and zeroclaw-eval in each session:\n"
        f"ZEROCLAW_EVAL_INSTALL = {install}\n"
    )
    return head + "".join(f"\n\n{bodies[name]}" for name in SESSIONS if name in missing)


def sessions_missing(noxfile: str) -> tuple[str, ...]:
    """The gate's sessions a noxfile's text does not define yet: a function of that name,
    or one a decorator names so (`@nox.session(name="eval_regression")`). `SyntaxError`
    for a noxfile that does not parse (appending to it could not make it run)."""
    defined: set[str] = set()
    for node in ast.walk(ast.parse(noxfile)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(node.name)
            for decorator in node.decorator_list:
                for keyword in decorator.keywords if isinstance(decorator, ast.Call) else ():
                    if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                        defined.add(str(keyword.value.value))
    return tuple(name for name in SESSIONS if name not in defined)


def workflow(answers: InitAnswers) -> str:
    """The GitHub workflow that runs the gate on every pull request and push to main."""
    head = """# zeroclaw-eval's gate (written by `zeroclaw eval init`): every case passes, and every
# case can fail. The reports are uploaded; under GitHub Actions the command annotates
# each failing fixture field and writes the step summary.
name: zeroclaw-eval
on:
  pull_request:
  push:
    branches: [main]
permissions:
  contents: read
jobs:
  eval-gate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
"""
    if answers.action:
        install = ""
        if answers.install:
            command = yaml_string(f"python -m pip install {shlex.join(answers.install)}")
            install = f"      - name: Install the project\n        run: {command}\n"
        return (
            head
            + install
            + (
                f"      - uses: {answers.action}\n"
                "        with:\n"
                f"          suite: {yaml_string(answers.suite_dir)}\n"
                '          python-version: ""  # the Python above, which has the project\n'
            )
        )
    return head + (
        "      - name: Install nox\n"
        "        run: python -m pip install nox\n"
        "      - name: The gate\n"
        "        run: nox -s eval_regression eval_vacuity\n"
        "      - uses: actions/upload-artifact@v4\n"
        "        if: always()\n"
        "        with:\n"
        "          name: zeroclaw-eval-reports\n"
        "          path: reports/\n"
        "          if-no-files-found: ignore\n"
    )
