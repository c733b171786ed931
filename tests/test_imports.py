"""What `zeroclaw --help` imports: only what it needs to print the commands, so that it
(and every command's start) stays quick. Each command imports its heavy modules when it
runs; this checks, in a fresh interpreter, that none of them came in with the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: Modules `zeroclaw --help` must not import: the validation library, the HTML and JUnit
#: writers, the HTTP client, the event loop, RE2, and the package's own model layers
#: (whose pydantic classes take most of a run's start-up to build).
HEAVY = (
    "pydantic",
    "pydantic_core",
    "jinja2",
    "junit_xml",
    "httpx",
    "asyncio",
    "re2",
    "zeroclaw_eval.fixtures.model",
    "zeroclaw_eval.report.model",
    "zeroclaw_eval.runner",
    "zeroclaw_eval.reporters.registry",
    # The HTTP endpoint's wire formats: `serve --help` needs only its body limit.
    "zeroclaw_eval.run.openai_endpoint",
)

#: Runs the CLI as the console script does, with `argv`, and prints which HEAVY modules
#: were imported by the end.
PROBE = """
import json, sys
from zeroclaw_eval.cli import main
try:
    main(sys.argv[2:], prog_name="zeroclaw")
except SystemExit as exit:
    code = exit.code
heavy = json.loads(sys.argv[1])
print(json.dumps({"code": code, "imported": [m for m in heavy if m in sys.modules]}))
"""


def _imported(*argv: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY), *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    found: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


@pytest.mark.parametrize(
    "argv",
    [("--help",), ("--version",), ("eval", "--help"), ("eval", "run", "--help")],
    ids=["--help", "--version", "eval --help", "eval run --help"],
)
def test_help_imports_none_of_the_heavy_modules(argv: tuple[str, ...]) -> None:
    outcome = _imported(*argv)
    assert outcome == {"code": 0, "imported": []}


def test_the_probe_sees_a_heavy_module_when_a_command_runs_one() -> None:
    # The same probe, on a command that does import them: it would catch a regression.
    outcome = _imported("eval", "schema")
    assert "pydantic" in outcome["imported"]  # type: ignore[operator]
