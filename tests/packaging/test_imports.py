"""What `zeroclaw --help` imports: only what it needs to print the commands, so that it
(and every command's start) stays quick. Each command imports its heavy modules when it
runs; this checks, in a fresh interpreter, that none of them came in with the CLI, and
that a plain replay leaves out what only an agent command, live mode or another output
format needs."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.builders import PASSING, write_fixture

#: Modules `zeroclaw --help` must not import: the validation library, the HTML and JUnit
#: writers, the HTTP client, the event loop, RE2, and the package's own model layers
#: (whose pydantic classes take most of a run's start-up to build).
HEAVY = (
    "pydantic",
    "pydantic_core",
    "jinja2",
    "httpx",
    "asyncio",
    "re2",
    "zeroclaw_eval.cases.model",
    "zeroclaw_eval.report.model",
    "zeroclaw_eval.runner",
    "zeroclaw_eval.reporters.registry",
    # The HTTP endpoint's wire formats: `serve --help` needs only its body limit.
    "zeroclaw_eval.wire.endpoint",
    # The close-match search: only a misspelt name needs it.
    "difflib",
)

#: Modules a replay of a suite with the default table output must not import: the HTTP
#: front an agent command talks to (a server, the wire formats it serves), the live
#: provider and its HTTP client, the writers of the other formats, mutation testing.
REPLAY_NEVER = (
    "httpx",
    "http.server",
    "jinja2",
    "zeroclaw_eval.backends.front",
    "zeroclaw_eval.wire.endpoint",
    "zeroclaw_eval.backends.live",
    "zeroclaw_eval.reporters.html.page",
    "zeroclaw_eval.reporters.junit",
    "zeroclaw_eval.mutate.engine",
    "multiprocessing",  # only --jobs N forks workers
    "zeroclaw_eval.runner.workers",
    "zeroclaw_eval.runner.workers.worker",
    "zeroclaw_eval.runner.workers.pool",
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


def _imported(*argv: str, watched: tuple[str, ...] = HEAVY) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(watched), *argv],
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


def test_a_replay_imports_none_of_what_only_other_runs_need(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write_fixture(suite, "echo_hello.json", PASSING)
    # The runner is watched too: it shows that the run really happened.
    outcome = _imported("eval", "run", "--suite", str(suite), watched=(*REPLAY_NEVER, "zeroclaw_eval.runner"))
    assert outcome == {"code": 0, "imported": ["zeroclaw_eval.runner"]}


def test_building_the_models_every_run_builds_parses_no_text() -> None:
    # pydantic reads each default factory's signature when it builds a model, and a
    # builtin's (`list`, `dict`) is parsed from its text by the tokenizer; a string
    # annotation is compiled back into a type. Both would cost every run's start.
    from zeroclaw_eval.cases import model
    from zeroclaw_eval.config.settings import EvalSettings

    fixture_models = [m for m in vars(model).values() if isinstance(m, type) and issubclass(m, model.Strict)]
    models = [EvalSettings, *fixture_models]
    factories = [f.default_factory for m in models for f in m.model_fields.values() if f.default_factory]
    assert factories
    assert all(inspect.isfunction(factory) for factory in factories)
    annotations = [a for m in fixture_models for a in vars(m).get("__annotations__", {}).values()]
    assert annotations
    assert not any(isinstance(a, str) for a in annotations)


def test_the_provider_model_is_built_only_for_a_provider() -> None:
    # Only live mode validates a provider table: every other run skips building it.
    probe = "from zeroclaw_eval.config.settings import ProviderSettings as P; print(P.__pydantic_complete__)"
    built = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert built.stdout.strip() == "False"
